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


def test_csv_text_joins_trailing_list_texts_as_pandas_writes_them():
    # the list columns last (as per_question_table leaves them) and no line break in any field: their texts are
    # quoted and joined to the lines the csv module writes of the rest; the oracle is still DataFrame.to_csv
    from rag_bench.run_folder.per_question import _quoted, csv_text

    rng = random.Random(12)
    alphabet = ["a", "b", ",", '"', " ", "é", "'", ";", "\\", "[", "]"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(6))) for _ in range(200)]
    table = pd.DataFrame(
        {
            "question_id": pd.array(texts, dtype="str"),
            "category": [None if i % 7 == 0 else t for i, t in enumerate(texts)],
            "labelled": [i % 3 != 0 for i in range(200)],
            "hit@1": np.where(np.arange(200) % 5 == 0, np.nan, np.arange(200) / 7),
            "top_chunks": [[t, "x:0-1"] for t in texts],
            "ranked_chunks": [[] if i % 9 == 0 else [f"d{i}:0-9"] for i in range(200)],
        }
    )
    lists = {name: [json.dumps(items) for items in table[name]] for name in ("top_chunks", "ranked_chunks")}
    lists["ranked_chunks"][3] = "plain, with a comma"  # any text: quoted where the csv module quotes it
    expected = table.assign(**lists).to_csv(index=False)
    assert csv_text(table, lists) == expected
    lines = expected.split("\n")
    assert lines[1].endswith(",[]") and lines[2].endswith(',"[""d1:0-9""]"')  # an empty list unquoted, others quoted
    assert (_quoted("[]"), _quoted('["a"]'), _quoted("a,b")) == ("[]", '"[""a""]"', '"a,b"')  # by hand
    # a line break in any field: the csv module writes every row itself, the same text
    broken = table.assign(question_id=[t + "\r\n" if i == 5 else t for i, t in enumerate(texts)])
    assert csv_text(broken, lists) == broken.assign(**lists).to_csv(index=False)


def test_parquet_is_the_file_to_parquet_writes_byte_for_byte():
    # the oracle is DataFrame.to_parquet: list columns built from their items, the rest as pandas converts it,
    # and the cases left to to_parquet itself (an item that is not text, a cell that is not a list, no rows)
    import io

    from rag_bench.run_folder.per_question import write_parquet

    rng = random.Random(5)
    ids = [f"doc{i}é:{i}-{i + 9}" for i in range(30)]
    rows = 50
    table = pd.DataFrame(
        {
            "question_id": pd.array([f"q{i}" for i in range(rows)], dtype="str"),
            "category": [None if i % 6 == 0 else "how-to" for i in range(rows)],
            "labelled": [i % 4 != 0 for i in range(rows)],
            "first_hit_rank": pd.array([None if i % 3 else i for i in range(rows)], dtype="Int64"),
            "hit@1": np.where(np.arange(rows) % 5 == 0, np.nan, np.arange(rows) / 3),
            "top_chunks": [rng.sample(ids, rng.randrange(0, 4)) for _ in range(rows)],
            "ranked_chunks": [rng.sample(ids, rng.randrange(0, 12)) for _ in range(rows)],
        }
    )

    def both(frame: pd.DataFrame) -> tuple[bytes, bytes]:
        ours, theirs = io.BytesIO(), io.BytesIO()
        write_parquet(frame, ours)
        frame.to_parquet(theirs, index=False)
        return ours.getvalue(), theirs.getvalue()

    ours, theirs = both(table)
    assert ours == theirs
    assert pd.read_parquet(io.BytesIO(ours))["ranked_chunks"].map(list).tolist() == table["ranked_chunks"].tolist()
    for cell in (None, ("a", "b"), ["x", None]):
        odd = table.copy()
        odd.at[3, "top_chunks"] = cell
        assert len(set(both(odd))) == 1
    numbers = table.assign(top_chunks=[list(range(i % 3)) for i in range(rows)])  # lists of ints
    assert len(set(both(numbers))) == 1
    assert len(set(both(table.iloc[:0]))) == 1
