"""``rag-bench rewrite report DIR...``: per category, what query variants gain or lose against the question alone.

Runs are grouped by their configuration without the variant keys (``retrieval.query_variants``,
``variant_kinds``, ``original_weight``, ``variant_k_rrf``); in each group the run without
variants is the reference. For each other run, each category (and all questions) and each
metric: both means, the mean paired difference with its 95% bootstrap interval, the questions
that improved and worsened (by the metric's direction, ``score/names.higher_is_better``), and the
two-sided paired sign-flip p-value (``score/paired.py``), Holm-corrected over the variant runs of the
group, per category and metric.
``sweep=query`` writes it into the sweep folder when the multirun ends (``QueryReport``).
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hydra.experimental.callback import Callback

from rag_bench.core.cache import atomic_write
from rag_bench.core.errors import DataError, RagBenchError
from rag_bench.core.markdown import md_text
from rag_bench.run_folder.read import RunFolder
from rag_bench.run_folder.runs import Run, common_questions, load_run, metric_values
from rag_bench.score.names import maximised, parse_metric
from rag_bench.score.paired import holm, paired_test

log = logging.getLogger(__name__)
NO_VARIANTS = {"query_variants": None, "variant_kinds": None, "original_weight": 1.0, "variant_k_rrf": 60.0}
ALL = "(all)"
REPORT_NAME = "query_report.md"
COLUMNS = (
    "category",
    "variants",
    "n",
    "original",
    "with variants",
    "delta",
    "95% interval",
    "wins",
    "losses",
    "p (Holm)",
)


@dataclass(frozen=True)
class Row:
    """One variant run against its reference on one metric and one category."""

    metric: str
    category: str
    variants: str  # the run's label: its kinds, weight and constant
    n: int
    original: float
    with_variants: float
    delta: float
    ci_low: float
    ci_high: float
    wins: int  # questions whose value got better (rose; fell for a lower-is-better metric)
    losses: int
    p_value: float
    p_holm: float


def run_folders(paths: Sequence[str | Path]) -> list[Path]:
    """Each path that holds ``metrics.json``, else its sub-folders that do (a sweep folder)."""
    found = []
    for given in map(Path, paths):
        if (given / "metrics.json").is_file():
            found.append(given)
            continue
        inside = sorted((p for p in given.glob("*") if (p / "metrics.json").is_file()), key=_folder_order)
        if not inside:
            raise DataError(
                given, "holds no run (no metrics.json in it or its sub-folders)", fix="pass run or sweep folders"
            )
        found += inside
    return found


def _folder_order(path: Path) -> tuple:
    return (0, int(path.name), "") if path.name.isdigit() else (1, 0, path.name)


def config_of(folder: Path) -> dict[str, Any]:
    """The run's resolved configuration; runs written before query variants existed had none."""
    config = RunFolder(folder, needs=("metrics.json", "per_question.csv")).config
    return {**config, "retrieval": {**NO_VARIANTS, **config["retrieval"]}}


def label(retrieval: dict[str, Any]) -> str:
    """``keywords+decompose``, with `` (original weight 2)`` / `` (no original)`` / ``k=10`` when not the default."""
    kinds = retrieval["variant_kinds"]
    text = "+".join(kinds) if kinds is not None else f"every kind in {Path(retrieval['query_variants']).name}"
    weight = retrieval["original_weight"]
    if weight == 0:
        text += " (no original)"
    elif weight != 1:
        text += f" (original weight {weight:g})"
    return text if retrieval["variant_k_rrf"] == 60 else f"{text} k={retrieval['variant_k_rrf']:g}"


def has_variants(retrieval: dict[str, Any]) -> bool:
    return retrieval["query_variants"] is not None and retrieval["variant_kinds"] != []


def groups(folders: Sequence[Path]) -> list[tuple[Path, list[Path]]]:
    """(reference, variant runs) per configuration without the variant keys; one reference each."""
    by_config: dict[str, list[Path]] = {}
    for folder in folders:
        config = config_of(folder)
        rest = {**config, "retrieval": {k: v for k, v in config["retrieval"].items() if k not in NO_VARIANTS}}
        rest.pop("cache_dir", None)
        by_config.setdefault(json.dumps(rest, sort_keys=True, default=str), []).append(folder)
    out = []
    for members in by_config.values():
        references = [f for f in members if not has_variants(config_of(f)["retrieval"])]
        others = [f for f in members if f not in references]
        if len(references) != 1:
            names = ", ".join(str(f) for f in (references or members)[:3])
            raise DataError(
                names,
                f"{len(references)} runs without query variants among runs of the same settings (one is needed)",
                fix="include exactly one run without variants (retrieval.variant_kinds=[]) per configuration",
            )
        if others:
            out.append((references[0], others))
    return out


def compare(reference: Run, runs: Sequence[Run], labels: Sequence[str], metric: str, seed: int) -> list[Row]:
    """Rows of every category (all questions first) for each run against ``reference``."""
    ids = common_questions([reference, *runs])
    categories = reference.per_question.loc[ids, "category"].fillna("(none)").astype(str)
    base = metric_values(reference, parse_metric(metric)).loc[ids].to_numpy()
    values = [metric_values(run, parse_metric(metric)).loc[ids].to_numpy() for run in runs]
    rows = []
    for category in [ALL, *sorted(categories.unique())]:
        chosen = np.ones(len(ids), bool) if category == ALL else (categories == category).to_numpy()
        keep = chosen & np.isfinite(base)
        tests = [paired_test(base[keep], v[keep], alternative="two-sided", seed=seed) for v in values]
        adjusted = holm([t.p_value for t in tests])
        for name, v, test, p_holm in zip(labels, values, tests, adjusted, strict=True):
            gain = maximised(metric, v[keep] - base[keep])  # > 0: better by the metric's direction
            rows.append(
                Row(metric, category, name, test.n, test.baseline, test.current, test.delta, test.ci_low,
                    test.ci_high, int((gain > 0).sum()), int((gain < 0).sum()), test.p_value, p_holm)
            )  # fmt: skip
    return rows


def report_rows(paths: Sequence[str | Path], metrics: Sequence[str], seed: int = 0) -> list[tuple[Path, list[Row]]]:
    """Per group (its reference run folder): the rows of every metric."""
    out = []
    for reference, others in groups(run_folders(paths)):
        ref, runs = load_run(reference), [load_run(f) for f in others]
        labels = [label(config_of(f)["retrieval"]) for f in others]
        out.append((reference, [row for m in metrics for row in compare(ref, runs, labels, m, seed)]))
    return out


def markdown(results: Sequence[tuple[Path, list[Row]]], alpha: float = 0.05) -> str:
    """The report: one table per group and metric, categories as row blocks."""
    lines = ["# Query variants against the question alone", ""]
    lines.append(
        f"Paired per question against the run without variants; p: two-sided sign-flip test, Holm-corrected over "
        f"the variant runs; * marks p (Holm) < {alpha}. wins / losses: questions whose value got better / worse "
        "(rose / fell; for a lower-is-better metric such as leak@k, fell / rose)."
    )
    for reference, rows in results:
        for metric in dict.fromkeys(r.metric for r in rows):
            lines += ["", f"## {metric} (reference: {md_text(reference)})", ""]
            lines.append(f"| {' | '.join(COLUMNS)} |")
            lines.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|")
            for r in (r for r in rows if r.metric == metric):
                mark = " *" if r.p_holm < alpha else ""
                lines.append(
                    f"| {md_text(r.category)} | {md_text(r.variants)} | {r.n} | "
                    f"{r.original:.3f} | {r.with_variants:.3f} | "
                    f"{r.delta:+.3f} | [{r.ci_low:+.3f}, {r.ci_high:+.3f}] | {r.wins} | {r.losses} | "
                    f"{r.p_holm:.3f}{mark} |"
                )
    return "\n".join(lines) + "\n"


def write_report(paths: Sequence[str | Path], out: Path, metrics: Sequence[str], alpha: float, seed: int) -> str:
    """Write the report to ``out`` atomically; returns its text."""
    text = markdown(report_rows(paths, metrics, seed), alpha)
    atomic_write(out, lambda handle: handle.write(text.encode("utf-8")))
    return text


def main(argv: Sequence[str]) -> int:
    """``rag-bench rewrite report RUN_OR_SWEEP... [--metric M] [--out FILE]``"""
    parser = argparse.ArgumentParser(
        prog="rag-bench rewrite report",
        description="Per category: what each set of query variants gains or loses against the question alone.",
    )
    parser.add_argument("paths", nargs="+", metavar="DIR", help="run folders, or sweep folders holding them")
    parser.add_argument("--metric", action="append", default=[], help="metric to compare (default recall@10)")
    parser.add_argument("--out", help=f"Markdown file (default DIR/{REPORT_NAME} for one sweep folder)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the random sign flips")
    args = parser.parse_args(list(argv))
    metrics = [str(parse_metric(m)) for m in args.metric or ["recall@10"]]
    single = len(args.paths) == 1 and not (Path(args.paths[0]) / "metrics.json").is_file()
    out = Path(args.out) if args.out else Path(args.paths[0]) / REPORT_NAME if single else None
    if out is None:
        print(markdown(report_rows(args.paths, metrics, args.seed), args.alpha), end="")
        return 0
    print(write_report(args.paths, out, metrics, args.alpha, args.seed), end="")
    print(f"\nwritten: {out}")
    return 0


class QueryReport(Callback):
    """Hydra callback (``configs/sweep/query.yaml``): the query-variant report of the sweep when it ends."""

    def __init__(self, metric: str = "recall@10", alpha: float = 0.05, seed: int = 0) -> None:
        self.metric, self.alpha, self.seed = metric, alpha, seed

    def on_multirun_end(self, config, **kwargs: Any) -> None:
        folder = Path(config.hydra.sweep.dir)
        try:
            write_report([folder], folder / REPORT_NAME, [self.metric], self.alpha, self.seed)
        except RagBenchError as exc:  # the points are written; a report problem must not hide them
            log.warning("query variant report not written: %s (retry: rag-bench rewrite report %s)", exc, folder)
            return
        log.info("query variant report: %s", folder / REPORT_NAME)
