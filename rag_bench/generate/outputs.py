"""Write check-generation's outputs: generation.json, generation_per_question.csv, generation.md."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from rag_bench.core.files import write_text
from rag_bench.core.markdown import md_code, md_text
from rag_bench.generate.attribution import LABELS, count
from rag_bench.generate.prompt import REFUSAL
from rag_bench.generate.run import GenerationResult, QuestionResult

COLUMNS = (
    "question_id",
    "category",
    "labelled",
    "passages",
    "evidence_passages",
    "answer",
    "citations",
    "refused",
    "should_refuse",
    "citations_ok",
    "quotes",
    "quotes_ok",
    "cites_evidence",
    "exact",
    "f1",
    "contains",
    "correct",
    "refusal_ok",
    "passed",
    "attribution",
    "problem",
    "prompt_hash",
    "cached",
)


def write_generation(result: GenerationResult, out_dir: Path) -> dict:
    """Write every output file into ``out_dir``; return the generation.json object."""
    payload = generation_payload(result)
    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(row(r) for r in result.results)
    write_text(out_dir / "generation_per_question.csv", table.getvalue())
    write_text(out_dir / "generation.md", markdown(payload, result))
    write_text(out_dir / "generation.json", json.dumps(payload, indent=2) + "\n")  # last: the run is complete
    return payload


def row(r: QuestionResult) -> dict:
    """One question's line of the per-question table (lists as JSON)."""
    c, q = r.checks, r.prompt.question
    return {
        "question_id": q.id,
        "category": q.category or "",
        "labelled": q.labelled,
        "passages": json.dumps([chunk.id for chunk in r.prompt.passages]),
        "evidence_passages": json.dumps(list(c.evidence_passages)),
        "answer": r.answer.text,
        "citations": json.dumps(list(r.answer.citations)),
        "refused": r.answer.refused,
        "should_refuse": c.should_refuse,
        "citations_ok": c.citations_ok,
        "quotes": c.quotes,
        "quotes_ok": c.quotes_ok,
        "cites_evidence": c.cites_evidence,
        "exact": c.exact,
        "f1": c.f1,
        "contains": c.contains,
        "correct": c.correct,
        "refusal_ok": c.refusal_ok,
        "passed": r.outcome.passed,
        "attribution": r.outcome.attribution or "",
        "problem": r.outcome.problem,
        "prompt_hash": r.prompt.hash,
        "cached": r.cached,
    }


def generation_payload(result: GenerationResult) -> dict:
    rs = result.results
    answered = [r for r in rs if not r.answer.refused]
    referenced = [r for r in rs if r.checks.exact is not None]
    return {
        "run_dir": str(result.run.folder),
        "dataset": result.run.dataset.name,
        "aggregates": {
            "pass_rate": _mean(r.outcome.passed for r in rs),
            "evidence_given": _mean(r.checks.evidence_given for r in rs if r.prompt.question.labelled),
            "refusal_accuracy": _mean(r.checks.refusal_ok for r in rs),
            "citations_ok": _mean(r.checks.citations_ok for r in answered),
            "quotes_ok": _mean(r.checks.quotes_ok for r in answered if r.checks.quotes),
            "cites_evidence": _mean(r.checks.cites_evidence for r in answered if r.checks.evidence_given),
            "exact": _mean(r.checks.exact for r in referenced),
            "f1": _mean(r.checks.f1 for r in referenced),
            "contains": _mean(r.checks.contains for r in referenced),
            "correct": _mean(r.checks.correct for r in referenced),
        },
        "counts": counts(result),
        "attribution": count(r.outcome for r in rs),
        "attribution_by_category": attribution_table(rs),
        "settings": {
            **asdict(result.settings),
            "generator_key": result.generator_key,
            "tau": result.tau,
            "refusal_phrase": REFUSAL,
        },
    }


def counts(result: GenerationResult) -> dict[str, int]:
    rs = result.results
    return {
        "questions": len(rs),
        "answerable": sum(r.prompt.question.labelled for r in rs),
        "unanswerable": sum(not r.prompt.question.labelled for r in rs),
        "passed": sum(r.outcome.passed for r in rs),
        "failed": sum(not r.outcome.passed for r in rs),
        "refused": sum(r.answer.refused for r in rs),
        "should_refuse": sum(r.checks.should_refuse for r in rs),
        "bad_citations": sum(not r.checks.citations_ok for r in rs),
        "unsupported_quotes": sum(not r.checks.quotes_ok for r in rs),
        "generated": result.generated,
        "from_cache": len(rs) - result.generated,
        "input_tokens": sum(r.answer.input_tokens for r in rs if not r.cached),
        "output_tokens": sum(r.answer.output_tokens for r in rs if not r.cached),
        "cached_input_tokens": sum(r.answer.cached_tokens for r in rs if not r.cached),
    }


def attribution_table(rs: Iterable[QuestionResult]) -> dict[str, dict[str, int]]:
    """category -> {questions, passed, retrieval, generation, refusal}, plus an ``all`` row last."""
    groups: dict[str, list[QuestionResult]] = {}
    for r in rs:
        groups.setdefault(r.prompt.question.category or "(none)", []).append(r)
    groups = dict(sorted(groups.items()))
    groups["all"] = [r for group in groups.values() for r in group]
    return {
        name: {"questions": len(g), "passed": sum(r.outcome.passed for r in g), **count(r.outcome for r in g)}
        for name, g in groups.items()
    }


def markdown(payload: dict, result: GenerationResult) -> str:
    """A short report: settings, headline checks, the attribution table, the failing questions."""
    agg, settings = payload["aggregates"], payload["settings"]
    lines = [
        "# Generation checks",
        "",
        f"Run {md_code(payload['run_dir'])} (dataset {md_code(payload['dataset'])}), "
        f"generator {md_code(settings['generator_key'])}, "
        f"top {settings['passages']} passages per question.",
        "",
        "| check | value |",
        "|---|---|",
        *(f"| {name} | {_fmt(value)} |" for name, value in agg.items()),
        "",
        "## Failures by stage",
        "",
        attribution_markdown(payload["attribution_by_category"]),
        "",
    ]
    failing = [r for r in result.results if not r.outcome.passed]
    if failing:
        lines += ["## Failing questions", "", "| question | attribution | problem |", "|---|---|---|"]
        lines += [
            f"| {md_text(r.prompt.question.id)} | {r.outcome.attribution} | {md_text(r.outcome.problem)} |"
            for r in failing
        ]
    return "\n".join(lines) + "\n"


def attribution_markdown(table: dict[str, dict[str, int]]) -> str:
    head = ["category", "questions", "passed", *LABELS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join([md_text(name), *(str(v[h]) for h in head[1:])]) + " |" for name, v in table.items()]
    return "\n".join(lines)


def console_summary(payload: dict, out_dir: Path) -> str:
    agg, n = payload["aggregates"], payload["counts"]
    return "\n".join(
        [
            f"{payload['dataset']}: {n['questions']} questions, {n['passed']} passed; "
            f"{n['generated']} answers generated, {n['from_cache']} from cache",
            f"pass rate {_fmt(agg['pass_rate'])}, evidence given {_fmt(agg['evidence_given'])}, "
            f"refusal accuracy {_fmt(agg['refusal_accuracy'])}, token F1 {_fmt(agg['f1'])}",
            attribution_markdown(payload["attribution_by_category"]),
            f"outputs: {out_dir}",
        ]
    )


def _mean(values: Iterable[float | bool | None]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
