"""The README's model comparison: ``rag-bench -m`` over embedders and rerankers, offline and API, in one sweep.

Usage: python benchmarks/reproduce/model_comparison.py [--dataset annual-report] [--out results/runs/models]

No API key is at hand here, so the OpenAI-compatible and Cohere options talk to the fake servers of
``rag_bench.testing`` on 127.0.0.1 (found by the official clients' own ``OPENAI_BASE_URL`` and
``CO_API_URL``): their vectors are word hashes and their rerank scores word overlaps, so their quality
columns demonstrate the mechanics only and say nothing about those providers' models. Cost per 1,000
questions is the configuration's, priced from configs/prices.yaml as a real run would be; the local
MiniLM and max-sim rows are real measurements. Prints the summary table as Markdown.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from rag_bench.testing.cohere_server import FakeCohereServer
from rag_bench.testing.openai_server import FakeOpenAIServer

KEY = "demo-key"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="annual-report")
    parser.add_argument("--out", default="results/runs/models")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    with FakeOpenAIServer(api_key=KEY) as openai, FakeCohereServer(api_key=KEY) as cohere:
        env = {
            **os.environ,
            "OPENAI_API_KEY": KEY,
            "CO_API_KEY": KEY,
            "OPENAI_BASE_URL": openai.url + "/v1",
            "CO_API_URL": cohere.url,
        }
        command = [
            *(sys.executable, "-m", "rag_bench", "-m", f"dataset={args.dataset}", "retrieval=dense", "quiet=true"),
            "embedder=local,openai,cohere",
            "reranker=none,maxsim,cohere",
            f"hydra.sweep.dir={out}",
        ]
        subprocess.run(command, env=env, check=True)
    table = pd.read_csv(out / "summary.csv")
    columns = ["embedder", "reranker", "ndcg@10", "recall@10", "index_bytes", "cost_per_1k_questions", "index_cost_usd"]
    shown = table[columns + ["embed_seconds"]].sort_values(["embedder", "reranker"])
    print("| " + " | ".join(shown.columns) + " |")
    print("|" + "---|" * len(shown.columns))
    for row in shown.itertuples(index=False):
        print(
            "| " + " | ".join("-" if pd.isna(v) else f"{v:.4g}" if isinstance(v, float) else str(v) for v in row) + " |"
        )


if __name__ == "__main__":
    main()
