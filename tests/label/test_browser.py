"""The page in Chromium: search, select evidence with the mouse, save, reload, and a run scores the question."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd

from rag_bench.data.native import load_dataset
from rag_bench.label.cli import build_app

# Where characters [start, end) of the open document are on screen: walks the text nodes of
# #doc-text counting code points (independently of the page's own code).
RECT_OF = """([start, end]) => {
  const walker = document.createTreeWalker(document.getElementById("doc-text"), NodeFilter.SHOW_TEXT);
  let seen = 0, range = document.createRange(), node;
  const place = (target, setter) => {
    walker.currentNode = walker.root; seen = 0;
    while ((node = walker.nextNode())) {
      const chars = Array.from(node.data);
      if (seen + chars.length > target) { setter(node, chars.slice(0, target - seen).join("").length); return; }
      seen += chars.length;
    }
  };
  place(start, (n, o) => range.setStart(n, o));
  const first = range.cloneRange(); place(start + 1, (n, o) => first.setEnd(n, o));
  const last = document.createRange();
  place(end - 1, (n, o) => last.setStart(n, o));
  place(end, (n, o) => last.setEnd(n, o));
  const a = first.getBoundingClientRect(), b = last.getBoundingClientRect();
  return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2];
}"""

PHRASE = "retained for seven years"


def drag_select(page, start: int, end: int) -> None:
    """Press the mouse on the first character's left edge, release on the last one's right edge."""
    x0, y0, x1, y1 = page.evaluate(RECT_OF, [start, end])
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def test_write_a_question_with_a_mouse_selected_span(page, dataset, guide, serve, screenshot, tmp_path):
    server = serve(build_app(dataset))
    page.goto(server.url)
    page.wait_for_selector("#questions li[data-question='kb-002']")

    page.fill("#search-q", "audit regulator")
    page.click("#search-form button")
    result = page.locator("#results li").first
    result.wait_for()
    assert result.locator("mark").all_inner_texts() == ["Audit", "regulator"]
    result.click()
    page.wait_for_function("document.getElementById('doc-title').textContent === 'Retention guide'")

    start = guide.index(PHRASE)  # 100: CRLFs count two, the emoji one
    assert start == 100
    drag_select(page, start, start + len(PHRASE))
    page.wait_for_selector("#add-evidence:enabled")
    assert page.inner_text("#selection-info").startswith("[100, 124)")
    page.click("#add-evidence")
    page.fill("#q-text", "How long are audit logs kept?")
    page.fill("#q-category", "paraphrase")
    page.fill("#q-answer", "Seven years.")
    screenshot(page, "before-save")
    page.click("#save")
    page.wait_for_selector("#status.ok")
    assert page.inner_text("#status") == "saved kb-003"

    page.reload()
    page.wait_for_selector("#questions li[data-question='kb-003']")
    page.click("#questions li[data-question='kb-003']")
    assert page.input_value("#q-text") == "How long are audit logs kept?"
    assert page.locator("#evidence li").inner_text().startswith("guide.md [100, 124) retained for seven years")
    assert page.locator("#doc-text mark.draft").inner_text() == PHRASE
    screenshot(page, "after-reload")

    rows = [json.loads(line) for line in (dataset / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows[2] == {
        "id": "kb-003",
        "question": "How long are audit logs kept?",
        "evidence": [{"doc_id": "guide.md", "start": 100, "end": 124, "text": PHRASE}],
        "answer": "Seven years.",
        "category": "paraphrase",
    }
    span = load_dataset(dataset).questions[2].spans[0]
    assert guide[span.start : span.end] == PHRASE

    run_dir = tmp_path / "run"
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    command = [
        sys.executable,
        "-m",
        "rag_bench",
        f"dataset.path={dataset}",
        "embedder=fake",
        f"hydra.run.dir={run_dir}",
    ]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "3 questions scored" in done.stdout
    table = pd.read_csv(run_dir / "per_question.csv", dtype={"question_id": str}).set_index("question_id")
    scored = table.loc["kb-003"]
    assert bool(scored["labelled"]) and scored["hit@20"] == 1.0  # 2 short documents: every chunk is retrieved
    assert scored["first_hit_rank"] >= 1


def test_the_page_shows_an_api_refusal_and_keeps_the_form(page, dataset, serve):
    server = serve(build_app(dataset))
    page.goto(server.url)
    page.wait_for_selector("#questions li[data-question='kb-001']")
    before = (dataset / "questions.jsonl").read_bytes()
    page.fill("#q-text", "   ")
    page.click("#save")
    page.wait_for_selector("#status.error")
    assert "question: must not be empty" in page.inner_text("#status")
    (dataset / "questions.jsonl").write_bytes(before + b'{"id": "kb-077", "question": "From an editor"}\n')
    page.fill("#q-text", "A real question?")
    page.click("#save")
    page.wait_for_function("document.getElementById('status').textContent.includes('changed on disk')")
    assert page.input_value("#q-text") == "A real question?"  # nothing typed is lost
    assert (dataset / "questions.jsonl").read_bytes().endswith(b'"From an editor"}\n')
    page.click("#reload")
    page.wait_for_selector("#questions li[data-question='kb-077']")
    page.click("#save")
    page.wait_for_function("document.getElementById('status').textContent === 'saved kb-078'")
    assert [q.id for q in load_dataset(dataset).questions] == ["kb-001", "kb-002", "kb-077", "kb-078"]
