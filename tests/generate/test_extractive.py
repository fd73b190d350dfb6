from rag_bench.core.types import Chunk, Question
from rag_bench.generate.extractive import ExtractiveGenerator, sentences
from rag_bench.generate.prompt import REFUSAL, build_prompt

PASSAGES = (
    Chunk("a", 0, 60, "## Europe\nThe river in Paris is the Seine. Lyon is in France."),
    Chunk("a", 60, 120, "The capital of France is Paris. It has many museums."),
)


def test_sentences_split_at_stops_and_lines_and_drop_short_pieces():
    assert sentences("## Europe\n- The river in Paris is the Seine. Lyon is in France.\nOK then.") == [
        "The river in Paris is the Seine.",
        "Lyon is in France.",
    ]


def test_quotes_and_cites_the_best_sentence():
    # content words of the question: capital, france -> sentence 1 of passage 2 holds both (1.0);
    # "Lyon is in France." holds one (0.5) and ranks higher, but scores lower
    answer = ExtractiveGenerator(0.5).answer(build_prompt(Question("q", "What is the capital of France?"), PASSAGES))
    assert answer.text == '"The capital of France is Paris." [2]'
    assert answer.citations == (2,) and not answer.refused


def test_ties_go_to_the_better_ranked_passage():
    answer = ExtractiveGenerator(0.5).answer(build_prompt(Question("q", "Which places are in France?"), PASSAGES))
    # places, france: "Lyon is in France." (passage 1) and "The capital of France..." (passage 2) both 0.5
    assert answer.text == '"Lyon is in France." [1]'


def test_refuses_below_the_threshold():
    question = Question("q", "How tall is the Eiffel tower in Paris?")  # tall, eiffel, tower, paris: best 1/4
    assert ExtractiveGenerator(0.5).answer(build_prompt(question, PASSAGES)).text == REFUSAL
    assert ExtractiveGenerator(0.5).answer(build_prompt(question, PASSAGES)).refused
    assert ExtractiveGenerator(0.25).answer(build_prompt(question, PASSAGES)).text == (
        '"The river in Paris is the Seine." [1]'
    )
    assert ExtractiveGenerator(0.5).answer(build_prompt(Question("q", "What is it?"), PASSAGES)).refused


def test_deterministic_and_keyed_by_threshold():
    prompt = build_prompt(Question("q", "What is the capital of France?"), PASSAGES)
    answers = {ExtractiveGenerator(0.5).answer(prompt) for _ in range(3)}
    assert len(answers) == 1
    assert ExtractiveGenerator(0.5).key != ExtractiveGenerator(0.4).key
