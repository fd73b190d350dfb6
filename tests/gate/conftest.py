"""Run folders written by hand: per question, the rank of the first hit (None: no hit)."""

import csv
import json

import pytest


def rank_metrics(rank):
    """hit/recall at 5 and 10 and mrr@10 of a one-span question whose first hit is at ``rank``."""
    hit5 = 1.0 if rank is not None and rank <= 5 else 0.0
    hit10 = 1.0 if rank is not None and rank <= 10 else 0.0
    return {
        "hit@5": hit5,
        "hit@10": hit10,
        "recall@5": hit5,
        "recall@10": hit10,
        "mrr@10": 1.0 / rank if hit10 else 0.0,
    }


@pytest.fixture
def make_run(tmp_path):
    """make_run(name, ranks, ids=None, unlabelled=(), dataset=None) -> the run folder."""

    def make(name, ranks, ids=None, unlabelled=(), dataset=None):
        folder = tmp_path / name
        folder.mkdir()
        ids = ids or [f"q{i:02d}" for i in range(1, len(ranks) + 1)]
        rows = []
        for qid, rank in zip(ids, ranks, strict=True):
            rows.append(
                {
                    "question_id": qid,
                    "category": "",
                    "labelled": True,
                    "n_spans": 1,
                    "first_hit_rank": "" if rank is None else float(rank),
                    **rank_metrics(rank),
                    "top_chunks": json.dumps(["doc:0-10"]),
                }
            )
        for qid in unlabelled:
            rows.append({**rows[0], "question_id": qid, "labelled": False, "first_hit_rank": "", **rank_metrics(None)})
        with open(folder / "per_question.csv", "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        labelled = rows[: len(ranks)]
        means = {m: sum(r[m] for r in labelled) / len(labelled) for m in rank_metrics(None)}
        payload = {"dataset": "hand", "n_questions": len(ranks), "n_unlabelled": len(unlabelled), "metrics": means}
        (folder / "metrics.json").write_text(json.dumps(payload), encoding="utf-8")
        if dataset is not None:
            (folder / "config.yaml").write_text(f"dataset:\n  name: {dataset}\n  path: null\n", encoding="utf-8")
        return folder

    return make
