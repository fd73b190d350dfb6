"""Every numeric setting of every option (run groups, the nested index, each verb's generators, the top-level
settings) refuses non-finite and huge values with one ConfigError naming its key, before anything is computed.

The settings are found from the schemas themselves, so an option added later is covered with no change here.
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import MISSING, dataclass, fields

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_bench.config.compose import compose
from rag_bench.config.groups import RUN_GROUPS
from rag_bench.config.schema import Config, register, validate
from rag_bench.contextualize.settings import VERB as CONTEXTUALIZE
from rag_bench.core.errors import ConfigError
from rag_bench.core.limits import LIMIT, check_numbers
from rag_bench.core.paths import project_folder
from rag_bench.generate.settings import VERB as CHECK_GENERATION
from rag_bench.rewrite.settings import VERB as REWRITE
from rag_bench.synthesize.settings import VERB as SYNTHESIZE

VERBS = (CHECK_GENERATION, SYNTHESIZE, CONTEXTUALIZE, REWRITE)
BAD = ["nan", "inf", "-inf", "1e308", "-1e308", str(10**30), str(-(10**30)), "2e9"]


@dataclass(frozen=True)
class Setting:
    """One numeric setting: how to choose its option, its key, and whether it holds a list."""

    choose: tuple[str, ...]  # overrides that choose the option
    key: str
    is_list: bool
    verb: object = None  # None: a run setting

    def override(self, value: str) -> str:
        return f"{self.key}=[{value},1]" if self.is_list else f"{self.key}={value}"


def numeric_fields(schema) -> list[tuple[str, bool]]:
    """(name, is a list) of each field typed int or float (or a list of them), bools left out."""
    found = []
    for f in fields(schema):
        kind = str(f.type)
        if "bool" in kind or "str" in kind or "dict" in kind:
            continue
        if "int" in kind or "float" in kind:
            found.append((f.name, kind.startswith("list")))
    return found


def run_settings() -> list[Setting]:
    out = []
    for group in RUN_GROUPS:
        nested = group.path == "retrieval/index"
        for name in group:
            choose = ("retrieval=dense", f"retrieval/index={name}") if nested else (f"{group.path}={name}",)
            out += [Setting(choose, f"{group.group}.{f}", is_list) for f, is_list in numeric_fields(group[name].schema)]
    top = [(f, is_list) for f, is_list in numeric_fields(Config) if f not in ("chunker", "embedder")]
    return out + [Setting((), f, is_list) for f, is_list in top]


def verb_settings() -> list[Setting]:
    out = []
    for verb in VERBS:
        for group in verb.groups:
            for name in group:
                fields_ = numeric_fields(group[name].schema)
                out += [Setting((f"generator={name}",), f"generator.{f}", lst, verb) for f, lst in fields_]
        own = {f.name: f for f in fields(verb.schema)}
        for f, is_list in numeric_fields(verb.schema):
            out.append(Setting((), f, is_list, verb))
        checks = own.get("checks")
        if checks is not None and checks.default_factory is not MISSING:
            out += [Setting((), f"checks.{f}", lst, verb) for f, lst in numeric_fields(type(checks.default_factory()))]
    return out


SETTINGS = run_settings() + verb_settings()


def refusal(setting: Setting, value: str) -> str:
    """The ConfigError's message for ``value`` in ``setting`` (the test fails if none is raised)."""
    overrides = [*setting.choose, setting.override(value)]
    with pytest.raises(ConfigError) as caught:
        if setting.verb is None:
            register()
            validate(compose(project_folder("configs"), overrides, "rag-bench"))
        else:
            setting.verb.compose(overrides)
    return str(caught.value)


def test_the_settings_found_include_the_known_ones():
    keys = {s.key for s in SETTINGS}
    assert {"retrieval.k1", "retrieval.k_rrf", "retrieval.weights", "retrieval.original_weight"} <= keys
    assert {"retrieval.variant_k_rrf", "chunker.overlap", "retrieval.index.ef_search", "reranker.depth"} <= keys
    assert {"generator.threshold", "generator.max_tokens", "checks.near_duplicate", "passages", "tau"} <= keys
    assert len(SETTINGS) > 80


@pytest.mark.parametrize("setting", SETTINGS, ids=[f"{' '.join(s.choose)} {s.key}".strip() for s in SETTINGS])
def test_nan_is_refused_with_one_line_naming_the_key(setting):
    message = refusal(setting, "nan")
    assert "\n" not in message and setting.key.split(".")[-1] in message


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(SETTINGS), st.sampled_from(BAD))
def test_non_finite_and_huge_values_are_refused(setting, value):
    message = refusal(setting, value)
    assert "\n" not in message and setting.key.split(".")[-1] in message


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=-(10**40), max_value=10**40))
def test_the_limit_by_hand(value):
    ok = isinstance(value, int) or math.isfinite(value)
    if ok and abs(value) <= LIMIT:
        check_numbers({"retrieval": {"weights": [1.0, value]}})
    else:
        with pytest.raises(ConfigError, match=r"^retrieval\.weights\[1\] \("):
            check_numbers({"retrieval": {"weights": [1.0, value]}})


def test_the_command_stops_with_one_line_and_exit_2_and_scores_nothing(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "rag_bench", "retrieval.k1=1e308", f"hydra.run.dir={out}", f"cache_dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "rag-bench: error: retrieval.k1 (1e+308) is out of range: a setting's size is at most 1e+09"
    ]
    assert not (out / "metrics.json").exists()
