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
