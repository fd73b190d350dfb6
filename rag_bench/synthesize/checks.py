"""The checks a generated question must pass, in order; each rejected candidate gets a reason.

1. ``malformed``: the generator's output for it was unusable.
2. ``empty question``, ``unknown document``.
3. ``excerpt not in document``: not found verbatim nor after normalising whitespace, Unicode
   forms and typographic quotes (``rag_bench/data/locate.py``; never a paraphrase). Found only
   after normalising, it is kept at the place found (flagged ``excerpt relocated``);
   ``ambiguous excerpt`` when it occurs in several places.
4. ``invalid``: the row the loader would refuse (``rag_bench/data/questions.py``).
5. ``duplicate``: the same normalised text (NFKC, case folded, punctuation and whitespace runs
   to one space) as an existing or earlier kept question; ``near-duplicate``: cosine of the
   query-mode embeddings at least ``checks.near_duplicate``.
6. Too easy, flagged: the share of the question's terms copied from its evidence is at least
   ``checks.easy_share``, and BM25 alone ranks a chunk that hits the evidence first; with
   ``checks.reject_easy`` a question with both flags is rejected as ``too easy``.
7. ``over the document cap`` / ``over the category cap`` (balance; off by default).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import DataError
from rag_bench.core.types import Chunk, Document, Question, Span
from rag_bench.data.locate import find_excerpt
from rag_bench.data.questions import parse_question
from rag_bench.index.bm25.analyzers import identifier_tokens
from rag_bench.index.bm25.index import BM25Index
from rag_bench.label.overlap import copied_share
from rag_bench.score.relevance import hits
from rag_bench.synthesize.candidates import Candidate
from rag_bench.synthesize.settings import ChecksConfig

_NOT_WORD = re.compile(r"[\W_]+")
RELOCATED, COPIES, BM25_FIRST = "excerpt relocated", "copies", "BM25 alone ranks its evidence first"
FLAG_KINDS = {RELOCATED: "excerpt relocated", COPIES: "copies most terms from its evidence", BM25_FIRST: BM25_FIRST}


def flag_kind(flag: str) -> str:
    """The kind of a flag (its text without the numbers), for counting."""
    return next(name for start, name in FLAG_KINDS.items() if flag.startswith(start))


@dataclass(frozen=True)
class Verdict:
    """A candidate's outcome: the questions.jsonl row when kept, else the reason (and detail)."""

    candidate: Candidate
    row: dict | None = None
    reason: str | None = None
    detail: str = ""


def normalise(text: str) -> str:
    """NFKC, case folded, every run of punctuation or whitespace as one space."""
    return _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


class BM25Alone:
    """Whether BM25 by itself (identifier analyzer) ranks first a chunk that hits the evidence."""

    def __init__(self, chunks: Sequence[Chunk], tau: float) -> None:
        self.chunks, self.tau = list(chunks), tau
        self.index = BM25Index.build([identifier_tokens(c.indexed_text) for c in self.chunks])

    def ranks_first(self, question: str, span: Span) -> bool:
        indices, _ = self.index.search([identifier_tokens(question)], 1)
        top = int(indices[0, 0])
        return top >= 0 and hits(self.chunks[top], span, self.tau)


class Checker:
    """Runs the checks over candidates, against the documents and the questions already in the dataset."""

    def __init__(
        self,
        cfg: ChecksConfig,
        documents: Mapping[str, Document],
        existing: Sequence[Question],
        embed: Callable[[list[str]], np.ndarray],
        bm25: BM25Alone,
    ) -> None:
        self.cfg, self.documents, self.existing, self.embed, self.bm25 = cfg, documents, existing, embed, bm25

    def check(self, candidates: Sequence[Candidate], generator: dict) -> list[Verdict]:
        """One verdict per candidate, in order."""
        first = [self._located(c, generator) for c in candidates]
        return self._against_each_other(first)

    def _located(self, c: Candidate, generator: dict) -> Verdict:
        if c.problem:
            return Verdict(c, reason="malformed", detail=c.problem)
        if not c.question.strip():
            return Verdict(c, reason="empty question")
        doc = self.documents.get(c.doc_id)
        if doc is None:
            return Verdict(c, reason="unknown document", detail=f"no document {c.doc_id!r} in the dataset")
        found = find_excerpt(doc.text, c.excerpt)
        if found is None:
            return Verdict(c, reason="excerpt not in document", detail=f"{c.excerpt[:80]!r} is not in {doc.id!r}")
        if found.occurrences > 1:
            return Verdict(c, reason="ambiguous excerpt", detail=f"occurs {found.occurrences} times in {doc.id!r}")
        flags = [] if found.exact else [f"{RELOCATED} to [{found.start}, {found.end}) (whitespace or quotes differed)"]
        row = {
            "id": "",
            "question": c.question.strip(),
            "evidence": [
                {"doc_id": doc.id, "start": found.start, "end": found.end, "text": doc.text[found.start : found.end]}
            ],
            **({"answer": c.answer} if c.answer else {}),
            **({"category": c.category} if c.category else {}),
            "source": "synthetic",
            "generator": {**generator, "origin": c.origin},
            "flags": flags,
        }
        try:
            parse_question({**row, "id": "check"}, self.documents)
        except DataError as exc:
            return Verdict(c, reason="invalid", detail=f"{exc.field}: {exc.problem}")
        return Verdict(c, row=row)

    def _against_each_other(self, verdicts: list[Verdict]) -> list[Verdict]:
        """Duplicates, near-duplicates, too-easy and caps, each kept question counting for the ones after it."""
        alive = [i for i, v in enumerate(verdicts) if v.row is not None]
        known = [(q.id, q.text) for q in self.existing]
        vectors = self.embed([t for _, t in known] + [verdicts[i].row["question"] for i in alive])
        seen_text = {normalise(t): qid for qid, t in known}
        seen_ids = {qid for qid, _ in known}
        kept_vectors, kept_ids = list(vectors[: len(known)]), [qid for qid, _ in known]
        per_doc, per_category = Counter(), Counter()
        out = list(verdicts)
        for n, i in enumerate(alive):
            v, row, vector = verdicts[i], dict(verdicts[i].row), vectors[len(known) + n]
            key = normalise(row["question"])
            if key in seen_text:
                out[i] = Verdict(v.candidate, reason="duplicate", detail=f"same text as {seen_text[key]}")
                continue
            if kept_vectors:
                cosines = np.stack(kept_vectors) @ vector
                best = int(np.argmax(cosines))
                if cosines[best] >= self.cfg.near_duplicate:
                    detail = f"cosine {cosines[best]:.3f} to {kept_ids[best]}"
                    out[i] = Verdict(v.candidate, reason="near-duplicate", detail=detail)
                    continue
            row["flags"] = row["flags"] + self._easy_flags(row)
            easy = {flag_kind(f) for f in row["flags"]} >= {FLAG_KINDS[COPIES], BM25_FIRST}
            if self.cfg.reject_easy and easy:
                out[i] = Verdict(v.candidate, reason="too easy", detail="; ".join(row["flags"]))
                continue
            doc_id, category = row["evidence"][0]["doc_id"], row.get("category") or ""
            capped = self._over_cap(per_doc[doc_id], per_category[category])
            if capped:
                out[i] = Verdict(v.candidate, reason=capped, detail=f"{doc_id} / {category or '(none)'}")
                continue
            row["id"] = question_id(row, seen_ids)
            seen_ids.add(row["id"])
            seen_text[key] = row["id"]
            kept_vectors.append(vector)
            kept_ids.append(row["id"])
            per_doc[doc_id] += 1
            per_category[category] += 1
            out[i] = Verdict(v.candidate, row=row)
        return out

    def _easy_flags(self, row: dict) -> list[str]:
        ev = row["evidence"][0]
        flags = []
        share = copied_share(row["question"], [ev["text"]])
        if share is not None and share >= self.cfg.easy_share:
            flags.append(f"{COPIES} {share:.0%} of its terms from the evidence")
        if self.bm25.ranks_first(row["question"], Span(ev["doc_id"], ev["start"], ev["end"])):
            flags.append(BM25_FIRST)
        return flags

    def _over_cap(self, doc_count: int, category_count: int) -> str | None:
        if self.cfg.max_per_document is not None and doc_count >= self.cfg.max_per_document:
            return "over the document cap"
        if self.cfg.max_per_category is not None and category_count >= self.cfg.max_per_category:
            return "over the category cap"
        return None


def question_id(row: dict, taken: set[str]) -> str:
    """``syn-`` + the first 8 hex digits of sha256(doc_id, question), lengthened until unused."""
    full = hashlib.sha256(f"{row['evidence'][0]['doc_id']}\0{row['question']}".encode()).hexdigest()
    size = 8
    while f"syn-{full[:size]}" in taken:
        size += 2
    return f"syn-{full[:size]}"
