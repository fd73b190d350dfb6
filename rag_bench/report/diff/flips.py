"""What flipped between two runs: the questions whose hit at ``report_k`` changed, with both rankings.

``diff_view(before, after)`` takes two run models (``run_view.py``, as each run's report.html
embeds them) at the same ``report_k``, and pairs the questions they share (same id, text and evidence;
a question set that grew or changed is compared on those, the others listed). A question *flipped* when
the final top k held evidence in one run and not in the other: ``lost`` (hit -> miss) or ``gained``.
The model (JSON-serialisable):

  runs         [label before, label after], report_k, n_questions (shared)
  questions    {added, removed, changed}: ids only one run scored, or scored with another text or evidence
  counts       lost, gained, and transitions {class before: {class after: questions}} over all questions
  flips        [{id, text, category, lost, evidence, before: side, after: side}], lost first, in question order
  side         {failure, first_hit, ranks {stage: evidence rank}, top: [{id, doc, start, end, text, hit}]}

``diff_markdown`` renders it for a CI summary, ``diff_page.render_diff_page`` as one HTML page.
"""

from __future__ import annotations

from rag_bench.core.errors import DataError
from rag_bench.core.markdown import md_code, md_link, md_text
from rag_bench.score.failures import HIT

SHOW_IDS = 5  # question ids named in a mismatch message
MARKDOWN_CHUNKS = 5  # ranks shown per side in the Markdown tables
EXCERPT = 160  # characters of a chunk or evidence shown in Markdown


def diff_view(before: dict, after: dict, labels: tuple[str, str]) -> dict:
    """The flips from ``before`` to ``after`` (layout in the module docstring); a DataError when they do not pair."""
    k_before, k_after = before["run"]["report_k"], after["run"]["report_k"]
    if k_before != k_after:
        raise DataError(
            labels[1],
            f"was classified at report_k {k_after}, {labels[0]} at {k_before}",
            fix="rerun both with the same report_k",
        )
    first = {q["id"]: q for q in before["questions"]}
    second = {q["id"]: q for q in after["questions"]}
    sets = question_lists(first, second)
    changed = set(sets["changed"])
    shared = {qid: old for qid, old in first.items() if qid in second and qid not in changed}
    if not shared:
        raise DataError(labels[1], f"shares no question with {labels[0]}", fix="diff two runs of one dataset")
    transitions: dict[str, dict[str, int]] = {}
    flips = []
    for qid, old in shared.items():
        new = second[qid]
        row = transitions.setdefault(old["failure"], {})
        row[new["failure"]] = row.get(new["failure"], 0) + 1
        if (old["failure"] == HIT) != (new["failure"] == HIT):
            flips.append(_flip(old, new, before, after))
    flips.sort(key=lambda f: not f["lost"])  # stable: question order within lost and gained
    lost = sum(f["lost"] for f in flips)
    return {
        "runs": list(labels),
        "report_k": k_before,
        "n_questions": len(shared),
        "questions": sets,
        "counts": {"lost": lost, "gained": len(flips) - lost, "transitions": transitions},
        "flips": flips,
    }


def question_lists(first: dict, second: dict) -> dict[str, list[str]]:
    """The ids only the later run scored (added), only the earlier one (removed), and those both scored with
    another text or evidence (changed), each in its run's order."""

    def same(a: dict, b: dict) -> bool:
        return a["text"] == b["text"] and a["evidence"] == b["evidence"] and a["relevant"] == b["relevant"]

    return {
        "added": [q for q in second if q not in first],
        "removed": [q for q in first if q not in second],
        "changed": [q for q in first if q in second and not same(first[q], second[q])],
    }


def _flip(old: dict, new: dict, before: dict, after: dict) -> dict:
    return {
        "id": old["id"],
        "text": old["text"],
        "category": old["category"],
        "lost": old["failure"] == HIT,
        "evidence": old["evidence"],
        "relevant": old["relevant"],
        "before": _side(old, before),
        "after": _side(new, after),
    }


def _side(question: dict, view: dict) -> dict:
    top = []
    for entry in question["top"]:
        chunk = view["chunks"][entry["chunk"]]
        top.append({**{key: chunk[key] for key in ("id", "doc", "start", "end", "text")}, "hit": entry["hit"]})
    return {
        "failure": question["failure"],
        "first_hit": question["first_hit"],
        "ranks": question["ranks"],
        "stages": view["run"]["stages"],
        "top": top,
    }


def diff_markdown(view: dict, page: str | None = None) -> str:
    """The diff as Markdown for a CI summary; ``page`` names the HTML page to link, when there is one."""
    before, after = view["runs"]
    counts = view["counts"]
    lines = [
        f"## Flipped questions at k = {view['report_k']}: {md_text(before)} -> {md_text(after)}",
        "",
        f"{counts['lost']} lost (hit -> miss), {counts['gained']} gained (miss -> hit), "
        f"of {view['n_questions']} questions." + (f" Side by side: {md_link(page, page)}" if page else ""),
    ]
    listed = {name: ids for name, ids in view.get("questions", {}).items() if ids}
    if listed:
        parts = "; ".join(f"{name} {len(ids)}: {md_text(', '.join(ids))}" for name, ids in listed.items())
        lines += ["", f"Only the shared questions are compared. {parts}"]
    for flip in view["flips"]:
        lines += ["", _flip_markdown(flip, view["report_k"])]
    return "\n".join(lines) + "\n"


def _flip_markdown(flip: dict, k: int) -> str:
    old, new = flip["before"], flip["after"]
    change = "lost" if flip["lost"] else "gained"
    lines = [
        f"### {change}: {md_text(flip['id'])}: {md_text(flip['text'])}",
        "",
        f"class {old['failure']} -> {new['failure']}; first hit at rank {_rank(old['first_hit'])} -> "
        f"{_rank(new['first_hit'])}" + (f"; category {md_text(flip['category'])}" if flip["category"] else ""),
    ]
    for span in flip["evidence"]:
        where = f"{md_text(span['doc'])} [{span['start']}, {span['end']})"
        lines.append(f"> evidence {where}: {md_text(_short(span['text']))}")
    if flip["relevant"]:
        lines.append(f"> relevant documents: {md_text(', '.join(flip['relevant']))}")
    lines += ["", "| rank | before | after |", "|---|---|---|"]
    for i in range(min(k, MARKDOWN_CHUNKS, max(len(old["top"]), len(new["top"])))):
        lines.append(f"| {i + 1} | {_chunk_cell(old['top'], i)} | {_chunk_cell(new['top'], i)} |")
    return "\n".join(lines)


def _chunk_cell(top: list[dict], i: int) -> str:
    if i >= len(top):
        return ""
    chunk = top[i]
    mark = "**hit** " if chunk["hit"] else ""
    return f"{mark}{md_code(chunk['id'])} {md_text(_short(chunk['text']))}"


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 3] + "..."


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)
