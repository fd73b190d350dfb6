"""Each sweep point's metric on the dev and the held-out test questions of the sweep report's split.

Usage: python benchmarks/held_out.py SWEEP_DIR [--metric ndcg@10]
The split is the report's (``report/sweep/marks.py``): the dataset's own split field, else a seeded half of
the question ids (``score/selection.py``). Prints Markdown: point, its swept settings, the metric on dev and on
test with the 95% bootstrap interval; the report's chosen point is the best on dev, its test value the estimate.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from rag_bench.run_folder.read import RunFolder
from rag_bench.run_folder.runs import common_questions, load_run, metric_values
from rag_bench.score.aggregate import summarise
from rag_bench.score.names import parse_metric
from rag_bench.score.selection import DEV, TEST, question_split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path)
    parser.add_argument("--metric", default="ndcg@10")
    args = parser.parse_args()
    table = pd.read_csv(args.sweep / "summary.csv")
    swept = [c for c in table.columns[1 : list(table.columns).index("sweep")] if table[c].nunique() > 1]
    runs = [load_run(args.sweep / str(p)) for p in table["point"]]
    ids = common_questions(runs)
    wanted = set(ids)
    questions = [q for q in RunFolder(runs[0].folder).dataset().questions if q.id in wanted]
    split = question_split(questions, 0.5, 0)
    sides = {side: [q for q in ids if split[q] == side] for side in (DEV, TEST)}
    print(f"| point | {' | '.join(swept)} | {args.metric} dev ({len(sides[DEV])}) | test ({len(sides[TEST])}) [95%] |")
    print("|---|" + "---|" * (len(swept) + 2))
    for point, run, (_, row) in zip(table["point"], runs, table.iterrows(), strict=True):
        values = metric_values(run, parse_metric(args.metric))
        dev = summarise(values.loc[sides[DEV]].dropna().to_numpy(), 1000, 0)
        test = summarise(values.loc[sides[TEST]].dropna().to_numpy(), 1000, 0)
        settings = " | ".join(str(row[c]) for c in swept)
        print(f"| {point} | {settings} | {dev.mean:.3f} | {test.mean:.3f} [{test.ci_low:.3f}, {test.ci_high:.3f}] |")


if __name__ == "__main__":
    main()
