"""What a run folder says about each labelled question: the rank of its first hit, and whether it hit within k."""

from __future__ import annotations

import math
from pathlib import Path

from rag_bench.run_folder.runs import first_hit_ranks, hits_at, labelled, load_run


def run_outcomes(folder: Path, k: int) -> dict:
    """``{"folder", "k", "questions": {id: {"first_hit_rank": int | None, "hit": bool}}}`` from ``per_question.csv``.

    Only labelled questions are scored by a run; a question missing here was unlabelled
    then, or written after the run.
    """
    run = load_run(folder)
    ranks, hits, judged = first_hit_ranks(run), hits_at(run, k), labelled(run)
    questions = {
        str(qid): {"first_hit_rank": None if math.isnan(rank) else int(rank), "hit": bool(hits[qid] >= 1.0)}
        for qid, rank in ranks.items()
        if judged[qid]
    }
    return {"folder": str(run.folder), "k": k, "questions": questions}
