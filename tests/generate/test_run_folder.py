import pytest

from rag_bench.core.errors import DataError
from rag_bench.run_folder.read import read_run


def test_reads_dataset_tau_and_ranked_chunks(tiny_run):
    run = read_run(tiny_run)
    assert run.dataset.name == "tiny" and run.tau == 0.5
    assert [q.id for q in run.questions] == ["q1", "q2", "q3"]
    first = run.ranked[0]
    # "notes:a.md:0-51" splits at the last ':' -> document "notes:a.md", characters [0, 51)
    assert [(c.doc_id, c.start, c.end) for c in first] == [("notes:a.md", 0, 51), ("b.md", 0, 29)]
    assert first[0].text == "The capital of France is Paris. It is a large city."
    assert first[1].text == "Bananas are yellow when ripe."
    assert not run.questions[2].labelled  # unanswerable questions are kept


@pytest.mark.parametrize(
    ("chunks", "problem"),
    [
        ('["b.md:0-29"', "malformed JSON"),
        ('{"a": 1}', "must be a JSON list of chunk ids"),
        ('["b.md"]', "is not doc_id:start-end"),
        ('["b.md:9"]', "is not doc_id:start-end"),
        ('["c.md:0-5"]', "names an unknown document"),
        ('["b.md:0-999"]', "lies outside document 'b.md'"),
    ],
)
def test_bad_top_chunks_name_line_and_field(tiny_run, chunks, problem):
    path = tiny_run / "per_question.csv"
    lines = path.read_text().splitlines()
    lines[2] = 'q2,,True,"' + chunks.replace('"', '""') + '"'
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as info:
        read_run(tiny_run)
    assert (info.value.line, info.value.field) == (3, "top_chunks")
    assert problem in info.value.problem


def test_unknown_question_and_missing_files(tiny_run):
    path = tiny_run / "per_question.csv"
    path.write_text(path.read_text().replace("q3,", "q9,"))
    with pytest.raises(DataError, match="question 'q9' is not in dataset 'tiny'"):
        read_run(tiny_run)
    path.unlink()
    with pytest.raises(DataError, match="per_question.csv: is missing"):
        read_run(tiny_run)
    (tiny_run / "config.yaml").write_text("just: text\n")
    with pytest.raises(DataError, match="is not a rag-bench run config"):
        read_run(tiny_run)
    with pytest.raises(DataError, match="is not a folder"):
        read_run(tiny_run / "nope")
