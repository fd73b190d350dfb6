import json
import random

import numpy as np
import pandas as pd

from rag_bench.run_folder.per_question import _json_list, float_text


def test_list_columns_are_the_text_json_dumps_writes():
    # the oracle is json.dumps itself: ids JSON writes as they are are joined, any other goes through it
    cases = [[], ["guide.md:0-34"], ["a b:1-2", "c:3-4"], ['say "hi":0-5'], ["back\\slash"], ["café:0-4"], ["\t"]]
    cases += [["\x7f"], ["~"], ("a", "b"), np.array(["x", "y"]), [1, None]]
    rng = random.Random(7)

    def char() -> str:  # mostly printable ASCII, one in five anything up to U+012B (control, quotes, accents)
        return chr(rng.randrange(0, 300)) if rng.random() < 0.2 else chr(rng.randrange(32, 127))

    for _ in range(5000):
        cases.append(["".join(char() for _ in range(rng.randrange(0, 5))) for _ in range(rng.randrange(4))])
    assert sum(_json_list(items) != json.dumps(list(items)) for items in cases) == 0
    assert sum(any(c in '"\\' or not " " <= c <= "~" for item in items for c in item) for items in cases[12:]) > 1000


def test_float_columns_are_written_as_pandas_writes_them():
    # the oracle is DataFrame.to_csv on the float columns themselves
    rng = np.random.default_rng(3)
    tricky = [np.nan, 0.0, 1.0, 0.1, 1 / 3, 1e-05, 1e16, 123456789.0, 5e-324, 1.7976931348623157e308, np.inf, -np.inf]
    columns = {
        "tricky": np.array(tricky * 5),
        "hits": rng.integers(0, 2, 60).astype(float),
        "ratios": rng.integers(0, 7, 60) / rng.integers(1, 7, 60),
        "random": np.where(rng.random(60) < 0.2, np.nan, rng.random(60)),
        "signed_zero": np.array([0.0, -0.0, 1.5] * 20),
    }
    table = pd.DataFrame(columns)
    as_text = pd.DataFrame({name: float_text(values) for name, values in columns.items()})
    assert as_text.to_csv(index=False) == table.to_csv(index=False)
    assert as_text["signed_zero"].tolist()[:2] == ["0.0", "-0.0"] and as_text["tricky"][0] == ""


def test_csv_text_is_what_pandas_writes_for_every_column_kind():
    # the oracle is DataFrame.to_csv: text that needs quoting, missing values of each kind, every dtype a
    # per-question table holds, then a dtype csv_text leaves to pandas (float32)
    from rag_bench.run_folder.per_question import csv_text

    rng = random.Random(11)
    alphabet = ["a", "b", ",", '"', "\n", "\r", " ", "é", "'", ";", "\\"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(6))) for _ in range(200)]
    table = pd.DataFrame(
        {
            "question_id": pd.array(texts, dtype="str"),
            "category": [None if i % 7 == 0 else (np.nan if i % 11 == 0 else t) for i, t in enumerate(texts)],
            "labelled": [i % 3 != 0 for i in range(200)],
            "n_spans": np.arange(200, dtype=np.int64) - 3,
            "evidence_rank_bm25": pd.array([None if i % 4 == 0 else i for i in range(200)], dtype="Int64"),
            "hit@1": np.where(np.arange(200) % 5 == 0, np.nan, np.arange(200) / 7),
            "top_chunks": [[t, "x:0-1"] for t in texts],
        }
    )
    lists = {"top_chunks": [json.dumps(items) for items in table["top_chunks"]]}
    expected = table.assign(**lists).to_csv(index=False)
    assert csv_text(table, lists) == expected
    assert expected.count(chr(34)) > 100  # quoting was exercised
    mixed = table.assign(ratio=np.float32(0.1) * np.arange(200, dtype=np.float32))
    assert csv_text(mixed, lists) == mixed.assign(**lists).to_csv(index=False)
