"""Near-duplicate documents: two versions of one document, a page saved twice.

Two documents are near-duplicates when the Jaccard similarity of their sets of word 5-grams
(shingles; Broder, "On the resemblance and containment of documents", 1997) is at least ``near``:
|A & B| / |A | B|. Words are runs of letters and digits, lower-cased; a document of fewer than five
words is one shingle. Only pairs that share a shingle are compared (an inverted index), each exactly.
Each document is matched to the earliest document in corpus order it is a near-duplicate of.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

from rag_bench.core.types import Document
from rag_bench.parse.run import ParseRun

SHINGLE = 5
_WORD = re.compile(r"\w+")


def shingles(text: str) -> frozenset[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    if len(words) < SHINGLE:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def near_duplicates(texts: Sequence[str], near: float) -> dict[int, tuple[int, float]]:
    """Index of each later near-duplicate -> (index of the earliest document it matches, its similarity)."""
    sets = [shingles(t) for t in texts]
    posting: dict[tuple[str, ...], list[int]] = defaultdict(list)
    found: dict[int, tuple[int, float]] = {}
    for j, own in enumerate(sets):
        shared = Counter(i for s in own for i in posting[s])
        for i in sorted(shared):
            similarity = shared[i] / (len(sets[i]) + len(own) - shared[i])
            if similarity >= near:
                found[j] = (found.get(i, (i, 0.0))[0], similarity)
                break
        for s in own:
            posting[s].append(j)
    return found


def apply_duplicates(documents: Sequence[Document], run: ParseRun) -> tuple[tuple[Document, ...], dict[str, Document]]:
    """``parser.duplicates`` applied: keep (unchanged), flag (``duplicate_of`` in a later near-duplicate's
    metadata) or drop (later near-duplicates leave the corpus). Also, by id, what a dropped document's labels
    now name: the document it duplicates, marked parsed (``duplicate``) when it was read as stored, so that
    its evidence is located by excerpt there."""
    settings = run.settings
    if settings.duplicates == "keep":
        return tuple(documents), {}
    found = near_duplicates([d.text for d in documents], settings.near)
    run.counts.duplicates = len(found)
    if settings.duplicates == "flag":
        flagged = [
            replace(d, metadata=MappingProxyType({**d.metadata, "duplicate_of": documents[found[j][0]].id}))
            if j in found
            else d
            for j, d in enumerate(documents)
        ]
        return tuple(flagged), {}
    kept = tuple(d for j, d in enumerate(documents) if j not in found)
    aliases = {}
    for j, (i, _) in found.items():
        original = documents[i]
        aliases[documents[j].id] = original if original.parser else replace(original, parser="duplicate")
    return kept, aliases
