"""Regenerate docs/images/label-app.png: the labelling app on a copy of kestrel-kb with a run's misses.

rag-bench hydra.run.dir=/tmp/label-run            # the default configuration's run
cp -r datasets/kestrel-kb /tmp/label-kb           # a copy: nothing is saved, but the app may write
python docs/images/label_app_screenshot.py /tmp/label-kb /tmp/label-run
"""

import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from rag_bench.label.cli import build_app
from rag_bench.label.server import LabelServer

app = build_app(Path(sys.argv[1]), run=Path(sys.argv[2]), k=10)
server = LabelServer(app, 0)
threading.Thread(target=server.serve_forever, daemon=True).start()
try:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = b.new_page(viewport={"width": 1400, "height": 860})
        page.goto(server.url)
        page.wait_for_selector("#questions li")
        page.select_option("#q-show", "misses")
        page.fill("#search-q", "KOS-E1107 rollout")
        page.click("#search-form button")
        page.locator("#results li").first.wait_for()
        target = "technical/engineering/kestrelos-release-process.md"
        page.locator(f"#results li[data-doc='{target}']").first.click()
        page.wait_for_timeout(500)
        doc = app.documents[target]
        phrase = "any unit reports `KOS-E1107` (signature mismatch)"
        start = doc.text.find(phrase)
        rect = page.evaluate(
            """([s, e]) => {
          const w = document.createTreeWalker(document.getElementById('doc-text'), NodeFilter.SHOW_TEXT);
          let seen = 0, n; const r = document.createRange(); let a = null, z = null;
          while ((n = w.nextNode())) { const c = Array.from(n.data);
            if (a === null && seen + c.length > s) { a = [n, c.slice(0, s - seen).join('').length]; }
            if (z === null && seen + c.length >= e) { z = [n, c.slice(0, e - seen).join('').length]; }
            seen += c.length; }
          r.setStart(a[0], a[1]); r.setEnd(z[0], z[1]); const rs = r.getClientRects();
          const f = rs[0], l = rs[rs.length - 1];
          return [f.left + 1, f.top + f.height / 2, l.right - 1, l.top + l.height / 2];
        }""",
            [start, start + len(phrase)],
        )
        page.mouse.move(rect[0], rect[1])
        page.mouse.down()
        page.mouse.move(rect[2], rect[3], steps=6)
        page.mouse.up()
        page.wait_for_selector("#add-evidence:enabled")
        page.click("#add-evidence")
        page.fill("#q-text", "What stops an OTA rollout wave straight away?")
        page.fill("#q-category", "paraphrase")
        page.fill("#q-answer", "The wave halts automatically.")
        page.mouse.move(rect[0], rect[1])
        page.mouse.down()
        page.mouse.move(rect[2], rect[3], steps=6)
        page.mouse.up()
        page.wait_for_timeout(300)
        Path("docs/images").mkdir(parents=True, exist_ok=True)
        page.screenshot(path="docs/images/label-app.png")
        b.close()
finally:
    server.shutdown()
    server.server_close()
