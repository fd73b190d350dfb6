"""The run explorer page in a real Chromium: what a person sees."""

import pytest

from rag_bench.report.run.page import write_run_page
from rag_bench.report.run.view import run_view

from .pages import EXPECTED, facts, many


@pytest.fixture
def opened(page, tmp_path):
    """open(facts) writes the page and opens it; waits until the script has rendered the first batch."""

    def open_page(run=None):
        path = write_run_page(run_view(run or facts()), tmp_path / "report.html")
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path.as_uri())
        page.wait_for_function("window.runPageReady !== undefined")
        assert errors == []
        return page

    return open_page


def shown_ids(page):
    return page.eval_on_selector_all("#questions article", "nodes => nodes.map(n => n.dataset.id)")


def test_a_known_miss_shows_its_evidence_and_class(opened, screenshot):
    page = opened()
    card = page.locator('article[data-id="q-cut"]')
    assert card.locator(".badge").inner_text() == "boundary"
    assert card.locator(".qtext").inner_text() == "What comes after installing?"
    evidence = card.locator(".evidence")
    assert evidence.is_visible() and "Then restart the service." in evidence.inner_text()
    assert "guide.md [25, 50)" in evidence.inner_text()
    # the top chunk holds the evidence's first 9 characters: exactly those are highlighted
    first = card.locator(".chunk").first
    assert first.locator(".id").inner_text() == "guide.md:0-34"
    assert first.locator("mark").all_inner_texts() == ["Then rest"]
    assert "bm25 #1 (10) \u00b7 dense - \u00b7 fused #1 (0.03)" in first.locator(".head").inner_text()
    screenshot(page, "known-miss")


def test_misses_come_first_open_and_hits_closed(opened):
    page = opened()
    assert shown_ids(page) == ["q-fused", "q-cut", "q-wrong", "q-far", "q-hit", "q-none"]
    opened_cards = page.eval_on_selector_all("#questions details", "nodes => nodes.map(n => n.open)")
    assert opened_cards == [True, True, True, True, False, False]
    assert page.locator('article[data-id="q-hit"] .evidence').is_hidden()


def test_filtering_by_class_hides_the_others(opened, screenshot):
    page = opened()
    page.select_option("#filter-class", "fused-out")
    assert shown_ids(page) == ["q-fused"]
    assert page.inner_text("#status") == "showing 1 of 1 questions (filtered from 6)"
    page.select_option("#filter-class", "misses")
    assert shown_ids(page) == ["q-fused", "q-cut", "q-wrong", "q-far"]
    screenshot(page, "every-miss")
    page.select_option("#filter-category", "a")
    assert shown_ids(page) == ["q-cut"]


def test_a_count_in_the_failure_table_filters_the_list(opened):
    page = opened()
    counts = page.locator("#failures tbody tr").first.locator("td").all_inner_texts()
    # all: lost-by-parser, crowded-out, reranked-out, diversified-out, expanded-out, fused-out, below-k ... unlabelled
    assert counts == ["0", "0", "0", "0", "0", "1", "0", "1", "1", "1", "1", "1"]
    page.click('td.count[data-category="b"][data-failure="wrong-document"]')
    assert shown_ids(page) == ["q-wrong"]
    assert page.input_value("#filter-category") == "b"


def test_search_by_text_and_sort_by_rank(opened):
    page = opened()
    page.fill("#search", "REFUNDS")
    page.wait_for_function("document.querySelectorAll('#questions article').length === 1")
    assert shown_ids(page) == ["q-fused"]
    page.fill("#search", "")
    page.wait_for_function("document.querySelectorAll('#questions article').length === 6")
    page.select_option("#sort", "rank-asc")  # first hit at rank 1, then 4, then none (question order)
    assert shown_ids(page) == ["q-hit", "q-fused", "q-cut", "q-wrong", "q-far", "q-none"]
    page.select_option("#sort", "rank-desc")
    assert shown_ids(page)[:2] == ["q-cut", "q-wrong"] and shown_ids(page)[-2:] == ["q-fused", "q-hit"]


def test_the_header_shows_metrics_categories_and_settings(opened):
    page = opened()
    assert page.inner_text("h1") == "Run report: hand-made"
    assert "0.250 [0.000, 0.750]" in page.inner_text("#metrics")
    assert page.locator("#categories tbody tr").count() == 2
    page.click("details.settings summary")
    assert "embedder.dimension" in page.inner_text("details.settings") and "null" in page.inner_text("details.settings")


def test_many_questions_render_in_batches_as_the_reader_scrolls(opened):
    page = opened(many(500))
    assert len(shown_ids(page)) == 40
    assert page.inner_text("#status") == "showing 40 of 500 questions"
    page.locator("#more").scroll_into_view_if_needed()  # reaching the end of the list renders the next batch
    page.wait_for_function("document.querySelectorAll('#questions article').length === 80")
    page.evaluate("window.scrollTo(0, 0)")
    page.select_option("#filter-class", "hit")
    assert page.inner_text("#status") == "showing 40 of 84 questions (filtered from 500)"
    assert set(page.eval_on_selector_all("#questions article", "n => n.map(x => x.dataset.failure)")) == {"hit"}


def test_every_class_of_the_fixture_is_on_the_page(opened):
    page = opened()
    badges = page.eval_on_selector_all("#questions .badge", "nodes => nodes.map(n => n.textContent)")
    assert sorted(badges) == sorted(EXPECTED)
