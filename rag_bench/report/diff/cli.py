"""``rag-bench diff RUN_A RUN_B``: the questions that flipped between two runs, as an HTML page and Markdown.

Reads the data model each run's report.html embeds (``run_page.read_run_view``), prints the Markdown
(for a CI step summary: ``>> $GITHUB_STEP_SUMMARY``) and writes the page to ``--out`` (default
``diff.html``). Exit 0 whatever flipped: judging the change is the gate's job.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rag_bench.report.blocks import write_text
from rag_bench.report.diff.flips import diff_markdown, diff_view
from rag_bench.report.diff.page import render_diff_page
from rag_bench.report.run.page import read_run_view

DEFAULT_OUT = "diff.html"


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag-bench diff",
        description="Questions whose hit at report_k flipped between two runs, both rankings side by side.",
    )
    parser.add_argument("before", metavar="RUN_A", help="the earlier run's folder (or its report.html)")
    parser.add_argument("after", metavar="RUN_B", help="the later run's folder (or its report.html)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"write the HTML page here (default {DEFAULT_OUT})")
    parser.add_argument("--markdown", help="also write the Markdown to this file")
    return parser


def write_diff(before: Path, after: Path, out: Path) -> dict:
    """Diff two run folders (or report.html files) into the page ``out``; return the diff's model."""
    view = diff_view(read_run_view(before), read_run_view(after), (str(before), str(after)))
    write_text(out, render_diff_page(view))
    return view


def main(argv: list[str]) -> int:
    """``rag-bench diff RUN_A RUN_B [--out FILE] [--markdown FILE]``"""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    out = Path(args.out)
    view = write_diff(Path(args.before), Path(args.after), out)
    markdown = diff_markdown(view, page=os.path.relpath(out, Path(args.markdown).parent) if args.markdown else None)
    if args.markdown:
        write_text(Path(args.markdown), markdown)
    print(markdown, end="")
    print(f"wrote {out}" + (f" and {args.markdown}" if args.markdown else ""), file=sys.stderr)
    return 0
