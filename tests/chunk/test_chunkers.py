import string
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.chunk.fixed import fixed_windows
from rag_bench.chunk.prefix import heading_trail
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.settings import ChunkerTools, SizedChunkerConfig, resolve_overlap
from rag_bench.chunk.units import measure
from rag_bench.core.types import Document
from rag_bench.testing import FakeEmbedder

ALPHABET = string.ascii_letters + "  ..!?,;\n#-_0123456789"
texts = st.text(alphabet=ALPHABET, min_size=0, max_size=600)
# every registered chunker that cuts any text by size (``given`` reproduces a manifest instead)
STRATEGIES = sorted(name for name, entry in CHUNKERS.items() if issubclass(entry.schema, SizedChunkerConfig))
UNITS = ["chars", "words", "tokens"]


def chunker(strategy, unit, size, overlap, prefix="none"):
    fake = FakeEmbedder()
    settings = {"unit": unit, "size": size, "prefix": prefix, "overlap": overlap}
    names = {f.name for f in fields(CHUNKERS[strategy].schema)}
    settings = {k: v for k, v in settings.items() if k in names}  # semantic and cluster have no overlap
    if "piece_size" in names:
        settings["piece_size"] = max(size // 3, 3 if unit == "tokens" else 1)
    tools = ChunkerTools(fake.token_spans, 2 if unit == "tokens" else 0, lambda texts: fake.embed(texts, "document"))
    return CHUNKERS.build(CHUNKERS.settings(strategy, **settings), tools)


def test_the_shared_properties_cover_every_sized_chunker():
    assert {"fixed", "recursive", "langchain", "sentence", "semantic", "cluster"} <= set(STRATEGIES)


@settings(max_examples=150, deadline=None)
@given(
    text=texts,
    strategy=st.sampled_from(STRATEGIES),
    unit=st.sampled_from(UNITS),
    size=st.integers(3, 80),
    overlap_share=st.floats(0, 0.9),
)
def test_offsets_are_exact_and_every_word_is_covered(text, strategy, unit, size, overlap_share):
    overlap = int(overlap_share * (size - 2 if unit == "tokens" else size))
    doc = Document("d", text)
    chunks = chunker(strategy, unit, size, overlap).split(doc)
    for c in chunks:
        assert text[c.start : c.end] == c.text and c.text == c.text.strip() and c.text
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    starts = [c.start for c in chunks]
    assert starts == sorted(starts)


@settings(max_examples=150, deadline=None)
@given(text=texts, strategy=st.sampled_from(STRATEGIES), size=st.integers(1, 60))
def test_char_chunks_never_exceed_size(text, strategy, size):
    for c in chunker(strategy, "chars", size, 0).split(Document("d", text)):
        assert len(c) <= size


@settings(max_examples=100, deadline=None)
@given(text=texts, strategy=st.sampled_from(["recursive", "sentence"]), size=st.integers(2, 30))
def test_word_chunks_never_exceed_size(text, strategy, size):
    for c in chunker(strategy, "words", size, 0).split(Document("d", text)):
        assert len(c.text.split()) <= size or len(c.text.split()) == 1


def test_fixed_char_windows_by_hand():
    units = measure("abcdefghij", "chars")
    assert fixed_windows(units, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert fixed_windows(units, 5, 0) == [(0, 5), (5, 10)]
    assert fixed_windows(units, 20, 0) == [(0, 10)]


def test_fixed_word_windows_overlap_by_whole_words():
    doc = Document("d", "one two three four five six seven")
    chunks = chunker("fixed", "words", 3, 1).split(doc)
    assert [c.text for c in chunks] == ["one two three", "three four five", "five six seven"]


def test_token_windows_count_special_tokens():
    doc = Document("d", "a b c d e f")
    # size 4 tokens = [CLS] + 2 words + [SEP]
    assert [c.text for c in chunker("fixed", "tokens", 4, 0).split(doc)] == ["a b", "c d", "e f"]


def test_recursive_prefers_paragraphs_then_sentences():
    text = "First one here. Second one.\n\nThird paragraph is here."
    chunks = chunker("recursive", "chars", 30, 0).split(Document("d", text))
    assert [c.text for c in chunks] == ["First one here. Second one.", "Third paragraph is here."]


def test_sentence_chunker_packs_whole_sentences_with_overlap():
    text = "A b. C d. E f. G h."
    chunks = chunker("sentence", "words", 4, 2).split(Document("d", text))
    assert [c.text for c in chunks] == ["A b. C d.", "C d. E f.", "E f. G h."]


def test_heading_trail_and_prefixes():
    text = "# Report\nintro\n## Security\ntext\n### Incidents\nbody\n## Finance\nmoney"
    trail = heading_trail(text)
    assert trail(text.index("intro")) == "Report"
    assert trail(text.index("body")) == "Report > Security > Incidents"
    assert trail(text.index("money")) == "Report > Finance"
    doc = Document("r.md", text, title="Report")
    chunks = chunker("recursive", "chars", 20, 0, prefix="headings").split(doc)
    body = next(c for c in chunks if "body" in c.text)
    assert body.prefix == "Report > Security > Incidents"
    assert body.indexed_text == body.prefix + "\n" + body.text
    assert all(c.prefix == "Report" for c in chunker("fixed", "chars", 20, 0, prefix="title").split(doc))


@pytest.mark.parametrize(("size", "overlap", "expected"), [(400, 0.15, 60), (400, 50, 50), (10, 0, 0)])
def test_overlap_is_units_or_fraction(size, overlap, expected):
    assert resolve_overlap(size, overlap) == expected
