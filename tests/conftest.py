"""Shared fixtures: a real headless Chromium (Debian's package) driven by Playwright.

Pages under test are opened from files or from servers on 127.0.0.1. Tests that use
``browser`` skip with the reason when Playwright or Chromium is not installed
(``.ci/run`` installs both). Screenshots go to ``$RAG_BENCH_SCREENSHOTS``, else
``test-artifacts/screenshots/`` at the repository root, so CI can keep them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # tests run as root in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # the machine's network is closed: no update or sync traffic
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The Chromium to drive: ``$RAG_BENCH_CHROMIUM``, else ``chromium`` on the PATH."""
    return os.environ.get("RAG_BENCH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    """A Playwright ``Browser`` over the system Chromium, closed (its process stopped) at the end."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium found: apt-get install chromium, or set RAG_BENCH_CHROMIUM")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    """A fresh browser page (1280 x 900) whose network reaches only loopback and files."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", _loopback_only)
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


def _loopback_only(route) -> None:
    url = route.request.url
    local = url.startswith(("file:", "data:", "about:", "http://127.0.0.1", "http://localhost"))
    route.continue_() if local else route.abort()


@pytest.fixture
def screenshot(request):
    """``screenshot(page, name)`` saves a full-page PNG under the screenshots folder; returns its path."""
    default = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"
    folder = Path(os.environ.get("RAG_BENCH_SCREENSHOTS") or default)

    def take(opened, name: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{request.node.name}-{name}.png"
        opened.screenshot(path=str(path), full_page=True)
        return path

    return take


def pytest_collection_modifyitems(items) -> None:
    """A test that drives the browser (the ``browser`` or ``page`` fixture) is marked ``browser``."""
    for item in items:
        if {"browser", "page"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _api_run_folders_under_pytest(tmp_path_factory, monkeypatch):
    """A ``rag_bench.run`` or ``evaluate`` without ``out=`` writes its run folder under pytest's temporary
    folder (which pytest prunes), not into the system's /tmp; nothing else's temporary files move."""
    from rag_bench.entry import evaluate

    monkeypatch.setattr(evaluate, "TEMPORARY_RUNS", str(tmp_path_factory.mktemp("runs")))
