"""Regenerate docs/images/run-report.png, run-report-miss.png and diff.png from results/examples/kestrel-kb/.

python docs/images/run_report_screenshots.py     # after regenerating the example pages (results/examples/README.md)
"""

from pathlib import Path

from playwright.sync_api import sync_playwright

EXAMPLES = Path("results/examples/kestrel-kb").resolve()
OUT = Path("docs/images")

with sync_playwright() as p:
    flags = ["--headless", "--no-sandbox", "--disable-gpu"]
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=flags)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto((EXAMPLES / "report-hybrid.html").as_uri())
    page.wait_for_selector("#filter-class")
    page.screenshot(path=str(OUT / "run-report.png"))
    page.select_option("#filter-class", "fused-out")
    top = "document.querySelector('#filter-class').getBoundingClientRect().top + window.scrollY - 10"
    page.evaluate(f"window.scrollTo(0, {top})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(OUT / "run-report-miss.png"))
    page.goto((EXAMPLES / "diff-bm25-hybrid.html").as_uri())
    page.wait_for_timeout(300)
    page.screenshot(path=str(OUT / "diff.png"))
    browser.close()
