"""A small hand-made run for the page tests: three documents, six chunks, five questions, bm25 + dense + fused."""

import numpy as np

from rag_bench.core.types import Chunk, Question, Span
from rag_bench.report.run.view import RunFacts, Stage
from rag_bench.score.failures import StageLists, diagnose

DOCS = {
    "guide.md": "Install the agent first. Then restart the service. The port is 8443 by default. Logs live in /var.",
    "faq.md": "Refunds take five days. Contact support for invoices. Passwords expire after ninety days.",
    "notes.md": "Release 2.1 fixed the login loop. Release 2.2 added dark mode.",
}
CUTS = {"guide.md": [0, 34, 99], "faq.md": [0, 40, 91], "notes.md": [0, 62]}
CHUNKS = [Chunk(d, a, b, DOCS[d][a:b]) for d, cuts in CUTS.items() for a, b in zip(cuts, cuts[1:], strict=False)]
# 0 guide[0, 34) 1 guide[34, 99) 2 faq[0, 40) 3 faq[40, 91) 4 notes[0, 62)


def span(doc, excerpt):
    start = DOCS[doc].index(excerpt)
    return Span(doc, start, start + len(excerpt))


QUESTIONS = [
    Question("q-hit", "Which port does the agent use?", (span("guide.md", "The port is 8443"),), category="a"),
    # "Then restart the service." [25, 50) straddles the cut at 34: chunk 0 holds 9 of its 25 characters (no
    # hit at tau 0.5), chunk 1 holds 16 (a hit), and no list holds chunk 1: boundary
    Question("q-cut", "What comes after installing?", (span("guide.md", "Then restart the service."),), category="a"),
    Question("q-fused", "How long do refunds take?", (span("faq.md", "Refunds take five days."),), category="b"),
    Question("q-wrong", "What did release 2.1 fix?", (span("notes.md", "Release 2.1 fixed the login"),), category="b"),
    Question("q-far", "When do passwords expire?", (span("faq.md", "Passwords expire after ninety days."),)),
    Question("q-none", "Is there a mobile app?", category="b"),
]
# q-hit: chunk 1 first; q-fused: bm25 has chunk 2 at rank 3, fusion puts it at 4; q-wrong: nothing from notes.md;
# q-far: chunk 2 of faq.md is a candidate, chunk 3 (the evidence) is not
BM25 = np.array([[1, 0, 3], [0, 2, 3], [3, 1, 2], [2, 3, 0], [2, 0, 1], [0, 1, 2]])
DENSE = np.array([[1, 3, 0], [2, 3, -1], [1, 3, 0], [3, 1, 0], [0, 2, -1], [1, 0, 3]])
FUSED = np.array([[1, 0, 3, -1], [0, 2, 3, -1], [3, 1, 0, 2], [3, 2, 0, 1], [2, 0, 1, -1], [1, 0, 3, 2]])
EXPECTED = ["hit", "boundary", "fused-out", "wrong-document", "not-retrieved", "unlabelled"]
K = 2


def scores_of(ranked, top=1.0):
    """Descending scores top, top/2, top/3, ... where a chunk is ranked; -inf in padding."""
    values = top / np.arange(1, ranked.shape[1] + 1) * np.ones(ranked.shape)
    return np.where(ranked >= 0, values, -np.inf)


# a second run that fuses differently: q-hit's evidence (chunk 1) falls to rank 3, q-fused's (chunk 2) rises to 1
FUSED_B = FUSED.copy()
FUSED_B[0] = [0, 3, 1, -1]
FUSED_B[2] = [2, 3, 1, 0]


def facts(report_k=K, fused=FUSED):
    stages = StageLists({"bm25": BM25, "dense": DENSE}, fused)
    diagnoses = diagnose(CHUNKS, QUESTIONS, stages, tau=0.5, report_k=report_k)
    first_hits = [diagnosis.ranks["fused"] for diagnosis in diagnoses]  # the fused list is final
    return RunFacts(
        title="Run report: hand-made",
        dataset="hand",
        settings={"retrieval.mode": "hybrid", "chunker.size": 50, "embedder.dimension": None},
        documents=DOCS,
        chunks=CHUNKS,
        questions=QUESTIONS,
        stages=[
            Stage("bm25", BM25, scores_of(BM25, 10.0)),
            Stage("dense", DENSE, scores_of(DENSE)),
            Stage("fused", fused, scores_of(fused, 0.03)),
        ],
        diagnoses=diagnoses,
        metrics={"hit@1": (0.25, 0.0, 0.75), "hit@2": (0.25, 0.0, 0.75), "recall@2": (0.25, 0.0, 0.75)},
        categories={"a": (2, {"hit@2": 0.5}), "b": (2, {"hit@2": 0.0})},
        first_hits=first_hits,
        report_k=report_k,
    )


def many(n, report_k=K):
    """The hand-made run repeated until it has ``n`` questions (ids made unique)."""
    hand = facts(report_k)
    reps = -(-n // len(QUESTIONS))
    questions = [
        Question(f"{q.id}-{i}", f"{q.text} ({i})", q.spans, q.judgements, category=q.category)
        for i in range(reps)
        for q in QUESTIONS
    ][:n]
    stages = [Stage(s.name, np.tile(s.indices, (reps, 1))[:n], np.tile(s.scores, (reps, 1))[:n]) for s in hand.stages]
    return RunFacts(
        **{
            **hand.__dict__,
            "questions": questions,
            "stages": stages,
            "diagnoses": (list(hand.diagnoses) * reps)[:n],
            "first_hits": (list(hand.first_hits) * reps)[:n],
        }
    )
