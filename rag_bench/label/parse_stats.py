"""``dataset-stats --parsers auto,layout``: what each parser makes of a dataset's files, and of its labels.

Per parser: files it parsed, pages, characters of parsed text, the share of lines cleaning removed as
repeated (``parser.repeated``), near-duplicate documents (``parser.near``, found whatever
``parser.duplicates`` says), and the evidence excerpts it located or lost, each lost one with the
nearest match the parse holds (``data/loose.py``).
"""

from __future__ import annotations

from pathlib import Path

from rag_bench.core.cache import DiskCache
from rag_bench.data.loose import describe
from rag_bench.data.native import load_dataset
from rag_bench.parse.duplicates import near_duplicates
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun


def parser_rows(folder: Path, names: list[str], questions: Path | None, cache: DiskCache | None) -> list[dict]:
    """One row per parser in ``names`` (see the module docstring)."""
    rows = []
    for name in names:
        run = ParseRun(PARSERS.settings(name), cache)
        dataset = load_dataset(folder, questions=questions, parse=run)
        parsed = [d for d in dataset.documents if d.parser]
        lines = sum(len(d.text.splitlines()) for d in parsed) + run.counts.removed_lines
        texts = {d.id: d.text for d in dataset.documents}
        lost = [(q.id, x) for q in dataset.questions for x in q.lost]
        rows.append(
            {
                "parser": name,
                "files": run.counts.files,
                "pages": run.counts.pages,
                "characters": sum(len(d.text) for d in parsed),
                "repeated_line_share": run.counts.removed_lines / lines if lines else 0.0,
                "near_duplicates": len(near_duplicates([d.text for d in dataset.documents], run.settings.near)),
                "excerpts_located": sum(len(q.spans) for q in dataset.questions),
                "excerpts_lost": len(lost),
                "failed": list(run.counts.failed),
                "lost": [
                    f"{qid} {x.doc_id}: {x.text[:50]!r}; "
                    + (describe(texts[x.doc_id], x.text) if x.doc_id in texts else "document left out")
                    for qid, x in lost
                ],
            }
        )
    return rows


def parser_table(rows: list[dict]) -> tuple[str, list[str], list[list[str]]]:
    """(title, header, rows) of the per-parser table."""
    header = ["parser", "files", "pages", "characters", "repeated lines", "near-duplicates", "located", "lost"]
    body = [
        [r["parser"], str(r["files"]), str(r["pages"]), f"{r['characters']:,}", f"{r['repeated_line_share']:.1%}",
         str(r["near_duplicates"]), str(r["excerpts_located"]), str(r["excerpts_lost"])]
        for r in rows
    ]  # fmt: skip
    return "Per parser (files in docs/ other than .md and .txt)", header, body


def lost_lines(rows: list[dict]) -> list[str]:
    """Each lost excerpt, per parser, with the nearest match its parse holds."""
    return [f"{r['parser']}: lost {line}" for r in rows for line in r["lost"]]
