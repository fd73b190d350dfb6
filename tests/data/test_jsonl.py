"""read_jsonl's surrogate check: a line is walked only when it holds a \\uD800-\\uDFFF escape or bad bytes,
and that skip never changes a verdict (checked against the walk over every line)."""

import json
import random

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data import jsonl
from rag_bench.data.jsonl import parse_line, surrogate_field

PIECES = [
    "a",
    "é",
    "\\u00e9",
    "\\ud83d\\ude80",
    "\\ud800",
    "\\uDFFF",
    "\\uDBff",
    "\\\\ud800",
    "\\u0d80",
    "\\ue000",
    "🚀",
]


def lines(seed: int, n: int) -> list[bytes]:
    """JSON lines whose strings mix plain text, escapes of every kind and escaped backslashes."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        key, value, inner = ("".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3))) for _ in range(3))
        out.append(f'{{"{key}": ["{value}", {{"k": "{inner}"}}]}}'.encode())
    return out


def test_a_line_without_a_surrogate_escape_is_not_walked(monkeypatch):
    walked = []
    monkeypatch.setattr(jsonl, "surrogate_field", lambda value: walked.append(value))
    assert parse_line("f", 1, '{"q": "caf\\u00e9 🚀 \\u0d80", "n": [1]}'.encode()) == {"q": "café 🚀 \u0d80", "n": [1]}
    assert walked == []  # no \\uD800-\\uDFFF escape: raw UTF-8 and other escapes make no surrogate
    parse_line("f", 1, b'{"q": "\\ud83d\\ude80"}')  # a pair's escapes: walked (and one character)
    assert walked == [{"q": "🚀"}]


@pytest.mark.parametrize("seed", range(3))
def test_the_verdict_equals_walking_every_line(seed):
    for raw in lines(seed, 400):
        value = json.loads(raw.decode())
        lone = surrogate_field(value)
        if lone is None:
            assert parse_line("f", 1, raw) == value
        else:
            with pytest.raises(DataError, match="lone surrogate"):
                parse_line("f", 1, raw)
