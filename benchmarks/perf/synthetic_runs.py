"""A synthetic native dataset for whole-run benchmarks: documents of paragraphs and sentences, questions
whose evidence is one sentence (a character span) and whose words come from it.

About ``n_chunks`` chunks of 800 characters: documents of ~6,400 characters (eight chunks), paragraphs of
four 12-word sentences of Zipfian pseudo-words (so a recursive splitter meets paragraph, sentence and word
boundaries), ticket ids here and there. Each question picks a document and one of its sentences: evidence =
that sentence's span, text = six of its words and a question mark.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from common import pseudo_word, zipf_corpus

DOC_CHARS = 6_400  # eight 800-character chunks per document


def document(words: list[str], d: int) -> tuple[str, list[tuple[int, int]]]:
    """(text, sentence spans) of one document: 12-word sentences, four to a paragraph."""
    parts, spans, at = [], [], 0
    for s, i in enumerate(range(0, len(words) - 11, 12)):
        sentence = " ".join(words[i : i + 12]).capitalize() + "."
        if s % 7 == 3:
            sentence = sentence[:-1] + f" INC-2023-Q{d % 4 + 1}-{(d + s) % 997:03d}."
        sep = "" if s == 0 else ("\n\n" if s % 4 == 0 else " ")
        at += len(sep)
        spans.append((at, at + len(sentence)))
        parts.append(sep + sentence)
        at += len(sentence)
    return "".join(parts), spans


def write_dataset(folder: Path, n_chunks: int, n_questions: int, seed: int = 5) -> Path:
    """The native dataset (documents.jsonl, questions.jsonl) in ``folder``; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    n_docs = max(1, n_chunks * 800 // DOC_CHARS)
    vocab = 30_000
    names = [pseudo_word(i) for i in range(vocab)]
    rng = np.random.default_rng(seed)
    texts, spans = [], []
    for d, doc in enumerate(zipf_corpus(n_docs, seed=seed, vocab=vocab, mean_len=750)):
        text, sentences = document([names[int(t[1:])] for t in doc], d)
        texts.append(text)
        spans.append(sentences)
    with open(folder / "documents.jsonl", "w") as handle:
        handle.writelines(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    lines = []
    docs = [d for d in rng.integers(0, n_docs, n_questions * 2).tolist() if spans[d]][:n_questions]
    for q, d in enumerate(docs):
        start, end = spans[d][int(rng.integers(0, len(spans[d])))]
        words = texts[d][start:end].rstrip(".").split()
        text = " ".join(words[i] for i in sorted(rng.choice(len(words), 6, replace=False).tolist())) + "?"
        lines.append(
            json.dumps({"id": f"q{q}", "question": text, "evidence": [{"doc_id": f"d{d}", "start": start, "end": end}]})
        )
    (folder / "questions.jsonl").write_text("\n".join(lines) + "\n")
    return folder
