"""What every LLM context generator asks: one request per chunk, the instructions and the whole document first
(the stable prefix a provider caches), the chunk and the ask last; each reply kept in the disk cache before
it is used, so a rerun (or a run resumed after a failure) sends only the chunks it lacks."""

from __future__ import annotations

from collections.abc import Sequence

from rag_bench.chunk.contexts import document_hash
from rag_bench.core.cache import digest
from rag_bench.core.progress import Progress
from rag_bench.core.types import Chunk, Document
from rag_bench.remote.chat import CachedAsker, cached_replies

INSTRUCTIONS = "You write short search contexts for chunks of a document. Reply with the context only."
ASK = (
    "Write one context of 50 to 100 tokens that places the chunk above within the whole document: "
    "what the document is, and the section, topic or entity the chunk is about, so that a search for "
    "the chunk's facts finds it. Reply with the context only."
)


def document_block(doc: Document) -> str:
    return f"<document>\n{doc.text}\n</document>"


def chunk_ask(chunk: Chunk) -> str:
    return f"<chunk>\n{chunk.text}\n</chunk>\n\n{ASK}"


class AskedContexts(CachedAsker):
    """The loop every LLM generator shares; a subclass sets ``key`` (what the replies depend on besides the
    document and the chunk's span) and ``usage``, and answers ``ask(doc, chunk)``."""

    def ask(self, doc: Document, chunk: Chunk) -> str:
        raise NotImplementedError

    def contexts(self, doc: Document, chunks: Sequence[Chunk], bar: Progress) -> list[str]:
        def key(chunk: Chunk) -> str:
            return digest(self.key, document_hash(doc.text), chunk.start, chunk.end)

        return cached_replies(self.cache, "contexts", chunks, key, lambda c: self.ask(doc, c), self.concurrency, bar)
