"""The sweep report in a real Chromium: the tables fit the 1200-px body, p-values on screen."""

from rag_bench.report.sweep.cli import report_sweep


def grid(make_point, root):
    """24 points, four swept settings (as sweep=grid24), five questions each."""
    num = 0
    for size in (400, 800, 1200):
        for overlap in (0, 0.15):
            for mode in ("bm25", "hybrid"):
                for reranker in ("none", "maxsim"):
                    value = size / 2000 + overlap + (mode == "hybrid") * 0.1
                    overrides = [
                        f"chunker.size={size}",
                        f"chunker.overlap={overlap}",
                        f"retrieval={mode}",
                        f"reranker={reranker}",
                    ]
                    scores = {m: [min(value, 1.0)] * 4 + [0.0] for m in ("ndcg@10", "recall@5", "recall@10")}
                    make_point(root / str(num), overrides, scores, config={"chunker.size": size})
                    num += 1
    return root


def test_tables_fit_the_body_and_the_holm_column_is_on_screen(page, screenshot, make_point, tmp_path):
    root = grid(make_point, tmp_path / "sweep")
    report_sweep(root)
    page.goto((root / "report.html").as_uri())
    body = page.evaluate("document.body.getBoundingClientRect().right")
    assert body <= 1280
    for table in page.locator("table").all():
        assert table.bounding_box()["x"] + table.bounding_box()["width"] <= body + 0.5
    holm = page.locator("th", has_text="p (Holm)")
    box = holm.bounding_box()
    assert box["x"] + box["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # no sideways scrolling
    screenshot(page, "sweep-report")
