"""The failure classes of the retrieval strategies: crowded-out, diversified-out, expanded-out, on hand-made lists."""

import numpy as np

from rag_bench.core.types import Chunk, Question, Span
from rag_bench.score.failures import StageLists, diagnose

WORDS = [f"w{i}" for i in range(200)]
A = " ".join(WORDS)  # document a: 200 words, chunks of 40 characters below
NOTICE = "all rights reserved by the company and its licensors worldwide"


def piece(doc, text, start, end):
    return Chunk(doc, start, end, text[start:end])


CHUNKS = [
    piece("a", A, 0, 40),  # 0
    piece("a", A, 40, 80),  # 1
    piece("a", A, 80, 120),  # 2: the evidence
    piece("a", A, 120, 160),  # 3
    Chunk("x", 0, len(NOTICE), NOTICE),  # 4: boilerplate
    Chunk("y", 0, len(NOTICE), NOTICE),  # 5: the same boilerplate in another document
    Chunk("z", 0, len(NOTICE), NOTICE.upper()),  # 6: and again, upper-cased
    piece("a", A, 150, 400),  # 7: a unit an expansion returned, past the evidence
]
EVIDENCE = Question("q", "which words?", spans=(Span("a", 80, 120),))
K = 2


def rows(*lists):
    width = max(len(r) for r in lists)
    return np.array([r + [-1] * (width - len(r)) for r in lists])


def classify(fused, steps=None, first=None):
    stages = StageLists(
        {"bm25": rows(first or fused)}, rows(fused), steps={k: rows(v) for k, v in (steps or {}).items()}
    )
    return diagnose(CHUNKS, [EVIDENCE], stages, tau=0.5, report_k=K)[0]


def test_crowded_out_when_copies_fill_the_top_k():
    # the top 2 are the notice twice; without the copies (5, 6 repeat 4) chunk 2 ranks 2nd
    found = classify([4, 5, 6, 2])
    assert found.failure == "crowded-out" and found.ranks["bm25"] == 4
    assert classify([4, 0, 5, 2]).failure == "below-k"  # without the copy, 2 ranks 3rd: beyond k (one index)


def test_diversified_out_when_the_diversity_step_lost_the_hit():
    found = classify([2, 0, 1], steps={"diversified": [0, 1, 3, 2]})
    assert found.failure == "diversified-out"
    assert found.ranks == {"bm25": 1, "diversified": 4}


def test_expanded_out_when_the_returned_units_do_not_hit():
    # chunk 2 is in the fused top 2, the expansion returned unit 7 (from 150), which misses [80, 120)
    assert classify([2, 1], steps={"expanded": [7, 1]}).failure == "expanded-out"
    # an expansion then a diversity step: the evidence was lost at the expansion
    assert classify([2, 1], steps={"expanded": [7, 1], "diversified": [7, 1]}).failure == "expanded-out"
    # the expansion kept it within k, the diversity step did not
    assert classify([2, 1], steps={"expanded": [1, 2], "diversified": [1, 3, 2]}).failure == "diversified-out"
    assert classify([2, 1], steps={"expanded": [1, 2]}).failure == "hit"


def test_a_unit_that_hits_below_k_is_below_k_or_fused_out_not_boundary():
    # no first-stage chunk touches [80, 120) (chunks 0, 1 and 3 lie beside it); the expansion returned unit 8,
    # [60, 140), which holds it, at rank 4: the evidence was found and ranked below k (before: "boundary")
    wide = piece("a", A, 60, 140)  # 8: a unit holding all of the evidence
    chunks = [*CHUNKS, wide]
    stages = StageLists({"bm25": rows([0, 1, 3])}, rows([0, 1, 3]), steps={"expanded": rows([0, 1, 3, 8])})
    found = diagnose(chunks, [EVIDENCE], stages, tau=0.5, report_k=2)[0]
    assert found.failure == "below-k" and found.ranks["expanded"] == 4  # one index alone: nothing was fused
    fused = StageLists(
        {"bm25": rows([0, 1, 3]), "dense": rows([1, 0])}, rows([0, 1, 3]), steps={"expanded": rows([0, 1, 3, 8])}
    )
    assert diagnose(chunks, [EVIDENCE], fused, tau=0.5, report_k=2)[0].failure == "fused-out"
