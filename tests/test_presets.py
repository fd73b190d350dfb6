"""Every sweep preset under configs/sweep/ composes, and every value it sweeps composes into a valid run config.

A preset lists only what changes (``# @package _global_``); a typo in a key or a value out of range would
otherwise surface only when the sweep reaches that point. Each swept parameter's values are expanded with
Hydra's own override parser (``a,b`` lists, ``choice(...)``, ``range(...)``), and each value is composed and
checked with the preset's other parameters at their first value.
"""

from __future__ import annotations

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from rag_bench.config.compose import compose
from rag_bench.config.schema import Config, register, validate
from rag_bench.core.paths import project_folder

PRESETS = sorted(p.stem for p in (project_folder("configs") / "sweep").glob("*.yaml"))


def run_config(*overrides: str, search: tuple = ()) -> Config:
    register()
    return validate(compose(project_folder("configs"), list(overrides), "test", search=search))


def swept(path) -> dict[str, list[str]]:
    """Each parameter the preset file at ``path`` sweeps -> its values as override strings, in order."""
    from omegaconf import OmegaConf

    params = OmegaConf.load(path).hydra.sweeper.params
    parser = OverridesParser.create()
    values = {}
    for key, text in params.items():
        override = parser.parse_override(f"{key}={text}")
        found = list(override.sweep_string_iterator()) if override.is_sweep_override() else [override.value()]
        values[str(key)] = [str(v) for v in found]
    return values


def test_every_preset_is_found():
    assert {"grid24", "optuna", "ann", "chunkers", "rerank"} <= set(PRESETS)


def compose_every_value(preset: str, search: tuple = ()) -> int:
    """Compose ``sweep=<preset>`` at each value of each swept parameter (the others at their first); the count."""
    folders = [*search, project_folder("configs")]
    path = next(f / "sweep" / f"{preset}.yaml" for f in folders if (f / "sweep" / f"{preset}.yaml").is_file())
    params = swept(path)
    assert params, f"sweep={preset} sweeps nothing"
    first = {key: values[0] for key, values in params.items()}
    count = 0
    for key, values in params.items():
        for value in values:
            point = {**first, key: value}
            config = run_config(f"sweep={preset}", *(f"{k}={v}" for k, v in point.items()), search=search)
            assert isinstance(config, Config), (preset, point)
            count += 1
    return count


@pytest.mark.parametrize("preset", PRESETS)
def test_each_preset_and_each_value_it_sweeps_compose(preset):
    assert isinstance(run_config(f"sweep={preset}"), Config)
    assert compose_every_value(preset) >= 2


def test_a_preset_with_a_bad_value_fails_here(tmp_path):
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "bad.yaml").write_text(
        "# @package _global_\nhydra:\n  mode: MULTIRUN\n  sweeper:\n    params:\n"
        "      chunker.size: 400\n      chunker.overlap: 0,0.5,2000\n"
    )
    with pytest.raises(Exception, match=r"chunker.overlap \(2000\) must be smaller than chunker.size \(400\)"):
        compose_every_value("bad", search=(tmp_path,))
