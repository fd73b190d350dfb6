"""What a run folder says about each labelled question: the rank of its first hit, and whether it hit within k."""

from __future__ import annotations

import math
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.run_folder.fingerprint import documents_hash
from rag_bench.run_folder.read import RunFolder
from rag_bench.run_folder.runs import first_hit_ranks, hits_at, labelled, load_run


def run_outcomes(folder: Path, k: int, dataset: Path) -> dict:
    """``{"folder", "k", "questions": {id: {"first_hit_rank": int | None, "hit": bool}}}`` from ``per_question.csv``.

    Only labelled questions are scored by a run; a question missing here was unlabelled
    then, or written after the run. A run of another dataset (other documents) is refused, as gate and
    compare refuse runs of different dataset contents: its outcomes would land on questions that only
    share an id.
    """
    check_same_documents(folder, dataset)
    run = load_run(folder)
    ranks, hits, judged = first_hit_ranks(run), hits_at(run, k), labelled(run)
    questions = {
        str(qid): {"first_hit_rank": None if math.isnan(rank) else int(rank), "hit": bool(hits[qid] >= 1.0)}
        for qid, rank in ranks.items()
        if judged[qid]
    }
    return {"folder": str(run.folder), "k": k, "questions": questions}


def check_same_documents(run_folder: Path, dataset: Path) -> None:
    """A DataError unless the run scored this dataset's documents (its recorded ``documents`` fingerprint, or
    for a run recorded without one, the dataset folder its config names)."""
    run = RunFolder(run_folder, needs=("metrics.json", "per_question.csv"))
    recorded = run.recorded_fingerprint().get("documents")
    if recorded is not None:
        same = recorded == documents_hash(Path(dataset))
    else:
        from rag_bench.data.dataset import DatasetConfig

        same = DatasetConfig(*run.dataset_settings()).folder.resolve() == Path(dataset).resolve()
    if not same:
        raise DataError(
            run_folder,
            f"was scored on other documents than {dataset}'s",
            fix=f"pass --run a run of this dataset (rag-bench dataset.path={dataset} ...)",
        )
