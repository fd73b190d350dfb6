"""expand=parent|window|merge against straightforward references on random corpora (seeded): the same units,
in the same order, with the same scores and the same chunk table, unit by unit.

The references do each question's list in a Python loop, and find sections with ``levels.parent_units``
(one document at a time) and parents by a brute-force search over every unit.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.types import Chunk, Dataset, Document
from rag_bench.core.workspace import Workspace
from rag_bench.index.bm25 import compiled
from rag_bench.retrieve.base import Candidates, Corpus
from rag_bench.retrieve.expand import sections
from rag_bench.retrieve.expand.levels import parent_units
from rag_bench.retrieve.expand.registry import EXPANDERS
from rag_bench.retrieve.expand.sections import level_units
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable

sys.path.insert(0, str(Path(__file__).parent))  # random_lists
from random_lists import random_lists  # noqa: E402

WORDS = ["alpha", "beta", "gamma", "delta", "Straße", "ünï", "x"]
GAPS = [" ", "\n", "\n\n", "\t", " \n ", "\r\n", "\u2003", "\x1c", " " * 20, "\n" * 18]
HEADS = ["# ", "## ", "### ", "###### ", "####### ", "#", "##\t", " ## "]


def random_document(rng: np.random.Generator, name: str, words=WORDS, gaps=GAPS) -> Document:
    """Markdown-ish text: words, whitespace runs (some long, some Unicode), heading lines of every depth."""
    parts = [str(rng.choice(gaps))] if rng.random() < 0.3 else []
    for _ in range(int(rng.integers(0, 30))):
        if rng.random() < 0.2:
            parts.append("\n" + str(rng.choice(HEADS)) + str(rng.choice(words)) + "\n")
        parts.append(str(rng.choice(words)) + str(rng.choice(gaps)))
    text = "".join(parts)
    if rng.random() < 0.1:
        text = str(rng.choice(HEADS)) + text  # a heading at the document's start
    if rng.random() < 0.05:
        text = str(rng.choice(["", "   ", "\n\n"]))  # empty, or whitespace only
    return Document(name, text)


def random_chunks(rng: np.random.Generator, docs: list[Document]) -> list[Chunk]:
    """Spans of each document in order of their start (overlapping, nested and repeated ones too)."""
    chunks = []
    for doc in docs:
        n = len(doc.text)
        if n == 0:
            continue
        spans = set()
        for _ in range(int(rng.integers(1, 8))):
            start = int(rng.integers(0, n))
            spans.add((start, int(rng.integers(start + 1, n + 1))))
        ordered = sorted(spans)
        if rng.random() < 0.2:
            ordered.append(ordered[-1])  # the same span twice: index() finds the last
        chunks += [Chunk(doc.id, a, b, doc.text[a:b]) for a, b in ordered]
    return chunks


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    docs = [random_document(rng, f"d{i}") for i in range(int(rng.integers(1, 7)))]
    chunks = random_chunks(rng, docs)
    while not chunks:
        docs.append(Document(f"d{len(docs)}", "alpha beta"))
        chunks = random_chunks(rng, docs)
    return docs, chunks, random_lists(rng, chunks, 6, 9)


def resources(tmp_path, docs, chunks) -> Resources:
    return Resources(Workspace(DiskCache(tmp_path)), Corpus("random", chunks), Dataset("r", tuple(docs), ()))


class Table:
    """The chunk table as UnitTable makes it, written out: a span is its last base chunk, else one new unit."""

    def __init__(self, base, docs):
        self.base, self.docs, self.added, self.at = list(base), {d.id: d for d in docs}, [], {}
        for i, c in enumerate(base):
            self.at[c.doc_id, c.start, c.end] = i

    def index(self, doc, start, end):
        if (doc, start, end) not in self.at:
            self.at[doc, start, end] = len(self.base) + len(self.added)
            self.added.append(Chunk(doc, start, end, self.docs[doc].text[start:end]))
        return self.at[doc, start, end]


def brute_parent(chunk, units):
    best, most = -1, 0
    for p, u in enumerate(units):
        held = min(chunk.end, u.end) - max(chunk.start, u.start)
        if u.doc_id == chunk.doc_id and held > most:
            best, most = p, held
    return best


def lists(found):
    return [
        [(int(c), float(s)) for c, s in zip(r, v, strict=True) if c >= 0]
        for r, v in zip(found.indices, found.scores, strict=True)
    ]


def reference_parent(found, docs, level, depth):
    units = parent_units(level, depth, docs, None, 0)
    table, rows, returned = Table(found.chunks, docs), [], set()
    for row in lists(found):
        seen, out = set(), []
        for c, s in row:
            p = brute_parent(found.chunks[c], units)
            key = ("p", p) if p >= 0 else ("c", c)
            if key not in seen:
                seen.add(key)
                out.append((key, s))
                returned |= {p} if p >= 0 else set()
        rows.append(out)
    unit_of = {p: table.index(units[p].doc_id, units[p].start, units[p].end) for p in sorted(returned)}
    return [[(unit_of[k[1]] if k[0] == "p" else k[1], s) for k, s in out] for out in rows], table


def reference_merge(found, docs, level, depth, threshold):
    units = parent_units(level, depth, docs, None, 0)
    parent = [brute_parent(c, units) for c in found.chunks]
    children = [parent.count(p) for p in range(len(units))]
    table, rows, returned = Table(found.chunks, docs), [], set()
    for row in lists(found):
        count = {}
        for c, _ in row:
            if parent[c] >= 0:
                count[parent[c]] = count.get(parent[c], 0) + 1
        seen, out = set(), []
        for c, s in row:
            p = parent[c]
            key = ("p", p) if p >= 0 and count[p] >= threshold * children[p] else ("c", c)
            if key not in seen:
                seen.add(key)
                out.append((key, s))
                returned |= {p} if key[0] == "p" else set()
        rows.append(out)
    unit_of = {p: table.index(units[p].doc_id, units[p].start, units[p].end) for p in sorted(returned)}
    return [[(unit_of[k[1]] if k[0] == "p" else k[1], s) for k, s in out] for out in rows], table


def reference_window(found, docs, size):
    chunks, table, rows = found.chunks, Table(found.chunks, docs), []
    for row in lists(found):
        seen, out = set(), []
        for c, s in row:
            same = [i for i in range(len(chunks)) if chunks[i].doc_id == chunks[c].doc_id]
            lo = [
                i
                for i in same
                if c - size <= i <= c + size
                and all(chunks[j].doc_id == chunks[c].doc_id for j in range(min(i, c), max(i, c) + 1))
            ]
            key = (min(lo), max(lo))
            if key not in seen:
                seen.add(key)
                end = max(chunks[i].end for i in range(key[0], key[1] + 1))  # any chunk of the window may end last
                out.append((table.index(chunks[c].doc_id, chunks[key[0]].start, end), s))
        rows.append(out)
    return rows, table


def check(result, rows, table):
    assert lists(result) == rows
    assert [(c.doc_id, c.start, c.end, c.text) for c in result.chunks] == [
        (c.doc_id, c.start, c.end, c.text) for c in [*table.base, *table.added]
    ]


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("ascii_only", [False, True])  # ASCII texts: headings and trims found on their bytes
@pytest.mark.parametrize("scan", ["c", "numpy", "numpy in small blocks"])  # how ASCII headings are found
def test_section_and_document_units_equal_parent_units(monkeypatch, seed, ascii_only, scan):
    if scan != "c":
        monkeypatch.setattr(compiled, "LOOPS", None)
    if scan == "numpy in small blocks":
        monkeypatch.setattr(sections, "_BLOCK", 7)
    words, gaps = ([w for w in WORDS if w.isascii()], [g for g in GAPS if g.isascii()]) if ascii_only else (WORDS, GAPS)
    docs = [random_document(np.random.default_rng(seed), f"d{i}", words, gaps) for i in range(8)]
    assert all(d.text.isascii() for d in docs) or not ascii_only
    for level, depth in (("section", 6), ("section", 2), ("section", 1), ("document", 6)):
        units = level_units(level, depth, docs, None, 0)
        spans = [
            (units.doc_ids[d], s, e)
            for d, s, e in zip(units.doc.tolist(), units.start.tolist(), units.end.tolist(), strict=True)
        ]
        assert spans == [(u.doc_id, u.start, u.end) for u in parent_units(level, depth, docs, None, 0)]


@pytest.mark.parametrize("seed", range(40))
def test_parent_merge_and_window_equal_their_references(tmp_path, seed):
    docs, chunks, found = random_case(seed)
    res = resources(tmp_path, docs, chunks)
    for level, depth in (("section", 6), ("section", 2), ("document", 6)):
        parent = EXPANDERS.build(EXPANDERS.settings("parent", level=level, heading_depth=depth), res)
        check(parent.apply(found), *reference_parent(found, docs, level, depth))
        own = [Chunk(c.doc_id, c.start, c.end, c.text) for c in chunks]  # a retriever's own table: equal spans
        check(
            parent.apply(Candidates(own, found.indices, found.scores)),
            *reference_parent(Candidates(own, found.indices, found.scores), docs, level, depth),
        )
        for threshold in (0.3, 0.5, 1.0):
            merge = EXPANDERS.build(
                EXPANDERS.settings("merge", level=level, heading_depth=depth, threshold=threshold), res
            )
            check(merge.apply(found), *reference_merge(found, docs, level, depth, threshold))
    for size in (0, 1, 2):
        window = EXPANDERS.build(EXPANDERS.settings("window", size=size), res)
        check(window.apply(found), *reference_window(found, docs, size))


@pytest.mark.parametrize("seed", range(20))
def test_index_spans_equals_index_one_span_at_a_time(seed):
    rng = np.random.default_rng(seed)
    docs = [Document(f"d{i}", "abcdefghij" * 3) for i in range(3)]
    spans = [(f"d{int(rng.integers(3))}", int(a), int(a) + int(rng.integers(1, 5))) for a in rng.integers(0, 20, 12)]
    base = [Chunk(d, s, e, "") for d, s, e in spans[:6]]  # repeated spans among them: the last one counts
    names = [d.id for d in docs]
    doc = np.array([names.index(d) for d, _, _ in spans[3:]], dtype=np.int64)
    start, end = (np.array([span[k] for span in spans[3:]], dtype=np.int64) for k in (1, 2))
    expected = Table(base, docs)
    wanted = [expected.index(*span) for span in spans[3:]]
    by_dict, by_arrays = UnitTable(base, {d.id: d for d in docs}), UnitTable(base, {d.id: d for d in docs})
    arrays = (
        np.array([names.index(c.doc_id) for c in base]),
        np.array([c.start for c in base]),
        np.array([c.end for c in base]),
    )
    assert by_dict.index_spans(names, doc, start, end).tolist() == wanted
    assert by_arrays.index_spans(names, doc, start, end, arrays).tolist() == wanted
    for table in (by_dict, by_arrays):
        assert [(c.doc_id, c.start, c.end, c.text) for c in table.added] == [
            (c.doc_id, c.start, c.end, c.text) for c in expected.added
        ]
        assert table.index(*spans[-1]) == wanted[-1]  # index() after them finds the same units


@pytest.mark.parametrize(
    "texts", [[], [""], ["  \n"], ["", "# x\n\n## y"], ["#", "\n# a"], ["## a\n" + " " * 40 + "\n## b  \t\n"]]
)
def test_units_of_empty_and_whitespace_documents(texts):
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    for level in ("section", "document"):
        units = level_units(level, 6, docs, None, 0)
        spans = list(zip(units.doc.tolist(), units.start.tolist(), units.end.tolist(), strict=True))
        expected = [(u.doc_id, u.start, u.end) for u in parent_units(level, 6, docs, None, 0)]
        assert [(units.doc_ids[d], s, e) for d, s, e in spans] == expected
