"""Issue 34: analysis throughput of each language analyzer, at least 0.5x the identifier analyzer's on the same text.

For each language a corpus of about 4 million characters is drawn from the bundled multilingual
documents of that language (seeded): Latin and Cyrillic text as words drawn Zipf-wise from a
vocabulary of the documents' words and 40,000 variants of them (a word plus 1-4 letters of the
language, so stemming meets many distinct words, as in a real corpus); CJK text as runs of 4-40
characters drawn Zipf-wise from the documents' characters, between spaces, with an identifier now
and then. Each analyzer turns the corpus into a term stream (``corpus_terms``, what the BM25 build
runs, in small pages as it does), timed against the identifier analyzer on the same texts,
interleaved, one thread, best of 5 rounds after a warm-up round, or of as many as fit in about
3 seconds (at most 25) where a round is short (English: ~0.07 s), so that a few rounds slowed by
other load on a shared machine do not decide a ratio.
The goal holds for the n-gram (bigram, subword n-gram) and stemming analyzers; ``auto`` over all
languages at once, MeCab (``segmenter=mecab``, an optional extra) and ``auto``'s language detection
(what a dataset without ``language`` fields adds: ``detect`` of every text, against the identifier
analyzer on the same texts) are reported, not bound.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import numpy as np
from common import Check, interleaved, report, single_thread

from rag_bench.core.paths import project_folder
from rag_bench.index.bm25.analysis import AnalysisSettings, build_analyzer
from rag_bench.index.bm25.analyzers import ANALYZERS
from rag_bench.index.bm25.cjk import RUN
from rag_bench.index.bm25.detect import detect
from rag_bench.index.bm25.mixed import mixed_terms
from rag_bench.index.bm25.pages import small_pages
from rag_bench.index.bm25.terms import corpus_terms

CHARS = 4_000_000
TEXT_CHARS = 800  # a chunk's worth
CASES = [  # (label, language code, analyzer settings, bound by the goal)
    ("german", "de", AnalysisSettings("german"), True),
    (
        "german + subword_ngrams=4 + fold_accents",
        "de",
        AnalysisSettings("german", fold_accents=True, subword_ngrams=4),
        True,
    ),
    ("french + fold_accents + nfc", "fr", AnalysisSettings("french", fold_accents=True, normalization="nfc"), True),
    ("english under auto (Snowball, identifiers whole)", "en", AnalysisSettings("auto"), True),
    ("japanese bigrams", "ja", AnalysisSettings("japanese"), True),
    ("chinese bigrams + nfkc", "zh", AnalysisSettings("chinese", normalization="nfkc"), True),
    ("japanese mecab (optional extra)", "ja", AnalysisSettings("japanese", segmenter="mecab"), False),
]


def seed_texts() -> dict[str, str]:
    """The bundled multilingual documents' text, joined per language."""
    path = project_folder("datasets") / "multilingual" / "documents.jsonl"
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        found.setdefault(doc["language"], []).append(doc["text"])
    return {language: "\n".join(texts) for language, texts in found.items()}


def corpus(language: str, seed_text: str, rng: np.random.Generator) -> list[str]:
    """About ``CHARS`` characters of ``language``-like text, in texts of about ``TEXT_CHARS``."""
    if language in ("ja", "zh", "ko"):
        chars = sorted({c for run in RUN.findall(seed_text) for c in run})
        weights = 1 / np.arange(1, len(chars) + 1)
        picks = rng.choice(len(chars), size=CHARS, p=weights / weights.sum())
        lengths = rng.integers(4, 41, size=CHARS // 4)
        pieces, at = [], 0
        for n in lengths:
            if at >= CHARS:
                break
            pieces.append("".join(chars[i] for i in picks[at : at + n]))
            if rng.random() < 0.05:
                pieces.append(f"QB-E{rng.integers(1000, 9999)}")
            at += n
        words = pieces
    else:
        seed_words = sorted(set(re.findall(r"[^\W\d_]+", seed_text)))
        letters = sorted({c for w in seed_words for c in w.lower()})
        variants = [w + "".join(rng.choice(letters, size=rng.integers(1, 5))) for w in rng.choice(seed_words, 40_000)]
        vocab = seed_words + variants
        weights = 1 / np.arange(1, len(vocab) + 1) ** 1.05
        words = [vocab[i] for i in rng.choice(len(vocab), size=CHARS // 7, p=weights / weights.sum())]
    texts, current, size = [], [], 0
    for word in words:
        current.append(word)
        size += len(word) + 1
        if size >= TEXT_CHARS:
            texts.append(" ".join(current))
            current, size = [], 0
    return texts + ([" ".join(current)] if current else [])


def rounds(fns: dict[str, Callable[[], object]], seconds: float = 3.0, least: int = 5, most: int = 25) -> int:
    """Rounds of ``fns`` to time after a warm-up round run here: as many as fit in ``seconds`` (``least``-``most``)."""
    start = time.perf_counter()
    for fn in fns.values():
        fn()
    return max(least, min(most, int(seconds / (time.perf_counter() - start))))


def main() -> None:
    rng = np.random.default_rng(34)
    seeds = seed_texts()
    corpora = {code: corpus(code, seeds[code], rng) for code in sorted({case[1] for case in CASES})}
    identifier = ANALYZERS["identifier"]
    checks, details = [], []
    with single_thread(), small_pages():  # small pages: as BM25Index.from_texts analyses (pages.py)
        for label, code, settings, bound in CASES:
            texts = corpora[code]
            analyzer = build_analyzer(settings, code)
            fns = {
                "identifier": lambda texts=texts: corpus_terms(texts, identifier),
                "ours": lambda texts=texts, analyzer=analyzer: corpus_terms(texts, analyzer),
            }
            repeats = rounds(fns) if bound else 1
            times = interleaved(fns, repeats)
            chars = sum(map(len, texts))
            ratio = times["identifier"] / times["ours"]
            speeds = {name: chars / seconds / 1e6 for name, seconds in times.items()}
            details.append(
                f"{label}: {len(texts)} texts, {chars / 1e6:.2f} M chars; identifier {speeds['identifier']:.1f} "
                f"M chars/s, this analyzer {speeds['ours']:.1f} M chars/s (best of {repeats})"
            )
            op = ">=" if bound else "info"
            checks.append(Check("34 analysis", f"{label}: throughput / identifier's", ratio, op, 0.5))
        texts = [t for code in ("de", "fr", "en", "ja", "zh") for t in corpora[code]]
        keys = [code for code in ("de", "fr", "en", "ja", "zh") for _ in corpora[code]]
        auto = AnalysisSettings("auto")
        analyzers = {code: build_analyzer(auto, code) for code in set(keys)}
        times = interleaved(
            {
                "identifier": lambda: corpus_terms(texts, identifier),
                "ours": lambda: mixed_terms(texts, keys, analyzers.__getitem__),
            },
            repeats=1,
        )
        ratio = times["identifier"] / times["ours"]
        checks.append(Check("34 analysis", "auto over five languages: throughput / identifier's", ratio, "info", 0.5))
        details.append(f"auto, five languages mixed: {sum(map(len, texts)) / 1e6:.2f} M chars; ratio {ratio:.2f}")
        # auto on a dataset without languages: detection of every text's language, once each (languages.py)
        times = interleaved(
            {"identifier": lambda: corpus_terms(texts, identifier), "ours": lambda: [detect(t) for t in texts]},
            repeats=3,
        )
        ratio = times["identifier"] / times["ours"]
        checks.append(
            Check("34 analysis", "auto's detection, five languages: throughput / identifier's", ratio, "info", 0.5)
        )
        details.append(
            f"detection of {len(texts)} texts' languages: {times['ours']:.3f} s; "
            f"identifier analysis of them {times['identifier']:.3f} s"
        )
    report("Issue 34: analysis throughput per language analyzer vs the identifier analyzer", checks, details)


if __name__ == "__main__":
    main()
