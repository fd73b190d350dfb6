import json
from dataclasses import replace

import numpy as np
import pytest

from rag_bench.report.run.page import embed_json, render_run_page
from rag_bench.report.run.view import run_view

from .pages import CHUNKS, EXPECTED, facts


def test_the_model_holds_each_question_with_its_class_evidence_and_top_chunks():
    view = run_view(facts())
    assert [q["failure"] for q in view["questions"]] == EXPECTED
    cut = view["questions"][1]
    assert cut["evidence"] == [{"doc": "guide.md", "start": 25, "end": 50, "text": "Then restart the service."}]
    assert cut["ranks"] == {"bm25": None, "dense": None, "fused": None}
    # the fused top 2 of q-cut: chunk 0 (bm25 #1, dense -, fused #1), chunk 2 (bm25 #2, dense #1, fused #2)
    top = [(view["chunks"][t["chunk"]]["id"], t["hit"], t["ranks"]) for t in cut["top"]]
    assert top == [("guide.md:0-34", False, [1, None, 1]), ("faq.md:0-40", False, [2, 1, 2])]
    assert cut["top"][1]["scores"] == [5.0, 1.0, 0.015]  # 10/2, 1/1, 0.03/2


def test_where_the_evidence_went_lists_touching_candidates_below_k():
    view = run_view(facts())
    fused = view["questions"][2]  # bm25 holds the evidence chunk at rank 3, fused at rank 4
    (beyond,) = fused["beyond"]
    assert view["chunks"][beyond["chunk"]]["id"] == "faq.md:0-40"
    assert (beyond["hit"], beyond["ranks"]) == (True, [3, None, 4])
    assert view["questions"][1]["beyond"] == []  # the boundary question's touching chunk 0 is in the top 2


def test_each_shown_chunk_is_stored_once():
    view = run_view(facts())
    ids = [c["id"] for c in view["chunks"]]
    assert len(ids) == len(set(ids)) and set(ids) <= {c.id for c in CHUNKS}
    assert view["chunks"][0] == {
        "id": "guide.md:34-99",
        "doc": "guide.md",
        "start": 34,
        "end": 99,
        "text": CHUNKS[1].text,
    }


def test_counts_settings_and_metrics():
    view = run_view(facts())
    assert view["failures"]["all"]["boundary"] == 1 and view["failures"]["b"]["fused-out"] == 1
    assert view["failures"]["(none)"]["not-retrieved"] == 1
    misses = ["lost-by-parser", "crowded-out", "reranked-out", "diversified-out", "expanded-out", "fused-out"]
    assert view["classes"][:6] == misses and view["classes"][-2:] == ["hit", "unlabelled"]
    assert view["run"]["stages"] == ["bm25", "dense", "fused"] and view["run"]["report_k"] == 2
    assert view["run"]["settings"]["embedder.dimension"] is None
    assert view["metrics"][0] == {"name": "hit@1", "mean": 0.25, "low": 0.0, "high": 0.75}


def test_the_model_is_strict_json():
    hand = facts()
    bad = replace(hand, metrics={"hit@1": (float("nan"), float("nan"), float("inf"))})
    text = json.dumps(run_view(bad), allow_nan=False)  # NaN and infinities become null
    assert '"mean":null' in text.replace(" ", "")


def test_inputs_of_the_wrong_length_are_refused():
    hand = facts()
    with pytest.raises(ValueError, match="one row per question"):
        run_view(replace(hand, first_hits=[None]))
    with pytest.raises(ValueError, match="no stages"):
        run_view(replace(hand, stages=[]))


def test_page_is_self_contained_and_script_safe():
    hand = facts()
    questions = list(hand.questions)
    questions[0] = replace(questions[0], text="</script><script>alert(1)</script> <!-- ?")
    page = render_run_page(run_view(replace(hand, questions=questions)))
    assert "<link" not in page and "http://" not in page and "https://" not in page
    assert page.count("</script>") == 2  # the data block and the page script; the question's text is escaped
    assert "\\u003c/script>" in embed_json({"t": "</script>"})
    assert json.loads(embed_json({"t": "</script> <!--"})) == {"t": "</script> <!--"}


def test_scores_are_rounded_for_display_only_at_six_digits():
    hand = facts()
    stages = list(hand.stages)
    stages[0] = replace(stages[0], scores=np.full(stages[0].scores.shape, 1 / 3))
    view = run_view(replace(hand, stages=stages))
    assert view["questions"][0]["top"][0]["scores"][0] == 0.333333


def test_pages_are_written_whole_with_the_usual_permissions(tmp_path):
    import os

    from rag_bench.report.run.page import write_run_page

    path = write_run_page(run_view(facts()), tmp_path / "report.html")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left
