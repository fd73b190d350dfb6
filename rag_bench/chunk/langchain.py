"""LangChain-compatible recursive splitting, on exact character offsets.

The algorithm of LangChain's ``RecursiveCharacterTextSplitter`` (keep_separator=True,
separators "\\n\\n", "\\n", ".", "?", "!", " ", "") as Chroma's chunking evaluation runs it
(B. Smith and A. Troynikov, "Evaluating Chunking Strategies for Retrieval", 2024):

1. Take the first separator from ``level`` on that occurs in the range ("" always does) and
   cut before each of its occurrences (left to right, not overlapping): the separator starts
   the next split; an empty first split is dropped; "" cuts between every character.
2. A split of fewer than ``size`` units is "good"; each run of good splits is merged (3).
   A split of ``size`` units or more is split again from (1) with the following separators
   and its chunks are emitted as they are, never merged with its neighbours; with no
   separator left (after "") it is emitted whole.
3. Merging adds up lengths measured split by split, n_i = units.count(split_i), plus the
   length of the empty join separator, s = units.count(empty range), once per join:
   total = n_1 + ... + n_k + s (k - 1). A split that would take total past ``size`` closes
   the chunk; splits then leave its front while total > ``overlap`` or the next split would
   still not fit, and what is left opens the next chunk.

With a token count that adds [CLS] and [SEP] (``Units.special`` = 2) every split and every
join costs 2 more tokens, exactly as LangChain's ``len(tokenizer.encode(split))`` does, so a
chunk of k splits holds at most size - 4k + 2 real tokens.
Example (chars, size 8, overlap 0): "ab. cd. ef" cuts at "." into "ab", ". cd", ". ef";
2 + 4 fits, 2 + 4 + 4 does not, so the chunks are "ab. cd" and ". ef".
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.chunk.base import Chunker, RangeChunker
from rag_bench.chunk.settings import ChunkerTools, OverlapChunkerConfig
from rag_bench.chunk.units import Units

SEPARATORS = ("\n\n", "\n", ".", "?", "!", " ", "")


@dataclass
class LangChainConfig(OverlapChunkerConfig):
    name: str = "langchain"


def build(cfg: LangChainConfig, tools: ChunkerTools) -> Chunker:
    return RangeChunker(langchain_ranges, cfg.size, cfg.overlap_units, cfg.unit, cfg.prefix, tools)


def langchain_ranges(text: str, units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    """Chunk character ranges of ``text`` as LangChain's recursive splitter cuts it."""
    return split_level(text, 0, len(text), units, size, overlap, 0) if text else []


def split_level(
    text: str, start: int, end: int, units: Units, size: int, overlap: int, level: int
) -> list[tuple[int, int]]:
    """Chunks of ``[start, end)`` using ``SEPARATORS[level:]`` (steps 1 and 2)."""
    level = next(i for i in range(level, len(SEPARATORS)) if _occurs(text, start, end, SEPARATORS[i]))
    last = not SEPARATORS[level]
    chunks: list[tuple[int, int]] = []
    good: list[tuple[int, int]] = []
    for a, b in cut_before(text, start, end, SEPARATORS[level]):
        if units.count(a, b) < size:
            good.append((a, b))
            continue
        chunks.extend(merge_splits(good, units, size, overlap))
        good = []
        chunks.extend([(a, b)] if last else split_level(text, a, b, units, size, overlap, level + 1))
    return chunks + merge_splits(good, units, size, overlap)


def _occurs(text: str, start: int, end: int, separator: str) -> bool:
    return not separator or text.find(separator, start, end) >= 0


def cut_before(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """Non-empty contiguous splits of ``[start, end)``, each occurrence of ``separator`` opening one.

    Example: "a.b..c" at "." gives "a", ".b", ".", ".c"; "" gives one split per character.
    """
    if not separator:
        return [(i, i + 1) for i in range(start, end)]
    cuts, at = [], text.find(separator, start, end)
    while at >= 0:
        cuts.append(at)
        at = text.find(separator, at + len(separator), end)
    bounds = [start, *cuts, end]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


def merge_splits(splits: list[tuple[int, int]], units: Units, size: int, overlap: int) -> list[tuple[int, int]]:
    """Consecutive good splits packed into chunks by LangChain's arithmetic (step 3)."""
    if not splits:
        return []
    join = units.count(splits[0][0], splits[0][0])  # the empty separator: the special units, if any
    chunks: list[tuple[int, int]] = []
    window: list[tuple[int, int, int]] = []  # (start, end, length) of the splits in the open chunk
    total = 0
    for a, b in splits:
        n = units.count(a, b)
        if window and total + n + join > size:
            chunks.append((window[0][0], window[-1][1]))
            while total > overlap or (total > 0 and total + n + (join if window else 0) > size):
                total -= window[0][2] + (join if len(window) > 1 else 0)
                del window[0]
        total += n + (join if window else 0)
        window.append((a, b, n))
    return [*chunks, (window[0][0], window[-1][1])]
