"""A dataset's source conventions: the settings under which its published numbers were measured.

An importer writes ``conventions.yaml`` next to the data it converts, e.g. for BEIR:

    source: BEIR
    summary: one passage per document, title prepended, and Anserini's BM25 (k1 0.9, b 0.4)
    reference: Thakur et al. 2021, https://github.com/beir-cellar/beir; Anserini's BEIR regressions
    overrides:
      chunker: fixed
      chunker.size: 1000000
      ...

A run on such a dataset never changes its settings by itself (explicit config wins); when any
override differs from what the run uses, ``hint`` returns one line naming the exact overrides.
A dotted key whose option lacks it (``retrieval.k1`` under ``retrieval=dense``) does not apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from rag_bench.core.errors import DataError
from rag_bench.core.files import write_bytes

FILE = "conventions.yaml"
FIELDS = ("source", "summary", "reference", "overrides")


@dataclass(frozen=True)
class Conventions:
    """Where a dataset comes from, and the overrides (key -> value) its published numbers used."""

    source: str  # e.g. BEIR
    summary: str  # the conventions in words
    reference: str  # where they are published
    overrides: Mapping[str, object] = field(default_factory=dict)

    def as_overrides(self, keys: list[str] | None = None) -> list[str]:
        """``key=value`` command-line overrides, in file order (only ``keys`` when given)."""
        return [f"{k}={_format(v)}" for k, v in self.overrides.items() if keys is None or k in keys]


# BEIR's convention: one passage per document with its title prepended (BEIR's loaders and Anserini's
# "flat" indexes index title + text), and BM25 as Anserini runs it: Lucene's BM25 (idf = ln(1 + (N - df + 0.5)
# / (df + 0.5))), k1 = 0.9, b = 0.4, an English analyzer (stopwords, stemming). benchmarks/reproduce/scifact.py
# reproduces Anserini's SciFact nDCG@10 (0.6789) with exactly these settings.
BEIR = Conventions(
    source="BEIR",
    summary="one passage per document with its title prepended, and Anserini's BM25 (k1 0.9, b 0.4)",
    reference="Thakur et al. 2021, https://github.com/beir-cellar/beir; Anserini's BEIR regressions",
    overrides={
        "chunker": "fixed",
        "chunker.size": 1000000,
        "chunker.prefix": "title",
        "retrieval": "bm25",
        "retrieval.analyzer": "english",
        "retrieval.bm25_variant": "lucene",
        "retrieval.k1": 0.9,
        "retrieval.b": 0.4,
    },
)


def conventions_bytes(conventions: Conventions) -> bytes:
    """The text of ``conventions.yaml``, UTF-8."""
    body = {f: getattr(conventions, f) for f in FIELDS[:-1]} | {"overrides": dict(conventions.overrides)}
    text = (
        "# The settings this dataset's source publishes numbers under (read by every run: a run whose\n"
        "# settings differ prints a hint with these overrides; it never applies them by itself).\n"
        + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=1000)
    )
    return text.encode("utf-8")


def write_conventions(folder: Path, conventions: Conventions | None) -> None:
    """Write ``folder/conventions.yaml`` atomically; None removes a stale one (the source has none)."""
    path = Path(folder) / FILE
    if conventions is None:
        path.unlink(missing_ok=True)
    else:
        write_bytes(path, conventions_bytes(conventions))


def read_conventions(folder: Path) -> Conventions | None:
    """``folder/conventions.yaml``, checked; None when the dataset has none."""
    path = Path(folder) / FILE
    if not path.is_file():
        return None
    try:
        body = yaml.safe_load(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DataError(path, f"is not UTF-8 YAML ({str(exc).splitlines()[0]})", fix=_FIX) from None
    if not isinstance(body, dict):
        raise DataError(path, f"must be a mapping with keys {', '.join(FIELDS)}", fix=_FIX)
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise DataError(path, f"unknown key {unknown[0]!r}; allowed: {', '.join(FIELDS)}", field=unknown[0], fix=_FIX)
    overrides = body.get("overrides") or {}
    if not isinstance(overrides, dict) or not all(isinstance(k, str) for k in overrides):
        raise DataError(path, "must map setting keys to values", field="overrides", fix=_FIX)
    bad = [k for k, v in overrides.items() if isinstance(v, dict | list) or v is None]
    if bad:
        raise DataError(path, f"{bad[0]} must be a single value", field="overrides", fix=_FIX)
    return Conventions(*(str(body.get(f) or "") for f in FIELDS[:-1]), dict(overrides))


_FIX = "fix or delete it (re-importing the dataset writes it again)"


def differing(conventions: Conventions, config: object, name_fields: Mapping[str, str]) -> list[str]:
    """The override keys whose values the run's ``config`` does not have (applicable keys only).

    ``name_fields``: each group's field naming its chosen option (retrieval: mode, the others: name).
    A group choice that differs brings its dotted keys with it: after ``chunker=fixed`` they apply.
    """
    changed = {
        key
        for key, wanted in conventions.overrides.items()
        if "." not in key and getattr(getattr(config, key, None), name_fields.get(key, ""), None) != wanted
    }
    overrides = conventions.overrides
    return [key for key, wanted in overrides.items() if key in changed or _differs(config, key, wanted, changed)]


def _differs(config: object, key: str, wanted: object, changed: set[str]) -> bool:
    """A dotted key differs when its group's choice changes, or its option has it with another value."""
    group, dot, name = key.partition(".")
    if not dot:
        return False
    settings = getattr(config, group, None)
    return group in changed or (hasattr(settings, name) and not _same(getattr(settings, name), wanted))


def _same(actual: object, wanted: object) -> bool:
    if isinstance(actual, bool) or isinstance(wanted, bool):
        return actual == wanted
    if isinstance(actual, int | float) and isinstance(wanted, int | float):
        return float(actual) == float(wanted)
    return actual == wanted


def _format(value: object) -> str:
    """A value as Hydra's command line reads it: true/false, numbers and strings as written."""
    return "true" if value is True else "false" if value is False else str(value)
