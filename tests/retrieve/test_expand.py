"""expand=parent|window|merge on a hand-made corpus: the units each returns, where, with which score."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk, Dataset, Document
from rag_bench.core.workspace import Workspace
from rag_bench.retrieve.base import Candidates, Corpus
from rag_bench.retrieve.expand.levels import assign, section_ranges
from rag_bench.retrieve.expand.registry import EXPANDERS
from rag_bench.retrieve.resources import Resources

TEXT = "# Guide\nIntro.\n## Alpha\nalpha one. alpha two.\n## Beta\nbeta one.\n### Beta 1\nbeta sub.\n"
OTHER = "Plain text with no heading at all."


def at(text: str, piece: str) -> tuple[int, int]:
    start = text.index(piece)
    return start, start + len(piece)


def chunk(doc: str, text: str, piece: str) -> Chunk:
    start, end = at(text, piece)
    return Chunk(doc, start, end, piece)


# corpus order: d's chunks by position, then e's
CHUNKS = [
    chunk("d", TEXT, "# Guide\nIntro."),  # 0
    chunk("d", TEXT, "## Alpha\nalpha one."),  # 1
    chunk("d", TEXT, "alpha two."),  # 2
    chunk("d", TEXT, "## Beta\nbeta one."),  # 3
    chunk("d", TEXT, "### Beta 1\nbeta sub."),  # 4
    chunk("e", OTHER, "Plain text"),  # 5
    chunk("e", OTHER, "with no heading at all."),  # 6
]
DOCS = (Document("d", TEXT), Document("e", OTHER))


def resources(tmp_path, chunks=CHUNKS) -> Resources:
    corpus = Corpus("hand-made", list(chunks))
    return Resources(Workspace(DiskCache(tmp_path)), corpus, Dataset("t", DOCS, ()))


def found(rows, chunks=CHUNKS, width=5):
    indices = np.full((len(rows), width), -1)
    scores = np.full((len(rows), width), -np.inf)
    for q, row in enumerate(rows):
        indices[q, : len(row)] = row
        scores[q, : len(row)] = [10.0 - j for j in range(len(row))]
    return Candidates(chunks, indices, scores)


def spans(result, q):
    return [
        (result.chunks[c].doc_id, result.chunks[c].start, result.chunks[c].end) for c in result.indices[q] if c >= 0
    ]


def test_sections_cut_before_headings_up_to_a_depth():
    guide, alpha, beta = at(TEXT, "# Guide\n")[0], at(TEXT, "## Alpha")[0], at(TEXT, "## Beta")[0]
    beta1 = at(TEXT, "### Beta 1")[0]
    assert section_ranges(TEXT, 6) == [(guide, alpha), (alpha, beta), (beta, beta1), (beta1, len(TEXT))]
    assert section_ranges(TEXT, 2) == [(0, alpha), (alpha, beta), (beta, len(TEXT))]  # ### stays inside ## Beta
    assert section_ranges(TEXT, 1) == [(0, len(TEXT))]
    assert section_ranges("no heading\n#hashtag is not one", 6) == [(0, 30)]


def test_each_chunk_goes_to_the_parent_holding_most_of_it():
    parents = [Chunk("d", 0, 10, ""), Chunk("d", 10, 30, ""), Chunk("e", 0, 5, "")]
    children = [
        Chunk("d", 2, 8, ""),
        Chunk("d", 8, 14, ""),
        Chunk("d", 5, 20, ""),
        Chunk("e", 1, 3, ""),
        Chunk("f", 0, 1, ""),
    ]
    tree = assign(children, parents)
    # [8, 14): 2 characters in the first, 4 in the second; [5, 20): 5 and 10; f has no parent
    assert tree.parent_of.tolist() == [0, 1, 1, 2, -1]
    assert tree.children.tolist() == [1, 2, 1]


def test_parent_returns_sections_once_where_their_best_child_ranked(tmp_path):
    expander = EXPANDERS.build(EXPANDERS.settings("parent", level="section", heading_depth=2), resources(tmp_path))
    result = expander.apply(found([[2, 4, 1, 5], [6]]))
    alpha, beta = at(TEXT, "## Alpha\nalpha one. alpha two.")[0], at(TEXT, "## Beta")[0]
    # chunk 2 and 1 -> the ## Alpha section (trimmed), chunk 4 -> ## Beta (its ### inside), chunk 5 -> document e
    assert spans(result, 0) == [
        ("d", alpha, alpha + len("## Alpha\nalpha one. alpha two.")),
        ("d", beta, len(TEXT) - 1),
        ("e", 0, len(OTHER)),
    ]
    assert result.scores[0, :3].tolist() == [10.0, 9.0, 7.0]  # each parent with its best child's score
    assert spans(result, 1) == [("e", 0, len(OTHER))]  # the same unit in another question: one table entry
    assert len(result.chunks) == len(CHUNKS) + 3 and result.chunks[: len(CHUNKS)] == CHUNKS
    assert result.chunks[-1].text == OTHER and result.stats.details["units"] == 3


def test_parent_document_level_and_a_retrievers_own_chunks(tmp_path):
    expander = EXPANDERS.build(EXPANDERS.settings("parent", level="document"), resources(tmp_path))
    own = [Chunk("d", 0, 5, "# Gui"), Chunk("e", 6, 10, "text")]  # not the corpus's chunks: parents by offsets
    result = expander.apply(found([[1, 0]], chunks=own))
    assert spans(result, 0) == [("e", 0, len(OTHER)), ("d", 0, len(TEXT) - 1)]


def test_window_returns_neighbours_within_the_document(tmp_path):
    expander = EXPANDERS.build(EXPANDERS.settings("window", size=1), resources(tmp_path))
    result = expander.apply(found([[2, 0, 5, 3]]))
    # 2 -> chunks 1..3; 0 -> 0..1; 5 -> 5..6 (document e); 3 -> 2..4
    assert spans(result, 0) == [
        ("d", CHUNKS[1].start, CHUNKS[3].end),
        ("d", CHUNKS[0].start, CHUNKS[1].end),
        ("e", CHUNKS[5].start, CHUNKS[6].end),
        ("d", CHUNKS[2].start, CHUNKS[4].end),
    ]
    same = EXPANDERS.build(EXPANDERS.settings("window", size=0), resources(tmp_path)).apply(found([[2, 0]]))
    assert same.indices[0, :2].tolist() == [2, 0] and same.chunks is CHUNKS  # size 0: the chunks themselves


def test_merge_replaces_children_when_enough_are_retrieved(tmp_path):
    settings = EXPANDERS.settings("merge", level="section", heading_depth=2, threshold=0.5)
    expander = EXPANDERS.build(settings, resources(tmp_path))
    # sections (depth 2): [0] {0}, Alpha {1, 2}, Beta {3, 4}; document e {5, 6}
    result = expander.apply(found([[1, 5, 3, 4], [0, 2, 6]]))
    alpha, beta = at(TEXT, "## Alpha")[0], at(TEXT, "## Beta")[0]
    # q0: 1 of Alpha's 2 (0.5: merged), 1 of e's 2 (merged), 2 of Beta's 2 (merged, where 3 ranked)
    assert spans(result, 0) == [
        ("d", alpha, alpha + len("## Alpha\nalpha one. alpha two.")),
        ("e", 0, len(OTHER)),
        ("d", beta, len(TEXT) - 1),
    ]
    strict = EXPANDERS.build(
        EXPANDERS.settings("merge", level="section", heading_depth=2, threshold=1.0), resources(tmp_path)
    )
    kept = strict.apply(found([[1, 5, 3, 4]]))
    assert spans(kept, 0)[:2] == [("d", CHUNKS[1].start, CHUNKS[1].end), ("e", CHUNKS[5].start, CHUNKS[5].end)]
    assert spans(kept, 0)[2] == ("d", beta, len(TEXT) - 1)  # both of Beta's chunks: merged at threshold 1


@pytest.mark.parametrize(
    ("option", "values", "message"),
    [
        ("window", {"size": -1}, r"expand.size \(-1\) must be 0 or more neighbouring chunks"),
        ("parent", {"level": "paragraph"}, r"expand.level \('paragraph'\) must be one of: section, document, chunk"),
        ("parent", {"heading_depth": 7}, r"expand.heading_depth \(7\) must lie between 1 and 6"),
        ("merge", {"threshold": 0.0}, r"expand.threshold \(0.0\) must lie in \(0, 1\]"),
        ("merge", {"threshold": 1.5}, r"expand.threshold \(1.5\) must lie in \(0, 1\]"),
    ],
)
def test_bad_settings(option, values, message):
    with pytest.raises(ConfigError, match=message):
        EXPANDERS.settings(option, **values)


def brute_parents(children, parents):
    out = []
    for c in children:
        best, most = -1, 0
        for p, u in enumerate(parents):
            held = min(c.end, u.end) - max(c.start, u.start)
            if u.doc_id == c.doc_id and held > most:
                best, most = p, held
        out.append(best)
    return out


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_assign_equals_a_brute_force_search(data):
    parents = []
    for doc in ("a", "b", "c"):  # each document cut into non-overlapping units, gaps allowed, in order
        cuts = sorted(set(data.draw(st.lists(st.integers(0, 60), max_size=8))))
        for start, end in zip(cuts, cuts[1:], strict=False):
            if data.draw(st.booleans()):
                parents.append(Chunk(doc, start, end, ""))
    spans = st.tuples(st.sampled_from("abcd"), st.integers(0, 59), st.integers(1, 30))
    children = [Chunk(d, s, s + n, "") for d, s, n in data.draw(st.lists(spans, max_size=12))]
    assert assign(children, parents).parent_of.tolist() == brute_parents(children, parents)
