"""Read a run folder: the files one ``rag-bench`` run wrote (``run_folder/write.py``), checked in one place.

A run folder holds ``config.yaml`` (the resolved config), ``metrics.json`` (aggregates and stats),
``per_question.csv`` (one row per question; ``top_chunks`` a JSON list of chunk ids
``doc_id:start-end``, best first), ``run.trec`` and Hydra's ``.hydra/`` (overrides, choices).
Every reader of a run (gate, compare, report, check-generation, the run pages) goes through
``RunFolder``, so a missing or damaged file is one ``DataError`` naming the file and the fix.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import yaml

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.types import Chunk, Dataset, Document, Question

if TYPE_CHECKING:
    from rag_bench.parse.run import ParseRun

# a damaged file in a run folder: how to get it back (a resumed sweep redoes a point without metrics.json)
REWRITE = (
    "rerun `rag-bench` to rewrite the run folder; for a sweep point, delete its metrics.json "
    "and rerun the sweep into the same folder"
)
FIX = "give a run folder written by `rag-bench` (it holds config.yaml and per_question.csv)"


class RunFolder:
    """One run folder, its files read on first use; ``needs`` are the files the caller cannot do without."""

    def __init__(
        self, path: str | Path, needs: tuple[str, ...] = ("config.yaml", "per_question.csv"), check: bool = True
    ) -> None:
        given = Path(path)
        self.path = given.parent if given.name == "metrics.json" or given.suffix == ".json" else given
        self.fix = f"give a run folder written by `rag-bench` (it holds {' and '.join(needs)})"
        if not self.path.is_dir():
            raise DataError(given, "is not a folder", fix=self.fix)
        for name in needs if check else ():
            self.file(name)
        self._dataset: Dataset | None = None

    def file(self, name: str) -> Path:
        """The path of ``name`` in the folder; a DataError when it is missing."""
        path = self.path / name
        if not path.is_file():
            raise DataError(path, "is missing", fix=self.fix)
        return path

    @cached_property
    def metrics(self) -> dict:
        path = self.file("metrics.json")
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(path, f"is not valid JSON ({exc.msg})", line=exc.lineno, fix=self.fix) from None
        except UnicodeDecodeError as exc:
            raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix=REWRITE) from None
        except OSError as exc:
            raise DataError(path, f"cannot be read ({exc.strerror})", fix=self.fix) from None
        if not isinstance(value, dict):
            raise DataError(path, "is not a JSON object", fix=FIX)
        return value

    @cached_property
    def config(self) -> dict:
        """config.yaml as a plain dict (metrics.json's copy when the file is absent)."""
        value = read_yaml(self.path / "config.yaml")
        if value is None:
            value = self.metrics.get("config") if (self.path / "metrics.json").is_file() else None
        if not isinstance(value, dict):
            raise DataError(self.path / "config.yaml", "is missing or not a rag-bench run config", fix=FIX)
        return value

    def overrides(self) -> list[str]:
        """The run's Hydra overrides (``.hydra/overrides.yaml``; [] when absent)."""
        return [str(line) for line in read_yaml(self.path / ".hydra" / "overrides.yaml") or []]

    def choices(self) -> dict[str, str]:
        """The config group options the run chose (``.hydra/hydra.yaml``; {} when absent)."""
        hydra = read_yaml(self.path / ".hydra" / "hydra.yaml") or {}
        return dict(((hydra.get("hydra") or {}).get("runtime") or {}).get("choices") or {})

    @cached_property
    def per_question(self) -> pd.DataFrame:
        """per_question.csv, every row (question ids as text)."""
        path = self.file("per_question.csv")
        try:
            table = pd.read_csv(path, dtype={"question_id": str})
        except pd.errors.EmptyDataError:
            raise DataError(path, "is empty", fix=REWRITE) from None
        except UnicodeDecodeError as exc:
            raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix=REWRITE) from None
        except pd.errors.ParserError as exc:
            raise DataError(path, f"cannot be read as CSV ({exc})".replace("\n", " "), fix=REWRITE) from None
        for column in ("question_id", "labelled"):
            if column not in table.columns:
                raise DataError(path, f"has no {column!r} column", fix=REWRITE)
        self._check_rows(path, table)
        return table

    def _check_rows(self, path: Path, table: pd.DataFrame) -> None:
        """A table with no rows, or fewer labelled rows than metrics.json scored, is damaged (cut short)."""
        scored = self.metrics.get("n_questions") if (self.path / "metrics.json").is_file() else None
        labelled = int((table["labelled"].astype(str).str.lower() == "true").sum())
        if table.empty:
            raise DataError(path, "has a header but no rows", fix=REWRITE)
        if isinstance(scored, int) and not isinstance(scored, bool) and labelled != scored:
            raise DataError(
                path, f"holds {labelled} labelled rows but metrics.json scored {scored} questions", fix=REWRITE
            )

    def dataset_settings(self) -> tuple[str, str | None]:
        """(dataset.name, dataset.path) the run was scored on."""
        dataset = self.config.get("dataset")
        if not isinstance(dataset, dict) or "name" not in dataset:
            raise DataError(self.path / "config.yaml", "is not a rag-bench run config (no dataset)", fix=self.fix)
        return str(dataset["name"]), dataset.get("path")

    def dataset(self) -> Dataset:
        """The dataset the run was scored on, loaded from where its config says (once per ``RunFolder``); a
        DataError when its files changed since the run (the run's metrics.json records their fingerprint)."""
        if self._dataset is None:
            self._dataset = self._load_dataset()
        return self._dataset

    def _load_dataset(self) -> Dataset:
        from rag_bench.data.dataset import DatasetConfig
        from rag_bench.data.native import load_dataset
        from rag_bench.run_folder.fingerprint import folder_hash

        name, path = self.dataset_settings()
        settings = DatasetConfig(name, path)
        folder = settings.folder
        recorded = self.recorded_fingerprint().get("dataset")
        if recorded is not None and folder_hash(folder) != recorded:
            raise DataError(
                folder,
                f"has changed since the run in {self.path} scored it (its files' fingerprint differs)",
                fix="rerun `rag-bench` on the dataset as it is now, or restore the dataset the run scored",
            )
        return load_dataset(folder, settings.name, parse=self.parse())

    def parse(self) -> ParseRun | None:
        """The parser settings the run read ``docs/`` files with (None for runs written before parsers, which
        read them with the default): a run's chunk offsets index its own parse's text, not another's. Parses go
        through the run's cache folder when it still exists (keyed by file bytes, parser settings and library
        versions, so a cached parse is the run's own), so reading a run back parses no file again."""
        from rag_bench.core.cache import DiskCache, cache_root
        from rag_bench.parse.registry import PARSERS
        from rag_bench.parse.run import ParseRun

        parser = self.config.get("parser")
        if not isinstance(parser, dict):
            return None
        values = dict(parser)
        name = values.pop(PARSERS.key, None)
        try:
            settings = PARSERS.settings(str(name), **values)
        except ConfigError as error:
            raise DataError(self.path / "config.yaml", f"parser: {error}", fix=self.fix) from None
        cache_dir = self.config.get("cache_dir")
        folder = cache_root(cache_dir if isinstance(cache_dir, str) else None)
        return ParseRun(settings, DiskCache(folder) if folder.is_dir() else None)

    def recorded_fingerprint(self) -> dict[str, str]:
        """The fingerprint metrics.json records ({} for runs written before fingerprints, or without metrics)."""
        if not (self.path / "metrics.json").is_file():
            return {}
        value = self.metrics.get("fingerprint")
        return dict(value) if isinstance(value, dict) else {}


# libyaml's safe loader when PyYAML was built with it (about 10x faster on Hydra's hydra.yaml), else PyYAML's own
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> object:
    """A YAML file's content; None when the file is absent; a DataError when it is not YAML."""
    if not path.is_file():
        return None
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DataError(path, f"is not valid YAML ({type(exc).__name__})", fix=FIX) from None


@dataclass(frozen=True)
class RetrievedRun:
    """A run's questions (in per_question.csv order) with their ranked chunks."""

    folder: Path
    dataset: Dataset
    tau: float
    questions: tuple[Question, ...]
    ranked: tuple[tuple[Chunk, ...], ...]  # ranked[i]: chunks of questions[i], best first


def read_run(folder: str | Path) -> RetrievedRun:
    """The run in ``folder``, the dataset it was scored on, and each question's ranked chunks."""
    run = RunFolder(folder, check=False)  # the config is checked first, then per_question.csv
    run.file("config.yaml")
    try:
        tau = float(run.config["tau"])
    except (KeyError, TypeError, ValueError):
        raise DataError(run.path / "config.yaml", "is not a rag-bench run config (no tau)", fix=FIX) from None
    run.dataset_settings()
    path = run.file("per_question.csv")
    dataset = run.dataset()
    questions, ranked = read_top_chunks(path, dataset)
    return RetrievedRun(run.path, dataset, tau, questions, ranked)


def read_top_chunks(path: Path, dataset: Dataset) -> tuple[tuple[Question, ...], tuple[tuple[Chunk, ...], ...]]:
    """Each row's question and its ``top_chunks`` as chunks of ``dataset``'s documents."""
    by_id = {q.id: q for q in dataset.questions}
    documents = {d.id: d for d in dataset.documents}
    questions, ranked = [], []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for column in ("question_id", "top_chunks"):
            if column not in (reader.fieldnames or []):
                raise DataError(path, f"has no {column!r} column", line=1, field=column, fix=FIX)
        for row in reader:
            line = reader.line_num
            qid = row["question_id"]
            if qid not in by_id:
                raise DataError(
                    path,
                    f"question {qid!r} is not in dataset {dataset.name!r}",
                    line=line,
                    field="question_id",
                    fix="read the run with the dataset it was scored on",
                )
            ids = _chunk_ids(path, line, row["top_chunks"])
            questions.append(by_id[qid])
            ranked.append(tuple(chunk_of(path, line, chunk_id, documents) for chunk_id in ids))
    return tuple(questions), tuple(ranked)


def _chunk_ids(path: Path, line: int, raw: str | None) -> list[str]:
    try:
        ids = json.loads(raw or "")
    except json.JSONDecodeError as exc:
        raise DataError(path, f"malformed JSON ({exc.msg})", line=line, field="top_chunks", fix=FIX) from None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise DataError(path, "must be a JSON list of chunk ids", line=line, field="top_chunks", fix=FIX)
    return ids


def chunk_of(path: Path, line: int, chunk_id: str, documents: dict[str, Document]) -> Chunk:
    """``"a.md:10-80"`` -> Chunk over characters [10, 80) of document ``a.md`` (doc ids may hold ':')."""
    doc_id, _, offsets = chunk_id.rpartition(":")
    start, _, end = offsets.partition("-")
    if not doc_id or not start.isdigit() or not end.isdigit():
        raise DataError(path, f"chunk id {chunk_id!r} is not doc_id:start-end", line=line, field="top_chunks", fix=FIX)
    doc = documents.get(doc_id)
    if doc is None:
        raise DataError(path, f"chunk {chunk_id!r} names an unknown document", line=line, field="top_chunks", fix=FIX)
    lo, hi = int(start), int(end)
    if not 0 <= lo < hi <= len(doc.text):
        raise DataError(
            path,
            f"chunk {chunk_id!r} lies outside document {doc_id!r} ({len(doc.text)} characters)",
            line=line,
            field="top_chunks",
            fix="the run was scored on another version of the dataset",
        )
    return Chunk(doc_id, lo, hi, doc.text[lo:hi])
