"""The browser fixture itself: a real page renders, runs its script, and refuses the network."""


def test_page_runs_script_and_blocks_outside_network(page, tmp_path, screenshot):
    html = tmp_path / "p.html"
    html.write_text(
        "<p id=out>waiting</p><script>document.getElementById('out').textContent = 'ran';"
        "fetch('http://example.invalid/x').then(() => document.title = 'reached', () => document.title = 'blocked');"
        "</script>",
        encoding="utf-8",
    )
    page.goto(html.as_uri())
    page.wait_for_function("document.title !== ''")
    assert page.inner_text("#out") == "ran"
    assert page.title() == "blocked"
    assert screenshot(page, "fixture").stat().st_size > 0
