"""Time to interactive of the run explorer page in Chromium, 10,000 synthetic questions (goal: under 2 s).

The page is built from a seeded synthetic run: 300 documents of 6,000 characters, fixed 600-character
chunks (3,000 chunks), 10,000 questions with one 150-character evidence span each, bm25, dense and
fused lists of depth 20 (each holding the evidence chunk with probability 0.8 at a random rank), and
the real failure classification. Measured in the same run:
- lazy (the page as shipped): time from navigation start until the first frame after its script
  ran is painted (first batch on screen, every control live), and the time one class filter and one
  search take;
- eager (reference): the same page with the batch size raised to every question, i.e. what rendering
  all 10,000 cards up front would cost.
Each is the best of ``--repeats`` page loads. Needs Playwright and Chromium (the test extra, Debian's
chromium package).

    python benchmarks/run_page_tti.py [--questions 10000] [--repeats 3] [--json CHECKS]

``benchmarks/perf/run_all.py`` runs it as goal S5 (explorer) and reads its checks from ``--json``;
without Chromium it says "not measured: chromium missing" instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rag_bench.core.types import Chunk, Question, Span
from rag_bench.report.run.page import render_run_page
from rag_bench.report.run.view import RunFacts, Stage, run_view
from rag_bench.score.failures import StageLists, diagnose

sys.path.insert(0, str(Path(__file__).resolve().parent / "perf"))
from common import Check, report  # noqa: E402  (benchmarks/perf/common.py: the checks run_all.py reads)

GOAL_S = 2.0
CHROMIUM_MISSING = "install Debian's chromium package, or set RAG_BENCH_CHROMIUM to a Chromium binary"
WORDS = ("alpha", "beta", "gamma", "delta", "port", "agent", "release", "refund", "invoice", "login", "token", "cache")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def synthetic_facts(n_questions: int, seed: int = 0) -> RunFacts:
    """A seeded synthetic run (sizes in the module docstring)."""
    rng = np.random.default_rng(seed)
    docs = {f"doc-{d:03d}.md": " ".join(rng.choice(WORDS, 1000))[:6000] for d in range(300)}
    chunks = [
        Chunk(doc, a, min(a + 600, len(t)), t[a : a + 600]) for doc, t in docs.items() for a in range(0, len(t), 600)
    ]
    questions, rows = [], {name: [] for name in ("bm25", "dense", "fused")}
    for q in range(n_questions):
        target = int(rng.integers(len(chunks)))
        chunk = chunks[target]
        start = chunk.start + int(rng.integers(0, max(1, len(chunk) - 150)))
        span = Span(chunk.doc_id, start, min(start + 150, chunk.end))
        questions.append(
            Question(f"q{q:05d}", f"synthetic question {q} about {rng.choice(WORDS)}", (span,), category=f"cat-{q % 6}")
        )
        for name in rows:
            row = rng.choice(len(chunks), 20, replace=False)
            row = row[row != target][:20]
            if rng.random() < 0.8:
                row = np.insert(row, int(rng.integers(0, 20)), target)[:20]
            rows[name].append(np.pad(row, (0, 20 - len(row)), constant_values=-1))
    lists = {name: np.array(r) for name, r in rows.items()}
    scores = {name: np.where(r >= 0, 1 / np.arange(1, 21), -np.inf) for name, r in lists.items()}
    stage_lists = StageLists({"bm25": lists["bm25"], "dense": lists["dense"]}, lists["fused"])
    diagnoses = diagnose(chunks, questions, stage_lists, tau=0.5)
    return RunFacts(
        title=f"Synthetic run: {n_questions} questions",
        dataset="synthetic",
        settings={"retrieval.mode": "hybrid"},
        documents=docs,
        chunks=chunks,
        questions=questions,
        stages=[Stage(name, lists[name], scores[name]) for name in ("bm25", "dense", "fused")],
        diagnoses=diagnoses,
        metrics={"hit@10": (0.5, 0.4, 0.6)},
        categories={f"cat-{c}": (n_questions // 6, {"hit@10": 0.5}) for c in range(6)},
        first_hits=[d.ranks["fused"] for d in diagnoses],
    )


def measure(page, path: Path) -> dict[str, float]:
    """Seconds to interactive, then to apply one class filter and one search (all in the page's clock)."""
    page.goto(path.as_uri(), timeout=300_000)
    page.wait_for_function("window.runPageReady !== undefined", timeout=300_000)
    page.wait_for_function("window.runPagePainted !== undefined", timeout=300_000)
    ready = page.evaluate("window.runPagePainted") / 1000  # first frame painted after the script ran
    filter_s = page.evaluate(
        """() => { const s = document.getElementById('filter-class'); const t = performance.now();
        s.value = 'fused-out'; s.dispatchEvent(new Event('change')); return (performance.now() - t) / 1000; }"""
    )
    search_s = page.evaluate(
        """() => { const i = document.getElementById('search'); document.getElementById('filter-class').value = '';
        const t = performance.now(); i.value = 'about token';
        document.getElementById('sort').dispatchEvent(new Event('change')); return (performance.now() - t) / 1000; }"""
    )
    return {"interactive": ready, "filter": filter_s, "search": search_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the checks here (for benchmarks/perf/run_all.py)")
    args = parser.parse_args()
    if chromium_path() is None:
        print(f"not measured: chromium missing ({CHROMIUM_MISSING})")
        report("Goal S5: run explorer page in Chromium", [], [])
        return
    from playwright.sync_api import sync_playwright

    started = time.perf_counter()
    view = run_view(synthetic_facts(args.questions))
    lazy = render_run_page(view)
    eager = lazy.replace("var BATCH = 40;", f"var BATCH = {args.questions};", 1)
    assert eager != lazy, "the page script no longer sets BATCH: update this benchmark"
    folder = Path(tempfile.mkdtemp(prefix="run-page-tti-"))
    try:
        (folder / "lazy.html").write_text(lazy, encoding="utf-8")
        (folder / "eager.html").write_text(eager, encoding="utf-8")
        print(
            f"built the page in {time.perf_counter() - started:.1f} s: {len(lazy.encode()) / 2**20:.1f} MiB, "
            f"{args.questions} questions"
        )
        chromium = chromium_path()
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            best: dict[str, dict[str, float]] = {}
            for _ in range(args.repeats):
                for name in ("lazy", "eager"):  # taking turns, so machine load moves both alike
                    page = browser.new_page(viewport={"width": 1280, "height": 900})
                    result = measure(page, folder / f"{name}.html")
                    page.close()
                    best[name] = {k: min(v, best.get(name, {}).get(k, v)) for k, v in result.items()}
            browser.close()
    finally:
        shutil.rmtree(folder)
    lazy_s, eager_s = best["lazy"]["interactive"], best["eager"]["interactive"]
    details = [
        f"{args.questions} synthetic questions, best of {args.repeats} loads, lazy and eager pages taking turns",
        f"time to interactive, eager (reference, every card rendered): {eager_s:.2f} s; eager / lazy "
        f"{eager_s / lazy_s:.1f}x",
        f"lazy page: class filter {best['lazy']['filter'] * 1e3:.0f} ms, search {best['lazy']['search'] * 1e3:.0f} ms",
    ]
    checks = [
        Check("S5 explorer", f"report.html, {args.questions} questions: seconds to interactive", lazy_s, "<", GOAL_S),
        Check("S5 explorer", "eager page / shipped page, time to interactive", eager_s / lazy_s, "info", 0.0),
    ]
    report("Goal S5: run explorer page in Chromium", checks, details)


def chromium_path() -> str | None:
    """``$RAG_BENCH_CHROMIUM``, else ``chromium`` on the PATH (Debian's package); None when neither exists."""
    return os.environ.get("RAG_BENCH_CHROMIUM") or shutil.which("chromium")


if __name__ == "__main__":
    main()
