"""What every LLM candidate generator asks and how its reply is read: the instructions, the kinds of question,
one request per (document, category) with the document before the ask (the stable prefix a provider caches),
each reply kept in the disk cache before it is parsed (a rerun, or a run resumed after a failure, sends only
the requests it lacks).

The reply is asked to be JSON Lines, ``{"question", "excerpt", "answer"}`` each, the excerpt copied verbatim;
a line that is not such an object becomes a candidate with a ``problem`` (rejected, with the line, in the
rejects file).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from rag_bench.chunk.contexts import document_hash
from rag_bench.core.cache import digest
from rag_bench.core.types import Document
from rag_bench.remote.chat import CachedAsker, cached_replies
from rag_bench.synthesize.candidates import Candidate

INSTRUCTIONS = (
    "You write test questions for a search engine over a document collection. Each question must be "
    "answerable from one short passage of the document, and you quote that passage exactly."
)
ASK = (
    "Write {n} different questions of this kind: {kind}.\n"
    "Each must be answerable from a single passage of the document above. Reply with {n} lines of JSON "
    'and nothing else, one object per line: {{"question": "...", "excerpt": "...", "answer": "..."}}. '
    "The excerpt is the passage that answers the question, copied character for character from the "
    "document (one or two sentences, at most 300 characters); the answer is short."
)
CATEGORIES = {  # the default kinds of question, one request per document and kind
    "identifier": "a question naming a specific identifier, code, number or name that appears in the passage",
    "paraphrase": "a question a user would ask in their own words, sharing few words with the passage",
}


class AskedCandidates(CachedAsker):
    """The loop every LLM generator shares; a subclass sets ``name``, ``key`` (what the replies depend on besides
    the document and the category), ``settings``, ``usage`` and ``cost_usd``, and answers ``ask(doc, kind)``."""

    name: str

    def ask(self, doc: Document, kind: str) -> str:
        raise NotImplementedError

    def candidates(self, documents, bar) -> Iterator[Candidate]:
        asks = [(doc, category, kind) for doc in documents for category, kind in self.cfg.categories.items()]

        def key(item: tuple[Document, str, str]) -> str:
            return digest(self.key, document_hash(item[0].text), item[1], item[2])

        texts = cached_replies(
            self.cache, "synthesize", asks, key, lambda a: self.ask(a[0], a[2]), self.concurrency, bar
        )
        for (doc, category, _), text in zip(asks, texts, strict=True):
            yield from parse_reply(text, doc.id, category, f"{self.name} {doc.id}/{category}")


def document_block(doc: Document) -> str:
    """The document as the prompt's stable prefix."""
    return f"<document>\n{doc.text}\n</document>"


def parse_reply(text: str, doc_id: str, category: str, origin: str) -> Iterator[Candidate]:
    """One candidate per non-blank reply line (code fences ignored); a bad line is a candidate with a problem."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("```")]
    for number, line in enumerate(lines, start=1):
        where = f"{origin} line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            obj, problem = None, f"reply line is not JSON ({exc.msg}): {line[:60]!r}"
        else:
            ok = isinstance(obj, dict) and all(isinstance(obj.get(k), str) for k in ("question", "excerpt"))
            problem = None if ok else f"reply line is not an object with string question and excerpt: {line[:60]!r}"
        if problem is not None:
            yield Candidate(doc_id, "", "", category=category, origin=where, problem=problem)
            continue
        answer = obj.get("answer") if isinstance(obj.get("answer"), str) and obj["answer"].strip() else None
        yield Candidate(doc_id, obj["question"], obj["excerpt"], answer, category, where)
