"""``rag-bench dataset-stats DATASET_DIR [--out FILE.md|FILE.json]``: the health of a question set.

Counts questions per document (those with evidence in it, spans or relevant judgements) and
per category, the unanswerable share, evidence lengths in characters, and each question's
lexical overlap with its evidence (``rag_bench/label/overlap.py``). Percentiles are numpy's
linear interpolation between order statistics.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from rag_bench.core.cache import atomic_write
from rag_bench.core.errors import ConfigError
from rag_bench.core.markdown import md_text
from rag_bench.core.types import Dataset
from rag_bench.core.workspace import Workspace
from rag_bench.data.bundled import bundled_names, dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.label.overlap import copied_share
from rag_bench.label.parse_stats import lost_lines, parser_rows, parser_table
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun
from rag_bench.score.paired import questions_needed

PERCENTILES = (10, 25, 50, 75, 90)
BUCKETS = ((0.0, 0.25, "0-25%"), (0.25, 0.5, "25-50%"), (0.5, 0.75, "50-75%"), (0.75, 1.01, "75-100%"))
MOSTLY_COPIED = 0.8
SHOW_DOCUMENTS = 15


@dataclass(frozen=True)
class Distribution:
    """Summary of a list of numbers; every field None when the list is empty."""

    count: int
    mean: float | None
    min: float | None
    p10: float | None
    p25: float | None
    median: float | None
    p75: float | None
    p90: float | None
    max: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        if not values:
            return cls(0, *([None] * 8))
        data = np.asarray(values, dtype=np.float64)
        cuts = [float(v) for v in np.percentile(data, PERCENTILES)]
        return cls(len(data), float(data.mean()), float(data.min()), *cuts, float(data.max()))


@dataclass(frozen=True)
class Health:
    """What ``dataset-stats`` reports about one question set."""

    dataset: str
    documents: int
    questions: int
    with_spans: int
    judged_only: int
    unanswerable: int
    by_category: dict[str, dict[str, int]]  # category -> {questions, unanswerable}
    by_document: dict[str, int]  # every document -> questions with evidence in it, most first
    by_source: dict[str, int]
    spans_per_question: dict[str, int]  # "1", "2", "3+"
    evidence_chars: Distribution
    copied_share: Distribution
    copied_buckets: dict[str, int]
    mostly_copied: int  # questions whose copied share >= MOSTLY_COPIED
    by_parser: list[dict] = field(default_factory=list)  # --parsers: per parser (label/parse_stats.py)


def health(dataset: Dataset) -> Health:
    """The statistics of ``dataset``'s questions."""
    texts = {d.id: d.text for d in dataset.documents}
    qs = dataset.questions
    per_doc = Counter({d.id: 0 for d in dataset.documents})
    categories: dict[str, Counter] = {}
    shares, lengths = [], []
    for q in qs:
        docs = {s.doc_id for s in q.spans} | {d for d, g in q.judgements.items() if g > 0}
        per_doc.update(docs)
        counts = categories.setdefault(q.category or "(none)", Counter())
        counts["questions"] += 1
        counts["unanswerable"] += not q.labelled
        lengths.extend(len(s) for s in q.spans)
        share = copied_share(q.text, [texts[s.doc_id][s.start : s.end] for s in q.spans]) if q.spans else None
        if share is not None:
            shares.append(share)
    spans = Counter("3+" if len(q.spans) >= 3 else str(len(q.spans)) for q in qs if q.spans)
    return Health(
        dataset=dataset.name,
        documents=len(dataset.documents),
        questions=len(qs),
        with_spans=sum(1 for q in qs if q.spans),
        judged_only=sum(1 for q in qs if not q.spans and q.labelled),
        unanswerable=sum(1 for q in qs if not q.labelled),
        by_category={
            c: {"questions": n["questions"], "unanswerable": n["unanswerable"]} for c, n in sorted(categories.items())
        },
        by_document=dict(sorted(per_doc.items(), key=lambda item: (-item[1], item[0]))),
        by_source=dict(sorted(Counter(q.source or "(none)" for q in qs).items())),
        spans_per_question={k: spans[k] for k in ("1", "2", "3+")},
        evidence_chars=Distribution.of(lengths),
        copied_share=Distribution.of(shares),
        copied_buckets={name: sum(1 for s in shares if low <= s < high) for low, high, name in BUCKETS},
        mostly_copied=sum(1 for s in shares if s >= MOSTLY_COPIED),
    )


def _pct(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.1f}%)" if whole else str(part)


def _dist_row(d: Distribution, digits: int) -> list[str]:
    values = (d.mean, d.min, d.p10, d.p25, d.median, d.p75, d.p90, d.max)
    return [str(d.count), *("-" if v is None else f"{v:.{digits}f}" for v in values)]


def tables(h: Health) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table, shared by the console and Markdown renderings."""
    n = h.questions
    unused = sum(1 for v in h.by_document.values() if v == 0)
    dist_header = ["", "n", "mean", "min", "p10", "p25", "median", "p75", "p90", "max"]
    return [
        ("Questions", ["", "count"], [
            ["questions", str(n)],
            ["with evidence spans", _pct(h.with_spans, n)],
            ["judged documents only", _pct(h.judged_only, n)],
            ["unanswerable (no evidence)", _pct(h.unanswerable, n)],
            *[[f"spans per question: {k}", str(v)] for k, v in h.spans_per_question.items()],
            *[[f"source: {k}", _pct(v, n)] for k, v in h.by_source.items()],
        ]),
        ("Distributions", dist_header, [
            ["evidence length (characters)", *_dist_row(h.evidence_chars, 0)],
            ["question terms copied from evidence (share)", *_dist_row(h.copied_share, 2)],
        ]),
        ("Lexical overlap with evidence", ["share of question terms in the evidence", "questions"], [
            *[[name, str(v)] for name, v in h.copied_buckets.items()],
            [f">= {MOSTLY_COPIED:.0%} (BM25 can match word for word)", _pct(h.mostly_copied, h.copied_share.count)],
        ]),
        ("By category", ["category", "questions", "unanswerable"], [
            [c, _pct(v["questions"], n), str(v["unanswerable"])] for c, v in h.by_category.items()
        ]),
        (f"By document (top {SHOW_DOCUMENTS}; {unused} of {h.documents} documents hold no evidence)",
         ["document", "questions"], [[d, str(v)] for d, v in list(h.by_document.items())[:SHOW_DOCUMENTS]]),
        *([parser_table(h.by_parser)] if h.by_parser else []),
    ]  # fmt: skip


def console(h: Health) -> str:
    """Plain-text tables for the terminal."""
    out = [f"{h.dataset}: {h.questions} questions over {h.documents} documents"]
    for title, header, rows in tables(h):
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        out += ["", title]
        for row in [header, *rows]:
            out.append(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
                ).rstrip()
            )
    return "\n".join(out)


def markdown(h: Health) -> str:
    """The same tables as Markdown."""
    out = [f"# Question set health: {md_text(h.dataset)}", "", f"{h.questions} questions over {h.documents} documents."]
    for title, header, rows in tables(h):
        out += [
            "",
            f"## {md_text(title)}",
            "",
            "| " + " | ".join(map(md_text, header)) + " |",
            "|" + "---|" * len(header),
        ]
        out += ["| " + " | ".join(map(md_text, row)) + " |" for row in rows]
    return "\n".join(out) + "\n"


FORMATS = {".md": markdown, ".json": lambda h: json.dumps(asdict(h), indent=2) + "\n"}


def main(argv: Sequence[str]) -> int:
    """Print the tables; with ``--out``, also write them (Markdown or JSON by the file's suffix)."""
    parser = argparse.ArgumentParser(prog="rag-bench dataset-stats", description="Report a question set's health.")
    parser.add_argument("dataset", help="dataset folder (or a bundled dataset name)")
    parser.add_argument("--questions", type=Path, help="questions file (default DATASET/questions.jsonl)")
    parser.add_argument("--out", type=Path, help="also write the report: FILE.md (Markdown) or FILE.json")
    parser.add_argument("--detect", type=float, help="a drop of a hit metric (e.g. 0.05): the questions it needs")
    parser.add_argument(
        "--discordance", type=float, help="share of questions a change flips (default 2 x --detect)", default=None
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="the gate's significance level (default 0.05)")
    parser.add_argument(
        "--parsers", help="parsers to compare on the files in docs/, e.g. auto,layout (default: the default parser)"
    )
    args = parser.parse_args(list(argv))
    if args.out is not None and args.out.suffix not in FORMATS:
        raise ConfigError(f"--out ({args.out}) must end in {' or '.join(FORMATS)}")
    need = None if args.detect is None else questions_to_detect(args.detect, args.discordance, args.alpha)
    folder = Path(args.dataset)
    if not folder.is_dir() and args.dataset in bundled_names():
        folder = dataset_folder(args.dataset, None)
    names = [n.strip() for n in (args.parsers or PARSERS.default).split(",") if n.strip()]
    for name in names:
        PARSERS.settings(name)  # an unknown parser is a one-line error before any work
    cache = Workspace.open(None).cache
    report = health(load_dataset(folder, questions=args.questions, parse=ParseRun(PARSERS.settings(names[0]), cache)))
    report = replace(report, by_parser=parser_rows(folder, names, args.questions, cache))
    print(console(report))
    if need is not None:
        have = report.with_spans + report.judged_only  # the questions a gate scores
        share = 2 * args.detect if args.discordance is None else args.discordance
        verdict = "enough" if have >= need else f"{need - have} more needed"
        print(
            f"\nto confirm a drop of {args.detect:g} in a hit metric (p < {args.alpha:g}, 80% power) when {share:.0%} "
            f"of the questions change: {need} questions; this set has {have} ({verdict})"
        )
    for line in lost_lines(report.by_parser):
        print(line)
    if args.out is not None:
        text = FORMATS[args.out.suffix](report).encode("utf-8")
        atomic_write(args.out, lambda handle: handle.write(text))
        print(f"\nwrote {args.out}")
    return 0


def questions_to_detect(drop: float, discordance: float | None, alpha: float) -> int:
    """How many questions the gate needs to confirm a drop of ``drop`` in a hit metric (``score.paired``): a
    change that flips a share ``discordance`` of the questions (lost and gained; default 2 x drop) has
    per-question differences of spread sqrt(discordance), so n = ((z_{1-alpha} + z_{0.8}) * sqrt(discordance)
    / drop)^2."""
    share = 2 * drop if discordance is None else discordance
    if not 0 < drop < 1 or not drop <= share <= 1 or not 0 < alpha < 1:
        raise ConfigError(
            f"--detect ({drop}) must lie in (0, 1), --discordance ({share}) between it and 1 (a net drop needs at "
            f"least that share of questions to change), --alpha ({alpha}) in (0, 1)"
        )
    return questions_needed(math.sqrt(share), drop, alpha, 0.8)
