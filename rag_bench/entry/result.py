"""What ``rag_bench.run`` and ``rag_bench.evaluate`` return: ``Result``, a run as pandas tables and paths.

Every field comes from the run folder the call wrote (``out=``, else a temporary folder), so a result has
the same fields and keys with an output folder and without one. ``result["metrics"]`` and the other keys of
metrics.json still read as the dict ``evaluate`` used to return.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy and pandas load when a result is made: `rag-bench --help` imports this module
    import numpy as np
    import pandas as pd

METRIC_COLUMNS = ("mean", "ci_low", "ci_high", "stderr")
RANKING_COLUMNS = ("question_id", "stage", "rank", "chunk_id", "doc_id", "start", "end", "score")


@dataclass(frozen=True, eq=False)  # Mapping's == (metrics.json's) holds; DataFrames have no truth value
class Result(Mapping):
    """One run: its metrics with 95% intervals, per-question table, stage rankings, files and settings.

    ``metrics``: one row per metric (``recall@10`` ...), columns mean, ci_low, ci_high, stderr.
    ``per_question``: per_question.parquet (metrics, failure class, evidence rank per stage, ranked chunk ids).
    ``rankings``: one row per (question, stage, rank): every stage list (``bm25``, ``dense``, ``fused``,
    ``reranked``, ...) and ``final``, with chunk ids, offsets and scores.
    ``folder``: the run folder; ``report``: its report.html. ``settings``: the resolved configuration,
    flattened (``chunker.size`` -> 800); ``overrides``: the overrides that compose back into it
    (``rag_bench.run(*result.overrides)``, or a line each in a file for ``rag-bench @FILE``).
    """

    metrics: pd.DataFrame
    per_question: pd.DataFrame
    rankings: pd.DataFrame
    folder: Path
    report: Path
    settings: dict[str, object]
    overrides: list[str]
    payload: dict = field(repr=False)  # metrics.json

    def __getitem__(self, key: str) -> object:
        return self.payload[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.payload)

    def __len__(self) -> int:
        return len(self.payload)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={row['mean']:.3f}" for name, row in self.metrics.head(4).iterrows())
        return f"Result({self.payload.get('dataset')!r}, {shown}, ... folder={str(self.folder)!r})"


def result_of(run_result, folder: Path) -> Result:
    """The ``Result`` of a run just written into ``folder`` (``run_result``: its ``pipeline.RunResult``)."""
    import pandas as pd

    from rag_bench.config.overrides import overrides_for
    from rag_bench.report.run.outputs import flatten
    from rag_bench.run_folder.read import read_yaml

    payload = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    config = read_yaml(folder / "config.yaml")
    return Result(
        metrics=metrics_table(payload),
        per_question=pd.read_parquet(folder / "per_question.parquet"),
        rankings=rankings_table(run_result),
        folder=folder,
        report=folder / "report.html",
        settings=flatten(config),
        overrides=overrides_for(config),
        payload=payload,
    )


def metrics_table(payload: Mapping) -> pd.DataFrame:
    """metrics.json's means, 95% intervals and standard errors, one row per metric (NaN where unmeasured)."""
    import pandas as pd

    intervals, errors = payload.get("ci95", {}), payload.get("stderr", {})
    rows = {
        name: [mean, *(intervals.get(name) or (None, None)), errors.get(name)]
        for name, mean in payload["metrics"].items()
    }
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(METRIC_COLUMNS), dtype=float)
    table.index.name = "metric"
    return table


def rankings_table(run_result) -> pd.DataFrame:
    """Every stage's ranked list and the final one, long: one row per (question, stage, rank), rank from 1."""
    import pandas as pd

    from rag_bench.report.run.outputs import ordered_stages

    lists = {name: (c.chunks, c.indices, c.scores) for name, c in ordered_stages(run_result).items()}
    lists.setdefault("final", (run_result.chunks, run_result.ranked, run_result.scores))
    ids = [q.id for q in run_result.dataset.questions]
    parts = [_stage_rows(name, ids, *ranked) for name, ranked in lists.items()]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(RANKING_COLUMNS))


def _stage_rows(stage: str, ids: list[str], chunks, indices: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    # indices, scores: (n_questions, width), -1 padded
    import numpy as np
    import pandas as pd

    q, r = np.nonzero(indices >= 0)
    picked = [chunks[c] for c in indices[q, r]]
    return pd.DataFrame(
        {
            "question_id": [ids[i] for i in q],
            "stage": stage,
            "rank": r + 1,
            "chunk_id": [c.id for c in picked],
            "doc_id": [c.doc_id for c in picked],
            "start": [c.start for c in picked],
            "end": [c.end for c in picked],
            "score": scores[q, r].astype(float),
        },
        columns=list(RANKING_COLUMNS),
    )
