"""The diff of two runs as one self-contained HTML page: each flipped question with both rankings side by side.

Static HTML (no script): the counts, the table of class transitions, then one block per flip, lost
first, with the question, its class before and after, the evidence, and the two final top-k lists
next to each other, the part of each chunk that overlaps evidence highlighted.
"""

from __future__ import annotations

import html

from rag_bench.report.page_assets import asset, table_html
from rag_bench.report.run.view import DISPLAY_CLASSES

HIT_MARK = " \u2714 hits evidence"


def render_diff_page(view: dict) -> str:
    """The page for a ``diff.diff_view`` model."""
    before, after = (html.escape(label) for label in view["runs"])
    counts = view["counts"]
    title = f"What flipped at k = {view['report_k']}: {before} -> {after}"
    body = [
        f"<h1>{title}</h1>",
        f'<p class="sub" id="summary">{counts["lost"]} lost (hit -> miss), {counts["gained"]} gained (miss -> hit), '
        f"of {view['n_questions']} questions.</p>",
        *_question_lists(view.get("questions", {})),
        "<h2>Failure class before (rows) and after (columns), every question</h2>",
        _transitions(counts["transitions"]),
        f"<h2>Flipped questions ({len(view['flips'])})</h2>",
        *(_flip(flip, view["runs"]) for flip in view["flips"]),
    ]
    if not view["flips"]:
        body.append("<p>No question flipped.</p>")
    head = f"<head><meta charset=utf-8><title>{title}</title><style>{asset('page.css')}</style></head>"
    return "<!doctype html>\n<html lang=en>" + head + "\n<body>\n" + "\n".join(body) + "\n</body></html>\n"


def _question_lists(sets: dict[str, list[str]]) -> list[str]:
    """The questions only one run scored (added, removed) or scored otherwise (changed): not compared."""
    listed = {name: ids for name, ids in sets.items() if ids}
    if not listed:
        return []
    items = "".join(
        f'<li id="{name}">{name} ({len(ids)}): {html.escape(", ".join(ids))}</li>' for name, ids in listed.items()
    )
    return ["<h2>Questions not compared (the question sets differ)</h2>", f"<ul>{items}</ul>"]


def _transitions(transitions: dict[str, dict[str, int]]) -> str:
    present = [c for c in DISPLAY_CLASSES if c in transitions or any(c in row for row in transitions.values())]
    head = "<tr><th class=l>before \\ after</th>" + "".join(f"<th>{_badge(c)}</th>" for c in present) + "</tr>"
    rows = [
        f"<tr><th class=l>{_badge(c)}</th>"
        + "".join(f"<td>{transitions[c].get(d, 0) or ''}</td>" for d in present)
        + "</tr>"
        for c in present
        if c in transitions
    ]
    return table_html("transitions", head, rows)


def _flip(flip: dict, labels: list[str]) -> str:
    kind = "lost" if flip["lost"] else "gained"
    old, new = flip["before"], flip["after"]
    evidence = "".join(
        f'<div class="evidence"><div class="meta">{html.escape(s["doc"])} [{s["start"]}, {s["end"]})</div>'
        f"{html.escape(s['text'])}</div>"
        for s in flip["evidence"]
    )
    if flip["relevant"]:
        evidence += f'<div class="meta">relevant documents: {html.escape(", ".join(flip["relevant"]))}</div>'
    category = f" \u00b7 {html.escape(flip['category'])}" if flip["category"] else ""
    return (
        f'<section class="flip {kind}" data-id="{html.escape(flip["id"])}">'
        f"<h3>{_badge(kind)} "
        f'<span class="qtext">{html.escape(flip["text"])}</span></h3>'
        f'<div class="meta">{html.escape(flip["id"])}{category} \u00b7 class {_badge(old["failure"])} -> '
        f"{_badge(new['failure'])}</div>"
        f"{evidence}"
        f'<div class="side"><div class="before">{_ranking(labels[0], old, flip["evidence"])}</div>'
        f'<div class="after">{_ranking(labels[1], new, flip["evidence"])}</div></div></section>'
    )


def _ranking(label: str, side: dict, evidence: list[dict]) -> str:
    ranks = " \u00b7 ".join(f"{s} {_rank(side['ranks'].get(s))}" for s in side["stages"] if s in side["ranks"])
    rows = "".join(
        f'<div class="chunk{" hit" if c["hit"] else ""}"><div class="head"><span class="rank">{i}.</span> '
        f'<span class="id">{html.escape(c["id"])}</span>{HIT_MARK if c["hit"] else ""}</div>'
        f'<div class="text">{highlight(c, evidence)}</div></div>'
        for i, c in enumerate(side["top"], start=1)
    )
    return (
        f"<h4>{html.escape(label)}: {side['failure']}, first hit at rank {_rank(side['first_hit'])}</h4>"
        f'<div class="meta">evidence rank: {ranks or "-"}</div>{rows}'
    )


def highlight(chunk: dict, evidence: list[dict]) -> str:
    """The chunk's text as HTML, the parts overlapping an evidence span of its document in <mark>."""
    start, end, text = chunk["start"], chunk["end"], chunk["text"]
    parts = sorted(
        (max(s["start"], start) - start, min(s["end"], end) - start)
        for s in evidence
        if s["doc"] == chunk["doc"] and s["start"] < end and s["end"] > start
    )
    out, at = [], 0
    for low, high in parts:
        if high <= at:
            continue
        low = max(low, at)
        out += [html.escape(text[at:low]), f"<mark>{html.escape(text[low:high])}</mark>"]
        at = high
    out.append(html.escape(text[at:]))
    return "".join(out)


def _badge(failure: str) -> str:
    return f'<span class="badge {failure}">{failure}</span>'


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)
