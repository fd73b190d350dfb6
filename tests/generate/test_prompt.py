from rag_bench.core.types import Chunk, Question
from rag_bench.generate.prompt import INSTRUCTIONS, REFUSAL, build_prompt


def _prompt(question="Where is X?", texts=("alpha text", "beta text")):
    chunks = [Chunk("d.md", 10 * i, 10 * i + len(t), t) for i, t in enumerate(texts)]
    return build_prompt(Question("q1", question), chunks)


def test_passages_numbered_in_tags_best_first_then_question():
    prompt = _prompt()
    assert prompt.user == (
        "<passages>\n"
        '<passage id="1">\nalpha text\n</passage>\n'
        '<passage id="2">\nbeta text\n</passage>\n'
        "</passages>\n\n"
        "Question: Where is X?"
    )
    assert [c.text for c in prompt.passages] == ["alpha text", "beta text"]


def test_instructions_ground_cite_and_refuse_with_the_fixed_phrase():
    prompt = _prompt()
    assert prompt.system == INSTRUCTIONS
    assert "only" in INSTRUCTIONS and "[1]" in INSTRUCTIONS
    assert f"reply with exactly this sentence and nothing else: {REFUSAL}" in INSTRUCTIONS


def test_hash_follows_what_the_model_sees():
    assert _prompt().hash == _prompt().hash
    assert len(_prompt().hash) == 64
    assert _prompt(texts=("beta text", "alpha text")).hash != _prompt().hash  # order matters
    assert _prompt(question="Where is Y?").hash != _prompt().hash


def test_no_passages_still_builds_a_prompt():
    prompt = _prompt(texts=())
    assert prompt.user == "<passages>\n\n</passages>\n\nQuestion: Where is X?"
