import csv
import json

import pytest

from rag_bench.generate.outputs import COLUMNS, write_generation
from rag_bench.generate.run import check_generation
from rag_bench.generate.settings import GenerateConfig

from .conftest import TOP_CHUNKS


@pytest.fixture
def written(tiny_run, tmp_path):
    result = check_generation(tiny_run, GenerateConfig(cache_dir=str(tmp_path / "cache")))
    out = tmp_path / "out"
    return write_generation(result, out), out


def test_generation_json(written):
    payload, out = written
    assert json.loads((out / "generation.json").read_text()) == payload
    assert payload["attribution"] == {"retrieval": 1, "generation": 0, "refusal": 0}
    assert payload["attribution_by_category"] == {
        "fact": {"questions": 2, "passed": 1, "retrieval": 1, "generation": 0, "refusal": 0},
        "unanswerable": {"questions": 1, "passed": 1, "retrieval": 0, "generation": 0, "refusal": 0},
        "all": {"questions": 3, "passed": 2, "retrieval": 1, "generation": 0, "refusal": 0},
    }
    counts = payload["counts"]
    assert (counts["questions"], counts["answerable"], counts["unanswerable"]) == (3, 2, 1)
    assert (counts["passed"], counts["refused"], counts["should_refuse"]) == (2, 2, 2)
    assert (counts["generated"], counts["from_cache"]) == (3, 0)
    agg = payload["aggregates"]
    assert agg["pass_rate"] == pytest.approx(2 / 3)
    assert agg["evidence_given"] == 0.5  # q1 yes, q2 no
    assert agg["refusal_accuracy"] == 1.0
    # q1 quotes "The capital of France is Paris." vs "Paris": contains 1, F1 = 2 * (1/5) / (1 + 1/5); q2 refused: 0
    assert agg["contains"] == 0.5
    assert agg["f1"] == pytest.approx((2 * 0.2 / 1.2) / 2)
    assert payload["settings"]["generator"]["name"] == "extractive"
    assert payload["settings"]["generator_key"] == "extractive/v1/threshold=0.5"


def test_per_question_table(written):
    _, out = written
    with (out / "generation_per_question.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == COLUMNS
    assert [r["question_id"] for r in rows] == ["q1", "q2", "q3"]
    assert json.loads(rows[0]["passages"]) == ["notes:a.md:0-51", "b.md:0-29"]
    assert json.loads(rows[0]["evidence_passages"]) == [1] and json.loads(rows[0]["citations"]) == [1]
    assert (rows[1]["attribution"], rows[1]["problem"]) == ("retrieval", "evidence not retrieved; refused")
    assert (rows[2]["exact"], rows[2]["passed"], rows[2]["attribution"]) == ("", "True", "")


def test_markdown_report(written):
    _, out = written
    text = (out / "generation.md").read_text()
    assert "| category | questions | passed | retrieval | generation | refusal |" in text
    assert "| all | 3 | 2 | 1 | 0 | 0 |" in text
    assert "| q2 | retrieval | evidence not retrieved; refused |" in text
    assert "| pass_rate | 0.667 |" in text


def test_markdown_escapes_dataset_text(tmp_path, tiny_dataset, run_writer):
    """A question id or category holding HTML shows as text in generation.md (rag_bench.core.markdown)."""
    hostile = {"q2": "<b>q2</b>"}
    rows = [json.loads(line) for line in (tiny_dataset / "questions.jsonl").read_text().splitlines()]
    rows = [
        {**r, "id": hostile.get(r["id"], r["id"]), "category": r["category"].replace("fact", "<i>f</i>")} for r in rows
    ]
    (tiny_dataset / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    top = {hostile.get(q, q): ids for q, ids in TOP_CHUNKS.items()}
    result = check_generation(run_writer(tmp_path / "run", tiny_dataset, top), GenerateConfig(cache_dir=str(tmp_path)))
    write_generation(result, tmp_path / "out")
    text = (tmp_path / "out" / "generation.md").read_text()
    assert "| &lt;b>q2&lt;/b> | retrieval | evidence not retrieved; refused |" in text
    assert "| &lt;i>f&lt;/i> | 2 | 1 | 1 | 0 | 0 |" in text
    assert "<b>" not in text and "<i>" not in text
