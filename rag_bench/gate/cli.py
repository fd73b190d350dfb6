"""``rag-bench gate`` and ``rag-bench compare``: parse arguments, run, print Markdown, return the exit code.

gate exits 0 when every metric passes, 1 on a regression or on an inconclusive metric (unless
``--on-inconclusive warn``); a usage or input error is a RagBenchError (or an argparse error), which the
``rag-bench`` command turns into exit 2.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rag_bench.core import files
from rag_bench.core.errors import ConfigError
from rag_bench.gate.compare import DEFAULT_METRICS, compare_runs
from rag_bench.gate.gate import MODES, ON_INCONCLUSIVE, GatePolicy, run_gate
from rag_bench.gate.render import compare_markdown, gate_junit, gate_markdown
from rag_bench.gate.rules import DEFAULT_MAX_DROP, DEFAULT_METRIC, check_unique, load_rules, make_rules
from rag_bench.run_folder.runs import load_run
from rag_bench.score.names import parse_metric

PASSED, REGRESSED = 0, 1


def gate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag-bench gate",
        description="Fail when a metric drops beyond its margin and a paired test says the drop is real.",
    )
    parser.add_argument("--baseline", required=True, help="baseline run folder or its metrics.json")
    parser.add_argument("--current", required=True, help="current run folder or its metrics.json")
    parser.add_argument("--metric", action="append", default=[], help=f"metric to gate (default {DEFAULT_METRIC})")
    parser.add_argument(
        "--max-drop",
        action="append",
        default=[],
        type=float,
        help=f"allowed absolute drop of the matching --metric (default {DEFAULT_MAX_DROP})",
    )
    parser.add_argument("--config", help="YAML/JSON list of {metric: NAME, max_drop: X}")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random sign flips (default 0)")
    parser.add_argument(
        "--on-inconclusive",
        choices=ON_INCONCLUSIVE,
        default="fail",
        help="a drop beyond the margin that the test cannot confirm: fail (default) or warn (exit 0)",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="superiority",
        help="superiority (default): fail on a confirmed drop; non-inferiority: pass only a drop shown within margin",
    )
    parser.add_argument(
        "--same-questions",
        action="store_true",
        help="refuse runs whose question sets differ (default: gate the shared)",
    )
    parser.add_argument("--junit", help="write JUnit XML to this file")
    parser.add_argument("--diff", help="write the flipped questions side by side (rag-bench diff) to this HTML file")
    return parser


def gate_main(argv: list[str]) -> int:
    """``rag-bench gate --baseline RUN --current RUN [--metric M --max-drop X]...``"""
    args, code = _parse(gate_parser(), argv)
    if args is None:
        return code
    from_file = load_rules(args.config) if args.config else ()
    rules = check_unique(from_file + make_rules(args.metric, args.max_drop))
    policy = GatePolicy(args.alpha, args.seed, args.on_inconclusive, args.mode, args.same_questions)
    result = run_gate(load_run(args.baseline), load_run(args.current), rules, policy)
    if args.diff:
        from rag_bench.report.diff.cli import write_diff

        write_diff(Path(load_run(args.baseline).folder), Path(load_run(args.current).folder), Path(args.diff))
    markdown = gate_markdown(result, diff=args.diff)
    print(markdown, end="")
    _append_step_summary(markdown)
    if args.junit:
        _write(Path(args.junit), gate_junit(result), "--junit")
    return PASSED if result.passed else REGRESSED


def compare_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag-bench compare",
        description="Means with 95% intervals per run, and paired tests of each run against the first.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders or their metrics.json")
    parser.add_argument(
        "--metric", action="append", default=[], help=f"metric to show (default {', '.join(DEFAULT_METRICS)})"
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the paired tests: sign flips and the interval of each delta (default 0); each run's own "
        "interval is the one it wrote, with its own seed and resamples",
    )
    parser.add_argument(
        "--same-questions", action="store_true", help="refuse runs whose question sets differ (default: the shared)"
    )
    return parser


def compare_main(argv: list[str]) -> int:
    """``rag-bench compare RUN RUN [RUN...] [--metric M]...``"""
    args, code = _parse(compare_parser(), argv)
    if args is None:
        return code
    metrics = [parse_metric(name) for name in args.metric or DEFAULT_METRICS]
    runs = [load_run(r) for r in args.runs]
    comparison = compare_runs(runs, metrics, alpha=args.alpha, seed=args.seed, same_questions=args.same_questions)
    print(compare_markdown(comparison), end="")
    return PASSED


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[argparse.Namespace | None, int]:
    """Parsed arguments, or None and argparse's exit code (2 on a usage error, 0 after --help)."""
    try:
        return parser.parse_args(argv), PASSED
    except SystemExit as exc:
        return None, int(exc.code or 0)


def _append_step_summary(markdown: str) -> None:
    """Append to the file GitHub Actions names in $GITHUB_STEP_SUMMARY, when it is set."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        try:  # appended by rewriting the file whole, so a full disk cannot tear the earlier steps' summary
            summary = Path(path)
            before = summary.read_bytes() if summary.is_file() else b""
            files.write_bytes(summary, before + (markdown + "\n").encode("utf-8"))
        except OSError as exc:
            raise ConfigError(f"GITHUB_STEP_SUMMARY ({path}) cannot be appended to ({exc.strerror})") from exc


def _write(path: Path, text: str, flag: str) -> None:
    try:
        files.write_text(path, text)
    except OSError as exc:
        raise ConfigError(f"{flag} {path} cannot be written ({exc.strerror})") from exc
