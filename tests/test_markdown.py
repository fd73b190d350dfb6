"""Dataset text in every Markdown output renders as that text: no HTML, link, image or emphasis it did not ask for.

The oracle is a CommonMark renderer (markdown-it-py, with GFM's tables and strikethrough, raw HTML allowed as on
GitHub): a string escaped by ``rag_bench.core.markdown`` must render as a text node equal to the string itself.
"""

from __future__ import annotations

import json
import math
import string
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from rag_bench.core.markdown import md_code, md_link, md_text
from rag_bench.data.native import load_dataset
from rag_bench.gate.compare import Cell, Comparison
from rag_bench.gate.gate import Flip, GatePolicy, GateResult
from rag_bench.gate.render import compare_markdown, gate_markdown
from rag_bench.label.stats import health
from rag_bench.label.stats import markdown as stats_markdown
from rag_bench.report.blocks import Block, Link, to_markdown
from rag_bench.report.diff.flips import diff_markdown
from rag_bench.rewrite.report import Row
from rag_bench.rewrite.report import markdown as rewrite_markdown
from rag_bench.score.names import parse_metric

RENDER = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render
TEXT = (
    "Is <img src=x onerror=alert(1)> **bold** _it_ [link](https://evil.example) ![t](https://evil.example/t.png) "
    "<https://evil.example> `x` ~~y~~ $z$ &lt; | a cell?"
)
QID = "<b>q1</b>"
CATEGORY = "<script>alert(1)</script>"
HOSTILE = [
    TEXT,
    "<script>alert(1)</script>",
    "&lt;b&gt; &#60;i&#62; R&D",
    "a | b\n# heading\n- item\n\n<div>",
    "[r]: https://evil.example\n[r]",
    "<a@b.example> [x][r] [y][]",
    "1. one",
    "> quoted",
    "# h",
    "- - -",
    "+ plus",
    "<div class=x",
    "char_precision@10 [0.61, 0.70] <0.001",
]
STRUCTURE = {"h1", "h2", "h3", "h4", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "code", "strong"}


def shown(text: str) -> str:
    """``text`` as a renderer prints a text node: whitespace runs as one space, ``& < > "`` as entities."""
    flat = " ".join(text.split())
    return flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(markdown: str) -> list[tuple[str, dict]]:
    parser = _Tags()
    parser.feed(RENDER(markdown))
    return parser.tags


def assert_inert(markdown: str, *texts: str, links: tuple[str, ...] = ()) -> None:
    """Only the writer's own structure renders (and only its own links), and each text shows as itself."""
    found = tags(markdown)
    assert {t for t, _ in found} <= STRUCTURE | {"blockquote", "a"}, found
    assert tuple(a["href"] for t, a in found if t == "a") == links
    html = RENDER(markdown)
    for text in texts:
        assert shown(text) in html, (shown(text), html)


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("<b>x</b> | [y](z)", "&lt;b>x&lt;/b> \\| [y\\](z)"),
        ("char_precision@10 [0.61, 0.70] <0.001 R&D -0.003", "char_precision@10 [0.61, 0.70] <0.001 R&D -0.003"),
        ("_a_ *b* `c` ~d~ $e$ \\f", "\\_a\\_ \\*b\\* \\`c\\` \\~d\\~ \\$e\\$ \\\\f"),
        ("&lt; &#60; <a@b.c>", "&amp;lt; &amp;#60; &lt;a@b.c>"),
        ("two\nlines\tand  tabs", "two lines and tabs"),
    ],
)
def test_md_text_escapes_markup_only(text, escaped):
    assert md_text(text) == escaped


@pytest.mark.parametrize(("text", "escaped"), [("- x", "\\- x"), ("12) x", "12\\) x"), ("# h", "\\# h"), ("x", "x")])
def test_a_block_start_keeps_its_marker_as_text(text, escaped):
    assert md_text(text, starts_block=True) == escaped
    assert md_text(text) == text  # inside a line or a table cell the marker means nothing


def test_code_spans_and_links():
    assert md_code("a``b") == "```a``b```" and md_code("`x") == "`` `x ``" and md_code("a|b") == "`a\\|b`"
    assert md_link("a]b", "p (1)/r.html") == "[a]b](<p (1)/r.html>)" and md_link("d", "d.html") == "[d](d.html)"
    assert RENDER(md_link("x", "a b/<c>.html")) == '<p><a href="a%20b/%3Cc%3E.html">x</a></p>\n'


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_renders_as_itself(text):
    assert RENDER(md_text(text, starts_block=True)) == f"<p>{shown(text)}</p>\n"
    assert f"<td>{shown(text)}</td>" in RENDER(f"| h |\n|---|\n| {md_text(text)} |\n")
    assert f"<td><code>{shown(text)}</code></td>" in RENDER(f"| h |\n|---|\n| {md_code(text)} |\n")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab01 \n\t" + string.punctuation, min_size=1, max_size=40).filter(str.strip))
def test_any_text_renders_as_itself(text):
    assert RENDER(md_text(text, starts_block=True)) == f"<p>{shown(text)}</p>\n"
    assert f"<td>{shown(text)}</td>" in RENDER(f"| h |\n|---|\n| {md_text(text)} |\n")


def test_gate_and_compare(tmp_path):
    flip = Flip(QID, TEXT, 1.0, math.nan, lost=True)
    result = GateResult("runs/`a`", "runs/b", 6, GatePolicy(), (), {10: (flip,)})
    assert_inert(gate_markdown(result), QID, TEXT[:97] + "...", "runs/`a`")
    assert_inert(gate_markdown(result, diff="flips (1).html"), links=("flips%20(1).html",))
    metric = parse_metric("recall@10")
    first = Cell(metric, "<i>a</i>", 6, 0.5, 0.4, 0.6)
    cells = (first, Cell(metric, "b|c", 6, 0.4, 0.3, 0.5, -0.1, -0.2, 0.0, 0.2, 0.2))
    assert_inert(compare_markdown(Comparison(("<i>a</i>", "b|c"), 6, 0.05, cells)), "<i>a</i>", "b|c")


def test_diff():
    side = {"failure": "hit", "first_hit": 1, "top": [{"id": "d.md:0-9", "text": TEXT, "hit": True}]}
    flip = {
        "id": QID,
        "text": TEXT,
        "category": CATEGORY,
        "lost": True,
        "evidence": [{"doc": "<d>.md", "start": 0, "end": 9, "text": TEXT}],
        "relevant": ["<d>.md"],
        "before": side,
        "after": {**side, "failure": "not-retrieved", "first_hit": None, "top": []},
    }
    view = {"runs": ["<u>a</u>", "b"], "counts": {"lost": 1, "gained": 0}, "n_questions": 1, "report_k": 5}
    text = diff_markdown({**view, "flips": [flip]}, page="diff.html")
    assert_inert(text, QID, TEXT, CATEGORY, "<d>.md", "<u>a</u>", links=("diff.html",))


def test_sweep_report_blocks():
    blocks = [
        Block("h1", f"Sweep report: {CATEGORY}"),
        Block("ul", items=("- " + TEXT, "1. x")),
        Block("p", "# " + TEXT),
        Block("table", items=(["point", "value"], [Link("#0", "0/report.html"), TEXT]), bold_rows=frozenset({0})),
    ]
    assert_inert(to_markdown(blocks), CATEGORY, "- " + TEXT, "1. x", "# " + TEXT, links=("0/report.html",))


def test_rewrite_report():
    row = Row("recall@10", CATEGORY, "<i>variants</i>", 3, 0.5, 0.6, 0.1, 0.0, 0.2, 1, 0, 0.5, 0.5)
    assert_inert(rewrite_markdown([("runs/<x>", [row])]), CATEGORY, "<i>variants</i>", "runs/<x>")


def test_dataset_stats(tmp_path):
    folder = tmp_path / "ds"
    folder.mkdir()
    docs = [{"id": "<img/src=x>", "text": "Backups are kept for 35 days."}]
    evidence = [{"doc_id": docs[0]["id"], "text": "35"}]
    question = {"id": QID, "question": TEXT, "category": CATEGORY, "evidence": evidence}
    (folder / "documents.jsonl").write_text(json.dumps(docs[0]) + "\n", encoding="utf-8")
    (folder / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    assert_inert(stats_markdown(health(load_dataset(folder))), CATEGORY, "<img/src=x>")
