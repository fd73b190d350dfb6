"""``rag-bench contextualize [overrides]``: write the contexts file for ``chunker.prefix=contexts``.

Chunks the dataset exactly as a run with the same ``dataset``, ``chunker`` and ``embedder``
settings would, then writes one short context per chunk (``rag_bench/chunk/contexts.py``).
Settings are composed with Hydra from ``configs/contextualize/`` plus the main groups, e.g.
``rag-bench contextualize dataset=annual-report chunker=semantic generator=anthropic out=ctx.jsonl``.
Generators:
  offline    deterministic: document title, heading trail above the chunk, and the document's
             most distinctive terms (top tf-idf over the corpus documents)
  anthropic  the Messages API (optional extra ``anthropic``): the whole document in a cached
             prompt prefix (``cache_control``), one context of 50 to 100 tokens per chunk
Retrieval runs only read the file; no model is called while scoring.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING
from omegaconf.errors import OmegaConfBaseException
from tqdm import tqdm

from rag_bench.api.anthropic import MessagesClient
from rag_bench.cache import DiskCache, digest
from rag_bench.chunk.contexts import ContextEntry, document_hash, read_contexts, write_contexts
from rag_bench.chunk.prefix import heading_trail
from rag_bench.config import DatasetConfig
from rag_bench.config import register as register_stages
from rag_bench.errors import ConfigError
from rag_bench.index.analyzers import ENGLISH_STOPWORDS, identifier_tokens
from rag_bench.types import Chunk, Document

SCHEMA_NAME = "rag_bench_contextualize_schema"
# fmt: off
STOPWORDS = ENGLISH_STOPWORDS | {
    "all", "also", "any", "can", "each", "from", "had", "has", "have", "its", "may", "more", "most",
    "must", "our", "out", "over", "per", "should", "than", "what", "when", "where", "which", "who",
    "would", "you", "your", "been", "were", "about", "after", "before", "other", "only", "same",
}
# fmt: on


@dataclass
class ContextGeneratorConfig:
    name: str = "offline"
    terms: int = 8  # offline: distinctive document terms per context
    model: str | None = None  # anthropic: the model id
    max_tokens: int = 160  # anthropic: reply limit (contexts are asked to be 50 to 100 tokens)
    base_url: str | None = None  # anthropic: e.g. a local fake server
    max_retries: int = 2  # anthropic: SDK retries of 408/409/429/5xx and connection errors
    timeout: float = 60.0  # anthropic: seconds per request

    def __post_init__(self) -> None:
        if self.name not in GENERATORS:
            raise ConfigError(f"generator.name ({self.name!r}) must be one of: {', '.join(sorted(GENERATORS))}")
        if self.terms < 0:
            raise ConfigError(f"generator.terms ({self.terms}) must not be negative")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")
        if self.timeout <= 0:
            raise ConfigError(f"generator.timeout ({self.timeout}) must be positive (seconds)")


@dataclass
class ContextualizeConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    generator: ContextGeneratorConfig = field(default_factory=ContextGeneratorConfig)
    out: str | None = None  # null = results/contexts/<dataset>-<chunker>-<size><unit>-<generator>.jsonl
    merge: bool = False  # keep the contexts of other chunks already in ``out``
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder


def register() -> None:
    """Make the schema known to Hydra as ``rag_bench_contextualize_schema`` (configs/contextualize/config.yaml)."""
    register_stages()  # the chunker and embedder schemas
    ConfigStore.instance().store(name=SCHEMA_NAME, node=ContextualizeConfig)


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(
        prog="rag-bench contextualize",
        description="Write a contexts file (chunker.prefix=contexts) for the chunks these settings produce.",
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. dataset=annual-report chunker=semantic")
    settings = compose_settings(parser.parse_args(list(argv)).overrides)
    path, count, usage = contextualize(settings)
    print(f"wrote {count} contexts to {path}")
    if usage:
        print("tokens: " + ", ".join(f"{k} {v}" for k, v in usage.items()))
    print(f"use them with: chunker.prefix=contexts chunker.contexts={path} (and the same chunker settings)")
    return 0


def compose_settings(overrides: Sequence[str] = ()) -> ContextualizeConfig:
    """The checked settings from ``configs/contextualize/config.yaml``, the main groups and ``overrides``."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    from rag_bench.config import validate
    from rag_bench.data.bundled import project_folder

    register()
    configs = project_folder("configs")
    search = f"hydra.searchpath=[file://{configs.as_posix()}]"  # the dataset, chunker and embedder groups
    try:
        with initialize_config_dir(config_dir=str(configs / "contextualize"), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[*overrides, search])
    except (HydraException, OmegaConfBaseException) as exc:
        lines = str(exc).split("Config search path")[0].strip().splitlines()
        options = [line.strip() for line in lines if line.startswith("\t")]
        detail = lines[0] + (f" (options: {', '.join(options)})" if options else "")
        raise ConfigError(
            f"contextualize settings: {detail}; keys: configs/contextualize/, rag_bench/chunk/contextualize.py"
        ) from None
    return validate(cfg)


def contextualize(settings: ContextualizeConfig) -> tuple[Path, int, dict[str, int]]:
    """Write the contexts file; returns its path, the number of contexts and the API token counts."""
    from rag_bench.data.bundled import dataset_folder
    from rag_bench.embed.registry import build_embedder
    from rag_bench.pipeline import chunk_dataset, load
    from rag_bench.workspace import workspace

    ws = workspace(settings.cache_dir)
    dataset = load(ws, dataset_folder(settings.dataset.name, settings.dataset.path), settings.dataset.name)
    generator = GENERATORS[settings.generator.name](settings.generator, dataset.documents, ws.cache)
    chunking = replace(settings.chunker, prefix="none", contexts=None)  # spans do not depend on the prefix
    corpus, _ = chunk_dataset(ws, dataset, chunking, build_embedder(settings.embedder))
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in corpus.chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk)
    out = Path(settings.out or default_out(settings))
    entries = {e.key: e for e in read_contexts(out).by_key.values()} if settings.merge and out.is_file() else {}
    try:
        with tqdm(total=len(corpus.chunks), desc="contextualizing", unit="chunk", leave=False) as bar:
            for doc in dataset.documents:
                chunks = by_doc.get(doc.id, [])
                for chunk, text in zip(chunks, generator.contexts(doc, chunks, bar), strict=True):
                    entry = ContextEntry.of(doc, chunk, text)
                    entries[entry.key] = entry
    finally:
        generator.close()
    return out, write_contexts(out, entries.values()), generator.usage


def default_out(settings: ContextualizeConfig) -> str:
    c = settings.chunker
    return f"results/contexts/{settings.dataset.name}-{c.name}-{c.size}{c.unit}-{settings.generator.name}.jsonl"


class OfflineContexts:
    """``title > heading trail. Key terms: ...`` with the document's top tf-idf terms.

    Term weight: (1 + ln tf) * (ln((1 + N) / (1 + df)) + 1), tf in the document, df over the
    N corpus documents (the smoothed idf of scikit-learn's TfidfVectorizer); ties by term.
    """

    def __init__(self, cfg: ContextGeneratorConfig, documents: Sequence[Document], cache: DiskCache) -> None:
        self.usage: dict[str, int] = {}
        counts = {d.id: Counter(distinctive_terms(d.text)) for d in documents}
        df = Counter(t for c in counts.values() for t in c)
        self.top = {i: top_terms(c, df, len(documents), cfg.terms) for i, c in counts.items()}

    def contexts(self, doc: Document, chunks: Sequence[Chunk], bar: tqdm) -> list[str]:
        trail, title = heading_trail(doc.text), doc.title or doc.id
        terms = ", ".join(self.top.get(doc.id, []))
        out = []
        for chunk in chunks:
            section = trail(chunk.start)
            where = section if section.startswith(title) else " > ".join(p for p in (title, section) if p)
            out.append(f"{where}. Key terms: {terms}." if terms else f"{where}.")
            bar.update(1)
        return out

    def close(self) -> None:
        pass


def distinctive_terms(text: str) -> list[str]:
    """Lower-cased identifier tokens of three or more characters, holding a letter, not stopwords."""
    return [t for t in identifier_tokens(text) if len(t) >= 3 and t not in STOPWORDS and any(ch.isalpha() for ch in t)]


def top_terms(counts: Counter, df: Counter, n_docs: int, k: int) -> list[str]:
    """The ``k`` terms of highest (1 + ln tf) * (ln((1 + N) / (1 + df)) + 1), ties by term."""
    weight = {t: (1 + math.log(tf)) * (math.log((1 + n_docs) / (1 + df[t])) + 1) for t, tf in counts.items()}
    return sorted(weight, key=lambda t: (-weight[t], t))[:k]


INSTRUCTIONS = "You write short search contexts for chunks of a document. Reply with the context only."
ASK = (
    "Write one context of 50 to 100 tokens that places the chunk above within the whole document: "
    "what the document is, and the section, topic or entity the chunk is about, so that a search for "
    "the chunk's facts finds it. Reply with the context only."
)


class AnthropicContexts:
    """One Messages API call per chunk; the document is a cached prompt prefix shared by its chunks.

    Replies are kept in the disk cache, so a rerun (or a run resumed after a failure) sends only
    the chunks it lacks. The key comes from ``ANTHROPIC_API_KEY`` alone and is never written.
    """

    def __init__(self, cfg: ContextGeneratorConfig, documents: Sequence[Document], cache: DiskCache) -> None:
        self._api = MessagesClient(cfg, "or use generator=offline")
        self.cfg, self.cache = cfg, cache
        self.key = digest("anthropic-context", cfg.model, cfg.max_tokens, INSTRUCTIONS, ASK)
        self.usage = {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0}

    def contexts(self, doc: Document, chunks: Sequence[Chunk], bar: tqdm) -> list[str]:
        out = []
        for chunk in chunks:
            key = digest(self.key, document_hash(doc.text), chunk.start, chunk.end)
            cached = self.cache.get("contexts", key)
            text = cached.decode("utf-8") if cached is not None else self._ask(doc, chunk)
            if cached is None:
                self.cache.put("contexts", key, text.encode("utf-8"))
            out.append(text)
            bar.update(1)
        return out

    def request(self, doc: Document, chunk: Chunk) -> dict:
        """The Messages API request body for one chunk: the document block carries ``cache_control``."""
        document = {
            "type": "text",
            "text": f"<document>\n{doc.text}\n</document>",
            "cache_control": {"type": "ephemeral"},
        }
        ask = {"type": "text", "text": f"<chunk>\n{chunk.text}\n</chunk>\n\n{ASK}"}
        return {
            "model": self.cfg.model,
            "max_tokens": self.cfg.max_tokens,
            "system": INSTRUCTIONS,
            "messages": [{"role": "user", "content": [document, ask]}],
        }

    def _ask(self, doc: Document, chunk: Chunk) -> str:
        message = self._api.create(f"generator.model ({self.cfg.model!r})", **self.request(doc, chunk))
        usage = message.usage
        for name, attr in (("input", "input_tokens"), ("output", "output_tokens")):
            self.usage[name] += getattr(usage, attr, 0) or 0
        self.usage["cache_write"] += getattr(usage, "cache_creation_input_tokens", 0) or 0
        self.usage["cache_read"] += getattr(usage, "cache_read_input_tokens", 0) or 0
        return " ".join("".join(b.text for b in message.content if b.type == "text").split())

    def close(self) -> None:
        self._api.close()


GENERATORS = {"offline": OfflineContexts, "anthropic": AnthropicContexts}
