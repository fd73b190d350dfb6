import json
import random

import numpy as np

from rag_bench.run_folder.per_question import _json_list


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
