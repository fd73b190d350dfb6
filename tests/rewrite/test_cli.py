import json
import os
import subprocess
import sys

import pytest

from rag_bench.config.schema import DatasetConfig
from rag_bench.core.errors import ConfigError, DataError
from rag_bench.data.variants import read_variants
from rag_bench.rewrite.replay import ReplayRewriterConfig
from rag_bench.rewrite.run import clean, rewrite
from rag_bench.rewrite.settings import VERB, RewriteConfig


def test_clean_drops_empty_repeated_and_the_question():
    texts = ["  A   b ", "", "a B", "The question?", "c"]
    assert clean(texts, "the  QUESTION?") == ["A b", "c"]


def test_offline_end_to_end(tiny, tmp_path):
    out = tmp_path / "v.jsonl"
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "rag_bench", "rewrite", f"dataset.path={tiny}", "dataset.name=tiny", f"out={out}"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"wrote 4 lines (2 questions, kinds decompose,keywords) to {out}" in done.stdout
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    q1 = "How do I reset the KR-7, and how long do refunds take?"
    assert rows == [
        {
            "question_id": "q1",
            "kind": "decompose",
            "texts": ["How do I reset the KR-7?", "How long do refunds take?"],
            "question": q1,
        },
        {"question_id": "q1", "kind": "keywords", "texts": ["reset KR-7 long refunds take"], "question": q1},
        {"question_id": "q2", "kind": "decompose", "texts": [], "question": "How often are invoices sent?"},
        {
            "question_id": "q2",
            "kind": "keywords",
            "texts": ["often invoices sent"],
            "question": "How often are invoices sent?",
        },
    ]
    record = json.loads((tmp_path / "v.usage.json").read_text(encoding="utf-8"))
    assert (record["generator"], record["requests"], record["estimated_cost_usd"]) == ("offline", 0, 0.0)


def test_offline_cannot_write_model_kinds(tiny, tmp_path):
    cfg = RewriteConfig(dataset=DatasetConfig("tiny", str(tiny)), kinds=["hyde"], out=str(tmp_path / "v.jsonl"))
    with pytest.raises(ConfigError, match=r"generator=offline cannot write \['hyde'\].*need a model"):
        rewrite(cfg)


def replay(tiny, tmp_path, rows, **settings):
    source = tmp_path / "elsewhere.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return RewriteConfig(
        dataset=DatasetConfig("tiny", str(tiny)),
        generator=ReplayRewriterConfig(path=str(source)),
        out=str(tmp_path / "v.jsonl"),
        cache_dir=str(tmp_path / "cache"),
        **settings,
    )


def test_replay_keeps_the_kinds_asked_for_and_cuts_to_the_limits(tiny, tmp_path):
    rows = [
        {"question_id": "q1", "kind": "paraphrase", "texts": ["p1", "p2", "p3"]},
        {"question_id": "q2", "kind": "paraphrase", "texts": ["p4"]},
        {"question_id": "q1", "kind": "hyde", "texts": ["a passage"]},
        {"question_id": "q2", "kind": "hyde", "texts": ["another passage"]},
    ]
    written = rewrite(replay(tiny, tmp_path, rows, kinds=["paraphrase"], paraphrases=2))
    assert [(e.question_id, e.kind, e.texts) for e in read_variants(written.path)] == [
        ("q1", "paraphrase", ("p1", "p2")),
        ("q2", "paraphrase", ("p4",)),
    ]


def test_replay_of_an_unknown_question_is_a_clear_error(tiny, tmp_path):
    rows = [{"question_id": q, "kind": "hyde", "texts": ["x"]} for q in ("q1", "q2", "q3")]
    with pytest.raises(DataError, match=r"elsewhere\.jsonl:3: question_id: question 'q3' is not a question of"):
        rewrite(replay(tiny, tmp_path, rows))


def test_replay_missing_a_question_is_a_clear_error(tiny, tmp_path):
    rows = [{"question_id": "q1", "kind": "hyde", "texts": ["x"]}]
    with pytest.raises(DataError, match=r"has no 'hyde' line for 1 of the 2 questions of 'tiny' \(q2\)"):
        rewrite(replay(tiny, tmp_path, rows))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"question_id": "q1", "kind": "synonyms", "texts": []}', r":1: kind: unknown kind 'synonyms'"),
        ('{"question_id": "q1", "kind": "hyde", "texts": [""]}', r":1: texts: must be a list of non-empty strings"),
        ('{"question_id": "q1", "kind": "hyde", "text": ["x"]}', r":1: text: unknown field 'text'"),
        ('{"question_id": "q1", "kind": "hyde", "texts": "x"}', r":1: texts: must be list, got str"),
        ('{"question_id": "q1", "kind": "hyde"', r":1: malformed JSON"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "v.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=message):
        read_variants(path)


def test_repeated_line_is_a_clear_error(tmp_path):
    path = tmp_path / "v.jsonl"
    line = '{"question_id": "q1", "kind": "hyde", "texts": []}\n'
    path.write_text(line * 2, encoding="utf-8")
    with pytest.raises(DataError, match=r":2: question_id: repeats question 'q1', kind 'hyde' \(first on line 1\)"):
        read_variants(path)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["generator=nope"],
            r"Could not find 'generator/nope' Available options in 'generator': anthropic, offline, openai, replay",
        ),
        (["kinds=[synonyms]"], r"kinds \(\['synonyms'\]\) must list distinct kinds"),
        (["generator.model=x"], r"\): generator\.model is not a setting of generator=offline; it has no settings$"),
        (["generator=replay", "generator.file=x"], r"generator\.file is not a setting of generator=replay; .*: path$"),
        (
            ["foo=1"],
            r"^rewrite settings \(configs/rewrite/, rag_bench/rewrite/settings\.py\): "
            r".*Key 'foo' not in 'RewriteConfig'",
        ),
        (["generator=replay"], r"generator=replay needs generator\.path=FILE"),
        (["subquestions=1"], r"subquestions \(1\) at least 2"),
    ],
)
def test_bad_settings_are_one_clear_error(overrides, message, tmp_path):
    with pytest.raises(ConfigError, match=message):  # while composing, or when the generator is built
        rewrite(VERB.compose([*overrides, f"cache_dir={tmp_path}", f"out={tmp_path / 'v.jsonl'}"]))
