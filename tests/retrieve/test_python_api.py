"""rag_bench.evaluate and retrieval=python / retrieval=langchain targets: what they accept and how they fail."""

import json
import sys

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

import rag_bench
from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.types import Chunk
from rag_bench.data.native import load_dataset
from rag_bench.retrieve.base import Candidates

from .conftest import rag_bench_cli, write_filtered_dataset

ANSWERS = {  # q1 hits at rank 1, q2 at rank 2, q3 misses
    "q1": [{"doc_id": "a.md", "text": "The ingest certificate expired at noon."}],
    "q2": [{"doc_id": "c.md", "start": 0, "end": 20}, {"doc_id": "b.md", "start": 0, "end": 36}],
    "q3": [{"doc_id": "a.md", "start": 0, "end": 17}],
}
TEXTS = {
    "When did the certificate expire?": "q1",
    "What was counted?": "q2",
    "How long did gateways buffer?": "q3",
}
SEARCH_MODULE = """
ANSWERS = {answers}
TEXTS = {texts}


def search(questions, depth):
    return [ANSWERS[TEXTS[q]][:depth] for q in questions]


not_a_function = 3
"""
BY_HAND = {"hit@1": 1 / 3, "hit@3": 2 / 3, "mrr@3": (1 + 1 / 2) / 3}


def search(questions, depth):
    return [ANSWERS[TEXTS[q]][:depth] for q in questions]


@pytest.fixture
def module_in(tmp_path, monkeypatch):
    """A module ``<name>.py`` holding ``search`` in a folder of its own; sys.path and sys.modules restored after."""
    monkeypatch.setattr(sys, "path", list(sys.path))

    def write(name: str):
        folder = tmp_path / f"mod-{name}"
        folder.mkdir()
        (folder / f"{name}.py").write_text(SEARCH_MODULE.format(answers=repr(ANSWERS), texts=repr(TEXTS)))
        monkeypatch.delitem(sys.modules, name, raising=False)
        return folder

    yield write


def check(payload):
    for name, value in BY_HAND.items():
        assert payload["metrics"][name] == pytest.approx(value, abs=1e-15), name


def test_evaluate_a_function_on_a_folder_and_on_a_loaded_dataset(tiny, tmp_path):
    cache = tmp_path / "cache"
    by_folder = rag_bench.evaluate(tiny, search, ks=[1, 3], cache_dir=cache)
    check(by_folder)
    expected = {"mode": "python", "depth": 3, "target": f"{__name__}:search", "filter_mode": "none"}
    assert by_folder["config"]["retrieval"].items() >= expected.items()
    loaded = load_dataset(tiny, "tiny-loaded")
    by_dataset = rag_bench.evaluate(loaded, search, ks=[1, 3], cache_dir=cache)
    check(by_dataset)
    assert by_dataset["dataset"] == "tiny-loaded"
    stored = by_dataset["config"]["dataset"]["path"]
    assert stored.startswith(str(cache / "datasets" / "api-")) and load_dataset(stored).questions == loaded.questions


def test_an_object_with_retrieve_gets_query_objects(tiny, tmp_path):
    class ById:
        name = "by-id"

        def retrieve(self, queries, depth):
            self.seen = [(q.id, q.text) for q in queries]
            return [ANSWERS[q.id] for q in queries]

    retriever = ById()
    payload = rag_bench.evaluate(tiny, retriever, ks=[1, 3], cache_dir=tmp_path / "cache")
    check(payload)
    assert retriever.seen[0] == ("q1", "When did the certificate expire?")
    assert payload["config"]["retrieval"]["target"] is None  # an object cannot be named on the command line
    assert payload["stats"]["retriever"].startswith(f"by-id {__name__}:")


def test_an_object_may_return_candidates_itself(tiny, tmp_path):
    class Fixed:
        name = "fixed"

        def retrieve(self, queries, depth):
            chunks = [Chunk("a.md", 19, 58, "The ingest certificate expired at noon.")]
            indices = np.array([[0], [-1], [-1]])
            return Candidates(chunks, indices, np.array([[1.0], [-np.inf], [-np.inf]]))

    payload = rag_bench.evaluate(tiny, Fixed(), ks=[1], cache_dir=tmp_path / "cache")
    assert payload["metrics"]["hit@1"] == pytest.approx(1 / 3)


def test_evaluate_equals_the_cli_on_the_same_target(tiny, tmp_path, module_in):
    folder = module_in("tiny_search")
    out = tmp_path / "cli"
    done = rag_bench_cli(
        f"dataset.path={tiny}",
        "dataset.name=tiny",
        "retrieval=python",
        "retrieval.target=tiny_search:search",
        "retrieval.depth=3",
        "ks=[1,3]",
        f"hydra.run.dir={out}",
        cache=tmp_path / "cache",
        cwd=folder,  # rag-bench imports the target from the current folder
    )
    assert done.returncode == 0, done.stderr
    cli = json.loads((out / "metrics.json").read_text())
    sys.path.insert(0, str(folder))
    import tiny_search

    api = rag_bench.evaluate(tiny, tiny_search.search, ks=[1, 3], cache_dir=tmp_path / "cache")
    for key in ("dataset", "n_questions", "n_unlabelled", "metrics", "ci95", "stderr", "by_category"):
        assert api[key] == cli[key], key
    assert api["config"]["retrieval"] == cli["config"]["retrieval"]
    check(cli)


def test_evaluate_passes_overrides_and_reports_bad_ones_in_one_line(tiny, tmp_path):
    payload = rag_bench.evaluate(
        tiny, search, ks=[1, 3], overrides=["reranker=fake", "reranker.depth=3"], cache_dir=tmp_path / "c"
    )
    assert payload["config"]["reranker"]["name"] == "fake"
    with pytest.raises(
        ConfigError,
        match=r"^rag_bench.evaluate settings: chunker.sise is not a setting of chunker=recursive; its settings are: ",
    ):
        rag_bench.evaluate(tiny, search, overrides=["chunker.sise=3"], cache_dir=tmp_path / "c")
    with pytest.raises(ConfigError, match=r"^tau \(2.0\) must lie between 0 and 1$"):
        rag_bench.evaluate(tiny, search, tau=2.0, cache_dir=tmp_path / "c")


def test_evaluate_rejects_what_it_cannot_use(tiny, tmp_path):
    with pytest.raises(ConfigError, match=r"retriever \(int\) must be a function"):
        rag_bench.evaluate(tiny, 3, cache_dir=tmp_path / "c")
    with pytest.raises(ConfigError, match=r"dataset \('no-such-thing'\) must be a bundled dataset \(annual-report"):
        rag_bench.evaluate("no-such-thing", search, cache_dir=tmp_path / "c")
    with pytest.raises(DataError, match=r"returned 2 items for 3 questions \(fix: return a list with one list"):
        rag_bench.evaluate(tiny, lambda questions, depth: [[], []], cache_dir=tmp_path / "c")
    with pytest.raises(DataError, match=r"\(question 'q2'\): results\[0\].doc_id: unknown document 'x'"):
        rag_bench.evaluate(tiny, lambda qs, depth: [[], [{"doc_id": "x", "text": "y"}], []], cache_dir=tmp_path / "c")


def test_targets_that_cannot_be_loaded(tiny, run_with, module_in, monkeypatch):
    monkeypatch.chdir(module_in("tiny_search2"))  # found in the current folder, as `rag-bench` run there would
    base = (f"dataset.path={tiny}", "retrieval=python")
    cases = {
        "no_such_module:search": "module 'no_such_module' cannot be imported",
        "tiny_search2:missing": "tiny_search2 has no 'missing'",
        "tiny_search2:not_a_function": "retrieval.target ('tiny_search2:not_a_function') is a int, not a function",
    }
    for target, message in cases.items():
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            run_with(*base, f"retrieval.target={target}")
    with pytest.raises(ConfigError, match=r"must be 'package.module:name'"):
        run_with(*base, "retrieval.target=tiny_search2.search")
    with pytest.raises(ConfigError, match=r"retrieval=python needs retrieval.target=package.module:name"):
        run_with(*base)


class Fixed(BaseRetriever):
    """Returns ``docs`` for every question."""

    docs: list[Document]

    def _get_relevant_documents(self, query, *, run_manager):
        return list(self.docs)


def langchain_run(tiny, docs):
    return rag_bench.evaluate(tiny, Fixed(docs=docs), ks=[1, 2], cache_dir=tiny.parent / "cache")


def test_langchain_documents_by_start_index_or_by_text(tiny):
    text = "The ingest certificate expired at noon."
    docs = [
        Document(page_content=text, metadata={"doc_id": "a.md", "start_index": 19}),
        Document(page_content="six hours", metadata={"doc_id": "c.md", "start_index": -1}),  # not placed: located
        Document(page_content="Mites were not.", metadata={"doc_id": "b.md"}),
    ]
    payload = langchain_run(tiny, docs)
    details = payload["stats"]["retrieval"]["langchain"]
    assert (details["by_offsets"], details["located_exact"], details["results"]) == (3, 6, 9)
    assert payload["metrics"]["hit@1"] == pytest.approx(1 / 3)  # a.md:19-58 is q1's evidence


def test_langchain_documents_that_cannot_be_placed(tiny):
    no_id = [Document(page_content="six hours", metadata={"source": "c.md"})]
    with pytest.raises(DataError, match=r"\(question 'q1'\): \[0\].metadata: has no metadata\['doc_id'\]"):
        langchain_run(tiny, no_id)
    moved = [Document(page_content="six hours", metadata={"doc_id": "c.md", "start_index": 3})]
    with pytest.raises(DataError, match=r"results\[0\]: offsets \[3, 12\) hold 'eways buf' but text is 'six hours'"):
        langchain_run(tiny, moved)


def test_langchain_factories_of_each_shape(tiny, run_with, module_in, tmp_path, monkeypatch):
    folder = tmp_path / "chains"
    folder.mkdir()
    (folder / "tiny_chains.py").write_text(
        "from langchain_core.documents import Document\n"
        f"from {__name__} import Fixed\n"
        "HIT = Document(page_content='Aphids were counted on sticky traps.', metadata={'doc_id': 'b.md'})\n"
        "def none():\n    return Fixed(docs=[HIT])\n"
        "def documents(docs):\n    assert {d.metadata['doc_id'] for d in docs} == {'a.md', 'b.md', 'c.md'}\n"
        "    return Fixed(docs=[HIT])\n"
        "def both(docs, depth):\n    assert depth == 7\n    return Fixed(docs=[HIT] * 0 + [HIT])\n"
        "INSTANCE = Fixed(docs=[HIT])\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    for name in ("none", "documents", "both", "INSTANCE"):
        result = run_with(
            f"dataset.path={tiny}",
            "retrieval=langchain",
            f"retrieval.target=tiny_chains:{name}",
            "retrieval.depth=7",
            "ks=[1,5]",
        )
        table = result.evaluation.per_question.set_index("question_id")
        assert table["hit@1"].tolist() == [0.0, 1.0, 0.0], name


def test_langchain_core_missing_is_one_clear_line(tiny, run_with, monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_core.documents", None)  # import fails as if not installed
    with pytest.raises(ConfigError, match=r"^retrieval=langchain needs langchain-core: pip install langchain-core$"):
        run_with(f"dataset.path={tiny}", "retrieval=langchain", "retrieval.target=x:y")


HR_FIRST = [{"doc_id": "b.md", "start": 0, "end": 36}, {"doc_id": "a.md", "start": 19, "end": 58}]


def leak_at_2(folder, retriever, mode=None):
    overrides = [] if mode is None else [f"retrieval.filter_mode={mode}"]
    return rag_bench.evaluate(folder, retriever, ks=[1, 2], overrides=overrides)["metrics"]["leak@2"]


def test_a_function_with_a_filters_parameter_gets_each_questions_filter_under_pre(tmp_path):
    acl, seen = write_filtered_dataset(tmp_path), []

    def search(questions, depth, filters):
        seen.append(filters)
        allowed = [None if f is None else f["acl"] for f in filters]
        return [[r for r in HR_FIRST if a is None or a in acl[r["doc_id"]]] for a in allowed]

    assert leak_at_2(tmp_path, search, "pre") == 0.0
    assert seen[-1] == [{"acl": "all"}, None]
    assert leak_at_2(tmp_path, search) == 0.5  # the routes' default, none: the filter stays here
    assert seen[-1] == [None, None]


def test_post_and_none_hold_for_the_python_api_and_pre_needs_a_filters_parameter(tmp_path):
    write_filtered_dataset(tmp_path)

    def search(questions, depth):
        return [HR_FIRST for _ in questions]

    assert leak_at_2(tmp_path, search, "post") == 0.0  # b.md dropped after retrieval
    assert leak_at_2(tmp_path, search, "none") == 0.5
    with pytest.raises(ConfigError, match="cannot apply questions' filters"):
        leak_at_2(tmp_path, search, "pre")


def test_a_retrieve_object_that_applies_filters_reads_query_filter(tmp_path):
    acl = write_filtered_dataset(tmp_path)

    class Search:
        applies_filters = True

        def retrieve(self, queries, depth):
            ok = [lambda d, f=q.filter: f is None or f.matches({"acl": acl[d]}) for q in queries]
            return [[r for r in HR_FIRST if keep(r["doc_id"])] for keep in ok]

    assert leak_at_2(tmp_path, Search(), "pre") == 0.0
