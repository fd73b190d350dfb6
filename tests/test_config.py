"""Configuration: every YAML option equals its schema's defaults, and Config() equals the composed default."""

from dataclasses import fields

import pytest

from rag_bench.config.compose import compose
from rag_bench.config.schema import Config, groups, register, validate
from rag_bench.core.paths import project_folder

CHOICES = [(group, name) for group, options in groups().items() for name in options]


def composed(*overrides: str) -> Config:
    register()
    return validate(compose(project_folder("configs"), list(overrides), "test"))


def test_the_default_config_is_config_built_in_python():
    assert composed() == Config()


@pytest.mark.parametrize(("group", "name"), CHOICES)
def test_each_yaml_option_holds_its_schema_defaults(group, name):
    config = composed(f"{group}={name}", *(["retrieval=dense"] if group == "retrieval/index" else []))
    settings = config.retrieval.index if group == "retrieval/index" else getattr(config, group)
    expected = groups()[group][name].schema()
    assert {f.name: getattr(settings, f.name) for f in fields(settings)} == {
        f.name: getattr(expected, f.name) for f in fields(expected)
    }


def test_every_registered_option_has_a_yaml_file():
    missing = [
        f"{group}/{name}.yaml"
        for group, name in CHOICES
        if not (project_folder("configs") / group / f"{name}.yaml").is_file()
    ]
    assert missing == []
