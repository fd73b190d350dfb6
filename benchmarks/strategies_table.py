"""The README's tables of a `rag-bench sweep=strategies` folder: each strategy against strategy=none.

Usage: python benchmarks/strategies_table.py SWEEP_DIR [--metrics recall@10,ndcg@10,recall@2000chars]
Prints Markdown: (1) every question: each metric's mean, its paired difference from strategy=none with the
95% bootstrap interval and the Holm-corrected p-value of a two-sided paired sign-flip test (Holm over every
strategy and metric of the table), and the characters the top 10 returns; (2) failure classes at report_k;
(3) per category, each strategy's difference from none in the first metric and the budget metric, with its
interval, marked * where Holm (over every strategy and category of that table) gives p < 0.05.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from rag_bench.run_folder.runs import load_run, metric_values
from rag_bench.score.aggregate import summarise
from rag_bench.score.failures import CLASSES
from rag_bench.score.names import parse_metric
from rag_bench.score.paired import holm, sign_flip_pvalue

ALPHA = 0.05


def points(folder: Path) -> dict[str, Path]:
    """strategy -> its point folder, in the sweep's order."""
    table = pd.read_csv(folder / "summary.csv")
    return {str(s): folder / str(p) for p, s in zip(table["point"], table["strategy"], strict=True)}


def paired(base: pd.Series, other: pd.Series) -> tuple[float, float, float, float]:
    """(mean difference, low, high, two-sided p) of other - base over the questions both measured."""
    diff = (other - base).dropna().to_numpy()
    summary = summarise(diff, 1000, 0)
    return summary.mean, summary.ci_low, summary.ci_high, sign_flip_pvalue(diff, alternative="two-sided")


def overall(runs: dict, metrics: list[str]) -> list[str]:
    base = runs["none"]
    cells, tests = {}, []
    for strategy, run in runs.items():
        for metric in metrics:
            values = metric_values(run, parse_metric(metric))
            cells[strategy, metric] = [values.mean()]
            if strategy != "none":
                cells[strategy, metric] += paired(metric_values(base, parse_metric(metric)), values)
                tests.append((strategy, metric))
    adjusted = dict(zip(tests, holm([cells[t][4] for t in tests]), strict=True))
    head = ["strategy", "chars@10", *(f"{m} | vs none [95%] (p Holm)" for m in metrics)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * (2 + 2 * len(metrics))]
    for strategy, run in runs.items():
        row = [f"`{strategy}`", f"{chars_at_10(run):,.0f}"]
        for metric in metrics:
            mean, *rest = cells[strategy, metric]
            if strategy == "none":
                row += [f"{mean:.3f}", ""]
                continue
            diff, low, high, _ = rest
            p = adjusted[strategy, metric]
            mark = "**" if p < ALPHA else ""
            row += [f"{mean:.3f}", f"{mark}{diff:+.3f} [{low:+.3f}, {high:+.3f}] ({fmt_p(p)}){mark}"]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def chars_at_10(run) -> float:
    """Mean source characters of the top 10 each measured question got (top_chunks ids: doc:start-end)."""
    total = []
    for ids in run.per_question["top_chunks"]:
        spans = [i.rsplit(":", 1)[1].split("-") for i in json.loads(ids)[:10]]
        total.append(sum(int(end) - int(start) for start, end in spans))
    return float(np.mean(total))


def failures(runs: dict) -> list[str]:
    shown = [c for c in CLASSES if c != "unlabelled"]
    counts = {s: json.loads((r.folder / "metrics.json").read_text())["failures"]["counts"] for s, r in runs.items()}
    shown = [c for c in shown if any(counts[s].get(c, 0) for s in counts) or c in ("hit", "crowded-out")]
    lines = ["| strategy | " + " | ".join(shown) + " |", "|---|" + "---:|" * len(shown)]
    for strategy, row in counts.items():
        lines.append(f"| `{strategy}` | " + " | ".join(str(row.get(c, 0)) for c in shown) + " |")
    return lines


def by_category(runs: dict, metric: str) -> list[str]:
    base = runs["none"]
    categories = base.per_question["category"].fillna("(none)")
    names = sorted(categories.unique())
    cells, tests = {}, []
    for strategy, run in runs.items():
        if strategy == "none":
            continue
        for name in names:
            ids = categories.index[categories == name]
            b = metric_values(base, parse_metric(metric)).loc[ids]
            o = metric_values(run, parse_metric(metric)).reindex(ids)
            if b.notna().any():
                cells[strategy, name] = paired(b, o)
                tests.append((strategy, name))
    adjusted = dict(zip(tests, holm([cells[t][3] for t in tests]), strict=True))
    shown = [n for n in names if any((s, n) in cells for s in runs)]
    values = metric_values(base, parse_metric(metric))
    of = {n: values.loc[categories.index[categories == n]] for n in shown}
    lines = [f"| {metric}: vs none | " + " | ".join(f"{n} ({int(of[n].notna().sum())})" for n in shown) + " |"]
    lines.append("|---|" + "---|" * len(shown))
    none = [f"{of[n].mean():.3f}" for n in shown]
    lines.append("| `none` (its value) | " + " | ".join(none) + " |")
    for strategy in runs:
        if strategy == "none":
            continue
        row = []
        for n in shown:
            diff, low, high, _ = cells[strategy, n]
            star = "*" if adjusted[strategy, n] < ALPHA else ""
            row.append(f"{diff:+.2f}{star} [{low:+.2f}, {high:+.2f}]")
        lines.append(f"| `{strategy}` | " + " | ".join(row) + " |")
    return lines


def fmt_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path)
    parser.add_argument("--metrics", default="recall@10,ndcg@10,recall@2000chars")
    args = parser.parse_args()
    metrics = args.metrics.split(",")
    runs = {strategy: load_run(folder) for strategy, folder in points(args.sweep).items()}
    name = json.loads((runs["none"].folder / "metrics.json").read_text())["dataset"]
    print(f"### {name}: every question\n")
    print("\n".join(overall(runs, metrics)))
    print(f"\n### {name}: failure classes at k=10\n")
    print("\n".join(failures(runs)))
    for metric in (metrics[0], metrics[-1]):
        print(f"\n### {name}: {metric} by category\n")
        print("\n".join(by_category(runs, metric)))


if __name__ == "__main__":
    main()
