"""The documentation cannot rot: every shell block it shows runs, and the site builds with ``--strict``.

Each ```` ```bash ```` block of README.md and docs/ is run as the reader would run it, page by page in
document order, in a fresh folder per page (so a block may use what an earlier block of its page wrote),
with ``bash -e`` and no API key. A block that cannot run here says why on the line before its fence:
``<!-- not run: needs VOYAGE_API_KEY -->`` (an HTML comment, invisible on the rendered page). Blocks shown
as output use another fence (```` ```text ````, ```` ```console ````) and are not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<why>\S.*?)\s*-->$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
BLOCK_TIMEOUT_S = 1200  # the longest block is a cold sweep on the default dataset


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, from 1
    lang: str
    text: str
    not_run: str | None  # the reason given, when the block is marked

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` with their language and ``not run`` reason."""
    found, lines = [], page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(opening["indent"]) :])
            i += 1
        before = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marked = NOT_RUN.match(before)
        found.append(Block(page, start + 1, opening["lang"], "\n".join(body) + "\n", marked and marked["why"]))
        i += 1
    return found


def shell_blocks(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.lang in ("bash", "sh", "shell")]


def runnable_pages() -> list[Path]:
    return [p for p in PAGES if any(b.not_run is None for b in shell_blocks(p))]


def test_blocks_are_parsed_from_a_page(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Run it:\n\n```bash\nrag-bench retrieval=bm25\n```\n\n"
        "<!-- not run: needs VOYAGE_API_KEY -->\n\n```bash\nrag-bench embedder=voyage\n```\n\n"
        "- a list item:\n  ```bash\n  rag-bench sweep=grid24\n  ```\n\n```text\nrecall@10 0.823\n```\n",
        encoding="utf-8",
    )
    found = blocks(page)
    assert [(b.line, b.lang, b.text, b.not_run) for b in found] == [
        (3, "bash", "rag-bench retrieval=bm25\n", None),
        (9, "bash", "rag-bench embedder=voyage\n", "needs VOYAGE_API_KEY"),
        (14, "bash", "rag-bench sweep=grid24\n", None),
        (18, "text", "recall@10 0.823\n", None),
    ]
    assert [b.line for b in shell_blocks(page)] == [3, 9, 14]


def test_every_fence_is_closed_and_every_shell_block_is_run_or_says_why():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        fences = [line for line in text.splitlines() if line.strip().startswith("```")]
        assert len(fences) % 2 == 0, f"{page.relative_to(ROOT)}: a code fence is not closed"
        for block in shell_blocks(page):
            assert block.not_run is None or len(block.not_run) > 3, f"{block.where}: say why it is not run"


def test_every_not_run_comment_stands_before_a_shell_block():
    """A marker that lost its block (the block moved, or its fence is ```text) would silently mark nothing."""
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        marked = {b.line for b in shell_blocks(page) if b.not_run}
        for number, line in enumerate(lines, 1):
            if NOT_RUN.match(line.strip()):
                following = next(n for n in range(number, len(lines)) if lines[n].strip()) + 1
                assert following in marked, f"{page.relative_to(ROOT)}:{number}: no shell block follows the marker"


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One cache for every page, as one reader's machine has: later pages reuse earlier pages' vectors."""
    return tmp_path_factory.mktemp("docs-cache")


@pytest.mark.slow
@pytest.mark.parametrize("page", runnable_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_blocks_of_the_page_run(page, tmp_path, shared_cache):
    """Each runnable block of the page, in order, in one fresh folder holding a copy of the committed baseline
    and gate rules (the pages gate against ``results/baseline`` as a user's clone would)."""
    shutil.copytree(ROOT / "results" / "baseline", tmp_path / "results" / "baseline")
    shutil.copyfile(ROOT / "results" / "gate.yaml", tmp_path / "results" / "gate.yaml")
    bin_dir = str(Path(sys.executable).parent)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_API_KEY", "_API_KEY_PATH", "_TOKEN")) and key != "PYTHONPATH"
    }
    env.update(RAG_BENCH_CACHE=str(shared_cache), PATH=bin_dir + os.pathsep + env.get("PATH", ""), HOME=str(tmp_path))
    for block in shell_blocks(page):
        if block.not_run:
            continue
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.text],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
        )
        assert done.returncode == 0, (
            f"{block.where}: exit {done.returncode}\n{block.text}\n--- stdout\n{done.stdout[-3000:]}"
            f"\n--- stderr\n{done.stderr[-3000:]}"
        )


def test_the_site_builds_strict(tmp_path):
    """``mkdocs build --strict``: every page in the nav, every link and anchor resolves."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
