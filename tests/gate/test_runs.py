import pytest

from rag_bench.core.errors import DataError
from rag_bench.run_folder.runs import hits_at, load_run, question_texts


def test_a_run_loads_from_its_folder_or_metrics_json(make_run):
    folder = make_run("run", [1, None, 7], unlabelled=["u1"])
    by_folder, by_json = load_run(folder), load_run(folder / "metrics.json")
    assert by_folder.folder == by_json.folder == folder
    assert list(by_folder.per_question.index) == ["q01", "q02", "q03"]  # the unlabelled row is left out
    assert list(by_folder.per_question["recall@5"]) == [1.0, 0.0, 0.0]


def test_hits_fall_back_to_the_first_hit_rank(make_run):
    run = load_run(make_run("run", [1, None, 7]))
    assert list(hits_at(run, 10)) == [1.0, 0.0, 1.0]  # the hit@10 column
    assert list(hits_at(run, 7)) == [1.0, 0.0, 1.0]  # no hit@7 column: first_hit_rank <= 7
    assert list(hits_at(run, 6)) == [1.0, 0.0, 0.0]


def test_repeated_question_ids_are_refused(make_run):
    folder = make_run("run", [1, 2], ids=["q1", "q1"])
    with pytest.raises(DataError, match="repeats question ids: q1"):
        load_run(folder)


def test_question_texts_need_a_loadable_dataset(make_run):
    assert question_texts(load_run(make_run("bundled", [1], ids=["ar-001"], dataset="annual-report")))["ar-001"] == (
        "What does error ERR_4021 mean in Corvid Connect?"
    )
    assert question_texts(load_run(make_run("unknown", [1], dataset="no-such-dataset"))) == {}
    assert question_texts(load_run(make_run("no-config", [1]))) == {}
