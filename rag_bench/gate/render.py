"""Render gate and compare results: Markdown (stdout, GitHub step summary) and JUnit XML.

Run names, question ids and texts go into the Markdown through ``rag_bench.core.markdown``: a
question cannot put HTML, a link or an image into a pull request's summary.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from rag_bench.core.markdown import md_code, md_link, md_text
from rag_bench.gate.compare import Comparison
from rag_bench.gate.gate import FLIP_K, Flip, GateResult, Verdict
from rag_bench.run_folder.runs import format_rank

TEXT_WIDTH = 100  # question text is cut to this many characters in tables
VERDICT_TEXT = {
    "no drop": "pass: no drop",
    "within margin": "pass: within margin",
    "non-inferior": "pass: drop shown within margin",
    "under ceiling": "pass: at or under its ceiling",
    "inconclusive": "**INCONCLUSIVE**: drop beyond margin, not confirmed",
    "regression": "**FAIL**: regression",
}
RULES = {
    "superiority": "A metric fails when its drop exceeds the allowed margin and a one-sided paired sign-flip test "
    "gives p < {alpha:g}; a drop beyond the margin that the test cannot confirm is inconclusive.",
    "non-inferiority": "A metric passes only when a one-sided paired sign-flip test shows its drop is within the "
    "allowed margin (p < {alpha:g}); a confirmed drop beyond it fails, anything else is inconclusive.",
}
SHOW_QUESTIONS = 10  # question ids listed per added, removed or changed set


def gate_markdown(result: GateResult, diff: str | None = None) -> str:
    """The verdict table, the questions that flipped at each k, and where to see them side by side."""
    lines = [
        f"### rag-bench gate: {_headline(result)}",
        "",
        f"Baseline {md_code(result.baseline)} vs current {md_code(result.current)} on {result.n_questions} "
        f"labelled questions{probes(result.n_probes)}. " + RULES[result.policy.mode].format(alpha=result.alpha),
        *question_set_lines(result.questions),
        "",
        "| metric | baseline | current | delta | 95% interval of delta | p-value | max drop | detectable drop "
        "| verdict |",
        "|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    lines += [_verdict_row(v) for v in result.verdicts]
    lines += [
        "",
        f"Detectable drop: the smallest drop these {result.n_questions} questions detect at p < {result.alpha:g} "
        "with 80% power (from the spread of the per-question differences); a margin below it cannot be confirmed, "
        "so a drop past the margin reads inconclusive until the question set grows "
        "(rag-bench dataset-stats --detect DROP says how many questions a drop needs).",
    ]
    if result.inconclusive and result.policy.on_inconclusive == "warn":
        lines += ["", "Inconclusive metrics are warned of, not failed (--on-inconclusive warn)."]
    for k, flips in result.flips.items():
        lines += ["", *_flip_table(k, flips)]
    if diff:
        lines += [
            "",
            f"Each flipped question with both rankings, its evidence and failure class: {md_link(diff, diff)}",
        ]
    elif any(result.flips.values()):
        lines += ["", f"Both rankings of each flip: {md_code(f'rag-bench diff {result.baseline} {result.current}')}"]
    return "\n".join(lines) + "\n"


def _limit(v: Verdict, prefix: str = "") -> str:
    """The rule's bound: the allowed drop, or a ceiling on the current mean (lower-is-better metrics)."""
    return f"max {v.rule.ceiling:.3f}" if v.rule.ceiling is not None else f"{prefix}{v.rule.max_drop:.3f}"


def _headline(result: GateResult) -> str:
    """PASS, REGRESSION (n of m metrics), INCONCLUSIVE (n of m; failed or warned)."""
    m = len(result.verdicts)
    if result.regressed:
        return f"REGRESSION ({sum(v.regressed for v in result.verdicts)} of {m} metrics regressed)"
    if result.inconclusive:
        n = sum(v.inconclusive for v in result.verdicts)
        how = "warned, not failed" if result.policy.on_inconclusive == "warn" else "failed: the data cannot tell"
        return f"INCONCLUSIVE ({n} of {m} metrics: {how})"
    return "PASS"


def question_set_lines(sets) -> list[str]:
    """The questions the runs did not share: added, removed and changed ones (nothing when the sets are equal)."""
    if sets is None or sets.same:
        return []
    parts = [
        f"{name} {len(ids)} ({', '.join(md_text(q) for q in ids[:SHOW_QUESTIONS])}"
        f"{', ...' if len(ids) > SHOW_QUESTIONS else ''})"
        for name, ids in (("added", sets.added), ("removed", sets.removed), ("changed", sets.changed))
        if ids
    ]
    return ["", f"The question sets differ; compared on the {len(sets.shared)} shared questions. " + "; ".join(parts)]


def _verdict_row(v: Verdict) -> str:
    return (
        f"| {v.rule.metric} | {_num(v.baseline)} | {_num(v.current)} | {_signed(v.delta)} | "
        f"[{_signed(v.ci_low)}, {_signed(v.ci_high)}] | {_p(v.p_value)} | {_limit(v)} | "
        f"{_num(v.detectable)} | {VERDICT_TEXT[v.status]} |"
    )


def _flip_table(k: int, flips: tuple[Flip, ...]) -> list[str]:
    lost = sum(f.lost for f in flips)
    if not flips:
        return [f"#### Flipped at hit@{k}: none"]
    title = f"#### Flipped at hit@{k}: {lost} hit -> miss, {len(flips) - lost} miss -> hit"
    rows = [
        f"| {md_text(f.question_id)} | {_cell(f.text)} | {format_rank(f.rank_before)} | {format_rank(f.rank_after)} | "
        f"{'hit -> miss' if f.lost else 'miss -> hit'} |"
        for f in flips
    ]
    return [
        title,
        "",
        "| question | text | first hit rank before | after | change |",
        "|---|---|---:|---:|---|",
        *rows,
    ]


def gate_junit(result: GateResult) -> str:
    """JUnit XML: one testcase per gated metric, a <failure> on each regression and on each inconclusive metric
    the policy fails (a warned one is a passing testcase saying so)."""
    fails_inconclusive = result.policy.on_inconclusive == "fail"
    failing = [v for v in result.verdicts if v.regressed or (v.inconclusive and fails_inconclusive)]
    failures = len(failing)
    counts = {"tests": str(len(result.verdicts)), "failures": str(failures), "errors": "0", "skipped": "0"}
    root = ET.Element("testsuites", {"name": "rag-bench gate", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": "rag-bench gate", **counts})
    for v in result.verdicts:
        case = ET.SubElement(suite, "testcase", {"classname": "rag-bench.gate", "name": str(v.rule.metric)})
        summary = (
            f"{v.rule.metric}: baseline {_num(v.baseline)}, current {_num(v.current)}, delta {_signed(v.delta)} "
            f"[{_signed(v.ci_low)}, {_signed(v.ci_high)}], p {_p(v.p_value)}, {_limit(v, 'max drop ')}: "
            f"{v.status}"
        )
        if v in failing:
            failure = ET.SubElement(case, "failure", {"message": summary, "type": v.status})
            failure.text = _flip_text(result, v)
        else:
            ET.SubElement(case, "system-out").text = summary
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _flip_text(result: GateResult, v: Verdict) -> str:
    k = v.rule.metric.k or FLIP_K
    lost = [f for f in result.flips.get(k, ()) if f.lost]
    lines = [f"{len(lost)} questions went from hit to miss at hit@{k}:"]
    lines += [
        f"{f.question_id} (rank {format_rank(f.rank_before)} -> {format_rank(f.rank_after)}) {f.text or ''}".rstrip()
        for f in lost
    ]
    return "\n".join(lines)


def probes(n: int) -> str:
    """`` and 2 filtered questions without labels (leak@k only)``, or nothing when there are none."""
    return f" and {n} filtered questions without labels (leak@k only)" if n else ""


def compare_markdown(comparison: Comparison) -> str:
    """One row per metric and run: mean, interval, and the paired test against the first run."""
    first = comparison.runs[0]
    lines = [
        f"### rag-bench compare: {len(comparison.runs)} runs on {comparison.n_questions} labelled questions"
        f"{probes(comparison.n_probes)}",
        *question_set_lines(comparison.questions),
        "",
        f"Each run vs {md_code(first)}: two-sided paired sign-flip test; p (Holm) is corrected across the "
        f"{len(comparison.runs) - 1} compared runs; * marks p (Holm) < {comparison.alpha:g}.",
        "",
        "| metric | run | mean | 95% interval | delta vs first | 95% interval of delta | p-value | p (Holm) |",
        "|---|---|---:|---|---:|---|---:|---:|",
    ]
    for c in comparison.cells:
        own = f"| {c.metric} | {md_code(c.run)} | {_num(c.mean)} | [{_num(c.ci_low)}, {_num(c.ci_high)}] |"
        if c.delta is None:
            lines.append(own + " (reference) | | | |")
            continue
        star = " *" if c.p_holm is not None and c.p_holm < comparison.alpha else ""
        lines.append(
            own + f" {_signed(c.delta)} | [{_signed(c.delta_low)}, {_signed(c.delta_high)}] | "
            f"{_p(c.p_value)} | {_p(c.p_holm)}{star} |"
        )
    return "\n".join(lines) + "\n"


def _num(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def _signed(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:+.3f}"


def _p(p: float) -> str:
    return "n/a" if p is None or math.isnan(p) else ("<0.001" if p < 0.001 else f"{p:.3f}")


def _cell(text: str | None) -> str:
    """A question's text for a table cell: cut to ``TEXT_WIDTH`` characters, then escaped."""
    if not text:
        return ""
    text = " ".join(text.split())
    return md_text(text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 3] + "...")
