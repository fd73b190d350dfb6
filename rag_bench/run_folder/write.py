"""Write one run's folder: resolved config, the report's pages, per_question.csv/.parquet, run.trec (and
run_documents.trec), the index's log, metrics.json last (listing them); an earlier run's other files go."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path

import numpy as np
import yaml
from omegaconf import OmegaConf

from rag_bench.core.cache import code_version
from rag_bench.core.distinct import each_distinct
from rag_bench.core.files import write_text
from rag_bench.core.ties import trec_score_rows, trec_scores
from rag_bench.pipeline.result import RunResult
from rag_bench.run_folder.background import Writes
from rag_bench.run_folder.explain import Explanation
from rag_bench.run_folder.manifest import KEY as FILES
from rag_bench.run_folder.manifest import METRICS, clear_earlier
from rag_bench.run_folder.per_question import NAMES as PER_QUESTION
from rag_bench.run_folder.per_question import per_question_files


def write_folder(
    result: RunResult,
    out_dir: Path,
    explanation: Explanation,
    pages: Mapping[str, str | Callable[[], str]],
    config_text: str | None = None,
    fingerprint: dict[str, str] | None = None,
) -> tuple[dict, list[Path]]:
    """Write every file of ``result``'s run folder into ``out_dir``; return the metrics.json object and the
    files written (metrics.json last).

    ``explanation``: its failure classes and work (``explain.py``); ``pages``: file name -> text of the
    pages the report made of it (``report.html``), or a function making it (made while the files before it
    are written). ``fingerprint`` (``fingerprint.py``) is recorded with the metrics: what the numbers depend on.
    Files are written in the background (``background.py``) while the next one is made, metrics.json last.
    """
    documents = result.evaluation.documents is not None
    names = ["config.yaml", *pages, *PER_QUESTION, "run.trec", *(["run_documents.trec"] * documents)]
    names += [*result.files, METRICS]
    # metrics.json marks a finished run: drop an earlier run's, and its files this run does not write,
    # before writing any, so a write that fails midway never leaves old metrics beside new files (a
    # resumed sweep would keep them) and a finished one leaves one run's files (manifest.py)
    clear_earlier(out_dir, names)
    text = config_text if config_text is not None else config_yaml(result.config)
    with Writes() as writes:
        writes.text(out_dir / "config.yaml", text)
        for name, fill in per_question_files(result, explanation).items():  # per_question.csv and .parquet
            writes.file(out_dir / name, fill)
        writes.texts(out_dir / "run.trec", trec_pieces(result))
        if documents:
            writes.text(out_dir / "run_documents.trec", document_trec_text(result))
        for name, text in result.files.items():  # e.g. pgvector.sql, the statements the index ran
            writes.text(out_dir / name, text)
        for name, page in pages.items():  # made while the files above reach the disk
            writes.text(out_dir / name, page if isinstance(page, str) else page())
        payload = _payload(result, explanation, names, fingerprint)
        done = {path.name: path for path in writes.paths()}
    written = [done[name] for name in names[:-1]]
    # metrics.json last: its presence marks a finished run (resumed sweeps skip such points)
    written.append(write_text(out_dir / METRICS, json.dumps(payload, indent=2) + "\n"))
    return payload, written


def _payload(result: RunResult, explanation: Explanation, names: list[str], fingerprint: dict | None) -> dict:
    """The metrics.json object (``names``: the files of the run folder)."""
    payload = metrics_payload(result) | {"failures": explanation.failure_summary()}
    payload["stats"]["work"] = explanation.work.as_dict()
    if fingerprint is not None:
        payload["fingerprint"] = fingerprint
    payload["code"] = code_version()  # the rag-bench source that computed these numbers
    payload[FILES] = names
    return payload


def config_yaml(config) -> str:
    """The resolved configuration as written to ``config.yaml``."""
    return OmegaConf.to_yaml(OmegaConf.structured(config))


def finished(out_dir: Path, config, fingerprint: dict[str, str]) -> dict | None:
    """The metrics of an earlier run in ``out_dir`` of this config on these files, or None.

    The same config.yaml (up to ``quiet``, ``cache_dir`` and ``budget``, which change no result) is not
    enough: the dataset (or a file a setting names) may have changed since, so the recorded
    fingerprint must match too, and so must the code: a point that an older (or edited)
    rag-bench computed is run again, never mixed into this one's sweep.
    """
    metrics, saved = out_dir / "metrics.json", out_dir / "config.yaml"
    if not (metrics.is_file() and saved.is_file()):
        return None
    if not _same_results(saved.read_text(encoding="utf-8"), config_yaml(config)):
        return None
    try:
        payload = json.loads(metrics.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return payload if payload.get("fingerprint") == fingerprint and payload.get("code") == code_version() else None


# Settings that change how a run looks or where it caches, never what it computes.
_NOT_RESULTS = ("quiet", "cache_dir", "budget")


def _same_results(saved: str, current: str) -> bool:
    """Whether two config.yaml texts ask for the same results (they may differ in ``_NOT_RESULTS``)."""
    if saved == current:
        return True
    try:
        texts = [yaml.safe_load(text) for text in (saved, current)]
    except yaml.YAMLError:
        return False
    settings = [{k: v for k, v in t.items() if k not in _NOT_RESULTS} for t in texts if isinstance(t, dict)]
    return len(settings) == 2 and settings[0] == settings[1]


def metrics_payload(result: RunResult) -> dict:
    ev = result.evaluation
    return {
        "dataset": result.dataset.name,
        "n_questions": ev.n_scored,
        "n_unlabelled": ev.n_unlabelled,
        "shortfall": ev.shortfall,  # questions whose candidates fall short of a cut-off (capped metrics)
        "metrics": {name: _number(s.mean) for name, s in ev.summary.items()} | ann_metric(result),
        "ci95": {name: [_number(s.ci_low), _number(s.ci_high)] for name, s in ev.summary.items()},
        "stderr": {name: _number(s.stderr) for name, s in ev.summary.items()},
        "by_category": {
            cat: {"n": ev.category_counts[cat], "metrics": {k: _number(v) for k, v in values.items()}}
            for cat, values in ev.by_category.items()
        },
        **({"by_language": _groups(ev.by_language, ev.language_counts)} if ev.by_language else {}),
        "stats": asdict(result.stats),
        "config": asdict(result.config),
    }


def _groups(means: dict[str, dict[str, float]], counts: dict[str, int]) -> dict[str, dict]:
    """``{group: {n, metrics}}`` (languages, then cross-language; score/languages.py)."""
    return {g: {"n": counts[g], "metrics": {k: _number(v) for k, v in values.items()}} for g, values in means.items()}


def ann_metric(result: RunResult) -> dict[str, float]:
    """``ann_recall@depth``: what an approximate index found of the exact top ``retrieval.depth``.

    ``filtered_ann_recall@depth``: the same over filtered questions, against exact filtered search.
    """
    depth, stats = result.config.retrieval.depth, result.stats
    found = {"ann_recall": stats.ann_recall, "filtered_ann_recall": stats.filtered_ann_recall}
    return {f"{name}@{depth}": value for name, value in found.items() if value is not None}


def write_trec(result: RunResult, path: Path, tag: str = "rag-bench") -> Path:
    """Write ``trec_text`` to ``path``."""
    return write_text(path, trec_text(result, tag))


def trec_text(result: RunResult, tag: str = "rag-bench") -> str:
    """TREC run file: ``qid Q0 chunk_id rank score tag``, chunk id ``doc_id:start-end``.

    Scores are written strictly decreasing in float32 (``core/ties.trec_scores``), so that trec_eval,
    pytrec_eval and ``retrieval=external`` rank the chunks exactly as rag-bench did.
    """
    return "".join(trec_pieces(result, tag))


TREC_ROWS = 500  # questions per piece of run.trec: each piece's arrays small enough to reuse the same memory


def trec_pieces(result: RunResult, tag: str = "rag-bench") -> list[str]:
    """``trec_text`` in pieces of ``TREC_ROWS`` questions (the file is their concatenation)."""
    ranked, n = result.ranked, len(result.ranked)
    present = np.zeros(len(result.chunks), dtype=bool)
    present[ranked[ranked >= 0]] = True  # the chunks some list holds: each one's "id " made once
    id_texts = np.full(len(result.chunks), None, dtype=object)
    id_texts[present] = [f"{result.chunks[c].id} " for c in np.flatnonzero(present).tolist()]
    heads = np.array([f"{q.id} Q0 " for q in result.dataset.questions], dtype=object)
    ranks = np.array([f"{rank} " for rank in range(1, ranked.shape[1] + 1)], dtype=object)
    pieces = []
    for a in range(0, n, TREC_ROWS):
        block = ranked[a : a + TREC_ROWS]
        listed = block >= 0  # -1 pads a list
        counts = listed.sum(axis=1)
        flat = block[listed]
        at = np.arange(len(flat)) - np.repeat(np.cumsum(counts) - counts, counts)  # each item's place in its row
        # the n-th item listed takes rank n and the row's n-th written score (trec_score_rows: each row's
        # prefixes as trec_scores writes them), whatever -1 pads before it
        written = trec_score_rows(result.scores[a : a + TREC_ROWS])[np.repeat(np.arange(len(block)), counts), at]
        columns = np.empty((len(flat), 4), dtype=object)  # "q7 Q0 ", "d1:0-80 ", "3 ", "12.5 rag-bench\n"
        columns[:, 0] = np.repeat(heads[a : a + TREC_ROWS], counts)
        columns[:, 1] = id_texts[flat]
        columns[:, 2] = ranks[at]
        columns[:, 3] = _score_texts(written, f" {tag}\n")
        pieces.append("".join(columns.ravel().tolist()))
    return pieces


def _score_texts(values: np.ndarray, tail: str) -> np.ndarray:
    """(n,) object: ``f"{value!r}{tail}"`` of each float64 value, each distinct value written once."""
    return each_distinct(values, lambda distinct: [f"{v!r}{tail}" for v in distinct.tolist()])


def write_document_trec(result: RunResult, path: Path, tag: str = "rag-bench") -> Path:
    """Write ``document_trec_text`` to ``path``."""
    return write_text(path, document_trec_text(result, tag))


def document_trec_text(result: RunResult, tag: str = "rag-bench") -> str:
    """The document ranking the metrics read (a document ranks where its first chunk ranks), with scores
    strictly decreasing in float32 (``core/ties.trec_scores``): pytrec_eval on this file equals the metrics."""
    run = result.evaluation.documents
    lines = []
    for q, question in enumerate(result.dataset.questions):
        docs = run.ranked[q][run.ranked[q] >= 0]
        for rank, (d, score) in enumerate(zip(docs, trec_scores(run.scores[q][: len(docs)]), strict=True), start=1):
            lines.append(f"{question.id} Q0 {run.doc_ids[d]} {rank} {score!r} {tag}\n")
    return "".join(lines)


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)
