import json

import pytest

from rag_bench.generate.extractive import ExtractiveGenerator
from rag_bench.generate.prompt import REFUSAL
from rag_bench.generate.registry import GENERATORS
from rag_bench.generate.run import check_generation
from rag_bench.generate.settings import GenerateConfig


def _settings(tmp_path, **kwargs):
    return GenerateConfig(cache_dir=str(tmp_path / "cache"), **kwargs)


class CountingGenerator(ExtractiveGenerator):
    def __init__(self):
        super().__init__(0.5)
        self.calls = 0

    def answer(self, prompt):
        self.calls += 1
        return super().answer(prompt)


def test_extractive_run_on_the_tiny_run(tiny_run, tmp_path):
    result = check_generation(tiny_run, _settings(tmp_path))
    q1, q2, q3 = result.results
    assert q1.answer.text == '"The capital of France is Paris." [1]' and q1.outcome.passed
    # q2: the bananas sentence was not retrieved; "ripe" alone is 1/3 of (colour, ripe, bananas)
    assert q2.answer.text == REFUSAL and q2.checks.refusal_ok
    assert (q2.outcome.attribution, q2.outcome.problem) == ("retrieval", "evidence not retrieved; refused")
    assert q3.answer.text == REFUSAL and q3.outcome.passed
    assert result.tau == 0.5 and result.generator_key == "extractive/v1/threshold=0.5"


def test_passages_cut_and_tau_override(tiny_run, tmp_path):
    result = check_generation(tiny_run, _settings(tmp_path, passages=1, tau=1.0))
    assert [len(r.prompt.passages) for r in result.results] == [1, 1, 1]
    # tau 1: the chunk [0, 51) must cover all 31 evidence characters, which it does
    assert result.results[0].checks.evidence_passages == (1,) and result.tau == 1.0


def test_answers_are_cached_by_generator_and_prompt(tiny_run, tmp_path):
    generator = CountingGenerator()
    first = check_generation(tiny_run, _settings(tmp_path), generator)
    again = check_generation(tiny_run, _settings(tmp_path), generator)
    assert generator.calls == 3 and (first.generated, again.generated) == (3, 0)
    assert [r.cached for r in again.results] == [True, True, True]
    check_generation(tiny_run, _settings(tmp_path, passages=1), generator)  # other prompts
    assert generator.calls == 6


def test_corrupt_cached_answer_is_answered_again(tiny_run, tmp_path):
    generator = CountingGenerator()
    check_generation(tiny_run, _settings(tmp_path), generator)
    for entry in (tmp_path / "cache" / "answers").glob("??/*"):
        entry.write_bytes(b"garbage")
    result = check_generation(tiny_run, _settings(tmp_path), generator)
    assert generator.calls == 6 and result.generated == 3


def test_replay_run(tiny_run, tmp_path):
    path = tmp_path / "answers.jsonl"
    lines = [
        {"question_id": "q1", "answer": "Lyon [1]"},
        {"question_id": "q2", "answer": "Yellow [2]"},
        {"question_id": "q3", "answer": "Shakespeare [1]"},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = check_generation(tiny_run, _settings(tmp_path, generator=GENERATORS.settings("replay", path=str(path))))
    assert [(r.outcome.passed, r.outcome.attribution) for r in result.results] == [
        (False, "generation"),
        (False, "retrieval"),
        (False, "generation"),
    ]
    assert result.results[1].checks.f1 == pytest.approx(1.0)  # right words, wrong evidence passage
