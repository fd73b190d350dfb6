"""``rag_bench.evaluate``: score your own retriever from Python (a notebook, a pytest suite), as the CLI does.

    import rag_bench

    def search(questions: list[str], depth: int) -> list[list[dict]]:
        return [[{"doc_id": "a.md", "text": "..."}] for q in questions]

    result = rag_bench.evaluate("kestrel-kb", search, ks=[1, 5, 10])
    result.metrics.loc["recall@10", "mean"]  # or result["metrics"]["recall@10"], metrics.json's entry

The configuration is composed by Hydra from ``configs/`` with ``overrides`` (the CLI's syntax), so
defaults, checks and error messages are the CLI's; the run folder goes to ``out``, else to a temporary
folder, and the ``Result`` (``entry/result.py``) is ``rag_bench.run``'s (``entry/api.py``).
"""

from __future__ import annotations

import inspect
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from rag_bench.core.errors import ConfigError
from rag_bench.entry.result import Result

DEFAULT_KS = (1, 3, 5, 10, 20)
TEMPORARY_RUNS: str | None = None  # where a run without out= writes its folder; None: the system's temporary folder


def evaluate(
    dataset: object,
    retriever: object,
    ks: Sequence[int] = DEFAULT_KS,
    *,
    depth: int | None = None,
    tau: float | None = None,
    overrides: Sequence[str] = (),
    out: str | Path | None = None,
    cache_dir: str | Path | None = None,
) -> Result:
    """Score ``retriever`` on ``dataset``; return the run's ``Result`` (``result["metrics"]``: metrics.json's).

    ``dataset``: a bundled name, a dataset folder, or a loaded ``Dataset``. ``retriever``: a callable
    ``(questions: list[str], depth[, filters]) -> per-question result lists`` (as ``retrieval=python``), an
    object with ``retrieve(queries, depth)`` (rag-bench's ``Retriever`` protocol; it may return
    per-question result lists instead of ``Candidates``), or a LangChain retriever.
    ``depth``: results kept per question (default: the largest k). ``out``: the run folder (None: a
    temporary one).
    """
    from rag_bench.core.workspace import Workspace

    ws = Workspace.open(cache_dir)
    mode, target = describe(retriever)
    settings = [
        *dataset_overrides(dataset, ws.cache.root),
        f"ks=[{','.join(str(k) for k in ks)}]",
        f"retrieval={mode}",
        f"retrieval.depth={depth if depth is not None else max(ks, default=1)}",
        f"cache_dir={ws.cache.root}",
    ]
    if target is not None:
        settings.append(f"retrieval.target={target}")
    if tau is not None:
        settings.append(f"tau={tau}")
    return run_config(compose_config([*settings, *overrides]), out, retriever)


def run_config(config, out: str | os.PathLike | None, retriever: object = None) -> Result:
    """Run a checked ``Config`` into ``out`` (None: a temporary folder) as ``rag-bench`` does; its ``Result``."""
    from rag_bench.data.dataset import load
    from rag_bench.entry.hydra_app import PROCESS, advise, compute
    from rag_bench.entry.result import result_of
    from rag_bench.run_folder.fingerprint import fingerprint

    folder = output_folder(out, "rag-bench-run-")
    advise(config)
    seam = None
    if retriever is not None:
        loaded = load(config.dataset, PROCESS.workspace(config.cache_dir))
        seam = wrap(
            retriever, getattr(config.retrieval, "target", None) or _label(retriever), loaded, config.retrieval.depth
        )
    run_result = compute(config, folder, fingerprint(config), seam)[1]
    return result_of(run_result, folder)


def output_folder(out: str | os.PathLike | None, prefix: str) -> Path:
    """``out`` (made when missing), else a new temporary folder ``<prefix>...`` in ``TEMPORARY_RUNS``."""
    if out is None:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=TEMPORARY_RUNS))
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def compose_config(overrides: Sequence[str]):
    """The checked ``Config`` that ``rag-bench <overrides>`` would run."""
    from rag_bench.config.compose import compose
    from rag_bench.config.schema import register, validate
    from rag_bench.core.paths import project_folder
    from rag_bench.entry.hydra_app import group_alias

    register()
    overrides = [group_alias(o) for o in overrides]
    return validate(compose(project_folder("configs"), overrides, "rag_bench.evaluate settings"))


def dataset_overrides(dataset: object, cache_root: Path) -> list[str]:
    """The overrides choosing a bundled dataset, a folder, or a loaded ``Dataset`` (written once under the cache)."""
    from rag_bench.core.types import Dataset
    from rag_bench.data.bundled import bundled_names

    if isinstance(dataset, Dataset):
        return [f"dataset.path={_quote(store_dataset(dataset, cache_root))}", f"dataset.name={_quote(dataset.name)}"]
    if isinstance(dataset, str) and dataset in bundled_names():
        return [f"dataset={dataset}"]
    if isinstance(dataset, str | os.PathLike) and Path(dataset).is_dir():
        folder = Path(dataset).resolve()
        return [f"dataset.path={_quote(folder)}", f"dataset.name={_quote(folder.name)}"]
    raise ConfigError(
        f"dataset ({dataset!r}) must be a bundled dataset ({', '.join(bundled_names())}), "
        "a dataset folder, or a loaded rag_bench.core.types.Dataset"
    )


def store_dataset(dataset, cache_root: Path) -> Path:
    """A loaded dataset as a native folder under the cache, named by its contents (written once, atomically)."""
    import shutil
    import tempfile

    from rag_bench.core.cache import digest
    from rag_bench.data.jsonl import write_jsonl
    from rag_bench.importers.common import document_row, question_row

    documents = [document_row(d.id, d.text, d.title, d.metadata) for d in dataset.documents]
    questions = [
        question_row(
            q.id,
            q.text,
            evidence=[{"doc_id": s.doc_id, "start": s.start, "end": s.end} for s in q.spans],
            judgements=q.judgements,
            answer=q.answer,
            category=q.category,
            split=q.split,
        )
        for q in dataset.questions
    ]
    folder = cache_root / "datasets" / f"api-{digest(documents, questions)[:16]}"
    if (folder / "questions.jsonl").is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".tmp-"))
    write_jsonl(staging / "documents.jsonl", documents)
    write_jsonl(staging / "questions.jsonl", questions)
    try:
        staging.rename(folder)
    except OSError:  # written meanwhile by another process
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def describe(retriever: object) -> tuple[str, str | None]:
    """The retrieval mode that fits ``retriever``, and its import path when it has one (for config.yaml)."""
    if _is_langchain(retriever):
        return "langchain", None
    if not callable(retriever) and not callable(getattr(retriever, "retrieve", None)):
        raise ConfigError(
            f"retriever ({type(retriever).__name__}) must be a function (questions, depth) -> results, "
            "an object with retrieve(queries, depth), or a LangChain retriever"
        )
    label = _label(retriever)
    module, _, name = label.partition(":")
    plain = inspect.isfunction(retriever) and module not in ("", "__main__")  # retrieval=python can import it
    return "python", label if plain and all(p.isidentifier() for p in name.split(".")) else None


def wrap(retriever: object, source: str, dataset, depth: int):
    """``retriever`` behind the seam: a LangChain retriever, a ``retrieve`` object, or a function."""
    from rag_bench.retrieve.external.function import FunctionRetriever, from_function
    from rag_bench.retrieve.external.langchain import LangChainRetriever

    if _is_langchain(retriever):
        return LangChainRetriever(retriever, source, dataset)
    method = getattr(retriever, "retrieve", None)
    if callable(method):
        name, applies = str(getattr(retriever, "name", "python")), bool(getattr(retriever, "applies_filters", False))
        return FunctionRetriever(method, source, dataset, name=name, applies_filters=applies)
    return from_function(retriever, source, dataset)


def _is_langchain(retriever: object) -> bool:
    try:
        from langchain_core.retrievers import BaseRetriever
    except ImportError:
        return False
    return isinstance(retriever, BaseRetriever)


def _label(retriever: object) -> str:
    """``module:qualified.name`` of a function or of an object's class."""
    named: Callable | type = retriever if hasattr(retriever, "__qualname__") else type(retriever)
    return f"{getattr(named, '__module__', '')}:{named.__qualname__}"


def _quote(value: object) -> str:
    """``value`` as a Hydra override value: quoted unless it is plainly a path or a name."""
    text = str(value)
    if text and all(c.isalnum() or c in "_./:-" for c in text):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
