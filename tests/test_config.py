"""Configuration: every YAML option equals its schema's defaults, and Config() equals the composed default."""

from dataclasses import fields

import pytest

from rag_bench.config.compose import compose
from rag_bench.config.groups import RUN_GROUPS
from rag_bench.config.schema import Config, register, validate
from rag_bench.contextualize.settings import VERB as CONTEXTUALIZE
from rag_bench.core.paths import project_folder
from rag_bench.generate.settings import VERB as CHECK_GENERATION
from rag_bench.rewrite.settings import VERB as REWRITE
from rag_bench.synthesize.settings import VERB as SYNTHESIZE

CHOICES = [(group, name) for group in RUN_GROUPS for name in group]
VERBS = [CHECK_GENERATION, SYNTHESIZE, CONTEXTUALIZE, REWRITE]
VERB_CHOICES = [(verb, group, name) for verb in VERBS for group in verb.groups for name in group]


def composed(*overrides: str) -> Config:
    register()
    return validate(compose(project_folder("configs"), list(overrides), "test"))


def as_dict(settings) -> dict:
    return {f.name: getattr(settings, f.name) for f in fields(settings)}


def test_the_default_config_is_config_built_in_python():
    assert composed() == Config()


@pytest.mark.parametrize(("group", "name"), CHOICES, ids=[f"{g.path}={n}" for g, n in CHOICES])
def test_each_yaml_option_holds_its_schema_defaults(group, name):
    nested = group.path == "retrieval/index"
    config = composed(f"{group.path}={name}", *(["retrieval=dense"] if nested else []))
    settings = config.retrieval.index if nested else getattr(config, group.group)
    assert as_dict(settings) == as_dict(group[name].schema())


@pytest.mark.parametrize(("verb", "group", "name"), VERB_CHOICES, ids=[f"{v.command}:{n}" for v, _, n in VERB_CHOICES])
def test_each_verb_option_holds_its_schema_defaults(verb, group, name):
    settings = verb.compose([f"{group.group}={name}"])
    assert as_dict(getattr(settings, group.group)) == as_dict(group[name].schema())


@pytest.mark.parametrize("verb", VERBS, ids=[v.command for v in VERBS])
def test_each_verb_default_is_its_schema_built_in_python(verb):
    assert verb.compose([]) == verb.schema()


def test_every_registered_option_has_a_yaml_file():
    groups = [*RUN_GROUPS, *(g for verb in VERBS for g in verb.groups)]
    missing = [
        f"{group.path}/{name}.yaml"
        for group in groups
        for name in group
        if not (project_folder("configs") / group.path / f"{name}.yaml").is_file()
    ]
    assert missing == []
