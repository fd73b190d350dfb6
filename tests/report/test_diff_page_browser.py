"""The diff page in a real Chromium: every flip listed, both rankings side by side."""

from rag_bench.report.diff.flips import diff_view
from rag_bench.report.diff.page import render_diff_page
from rag_bench.report.run.view import run_view

from .pages import FUSED_B, facts


def test_the_diff_page_lists_each_flip_side_by_side(page, screenshot, tmp_path):
    view = diff_view(run_view(facts()), run_view(facts(fused=FUSED_B)), labels=("hybrid", "hybrid-b"))
    path = tmp_path / "diff.html"
    path.write_text(render_diff_page(view), encoding="utf-8")
    page.goto(path.as_uri())
    flips = page.locator("section.flip")
    assert flips.count() == 2
    assert page.eval_on_selector_all("section.flip", "n => n.map(x => x.dataset.id)") == ["q-hit", "q-fused"]
    assert page.inner_text("#summary") == "1 lost (hit -> miss), 1 gained (miss -> hit), of 6 questions."
    lost = flips.first
    assert lost.locator("h3").inner_text() == "lost Which port does the agent use?"
    assert "class hit -> fused-out" in lost.locator(".meta").first.inner_text()
    assert "The port is 8443" in lost.locator(".evidence").inner_text()
    before, after = lost.locator(".before"), lost.locator(".after")
    assert before.locator("h4").inner_text() == "hybrid: hit, first hit at rank 1"
    assert after.locator("h4").inner_text() == "hybrid-b: fused-out, first hit at rank 3"
    assert before.locator(".chunk .id").all_inner_texts() == ["guide.md:34-99", "guide.md:0-34"]
    assert after.locator(".chunk .id").all_inner_texts() == ["guide.md:0-34", "faq.md:40-91"]
    assert before.locator("mark").all_inner_texts() == ["The port is 8443"]
    # side by side: the two rankings share one row of the page
    box_before, box_after = before.bounding_box(), after.bounding_box()
    assert box_before["x"] < box_after["x"] and abs(box_before["y"] - box_after["y"]) < 1
    screenshot(page, "diff")
