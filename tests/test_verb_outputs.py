"""The side verbs never overwrite a file of the dataset unasked (issue: labelled questions lost to ``out=``).

``synthesize``, ``rewrite`` and ``contextualize`` refuse, before any work, an ``out`` (or a file written beside
it) that is an existing file of the dataset folder, unless ``replace=true``; a run on ``dataset.path`` names
the dataset that ran in its resolved config.
"""

from __future__ import annotations

import shutil

import pytest

from rag_bench.contextualize.run import contextualize
from rag_bench.contextualize.settings import VERB as CONTEXTUALIZE
from rag_bench.core.errors import ConfigError
from rag_bench.core.paths import project_folder
from rag_bench.rewrite.run import rewrite
from rag_bench.rewrite.settings import VERB as REWRITE
from rag_bench.synthesize.run import synthesize
from rag_bench.synthesize.settings import VERB as SYNTHESIZE

CASES = [
    (SYNTHESIZE, synthesize, ["generator.path=candidates.jsonl", "embedder=fake"]),
    (REWRITE, rewrite, []),
    (CONTEXTUALIZE, contextualize, ["embedder=fake"]),
]


@pytest.fixture
def dataset(tmp_path):
    folder = tmp_path / "kb"
    shutil.copytree(project_folder("datasets") / "annual-report", folder)
    return folder


@pytest.mark.parametrize(("verb", "work", "extra"), CASES, ids=[c[0].command for c in CASES])
def test_out_naming_the_datasets_questions_is_refused_unless_replace(verb, work, extra, dataset, tmp_path):
    questions = dataset / "questions.jsonl"
    labelled = questions.read_bytes()
    base = [f"dataset.path={dataset}", f"out={questions}", f"cache_dir={tmp_path / 'cache'}", *extra]
    with pytest.raises(ConfigError, match=r"out \(.*questions.jsonl\) would overwrite questions.jsonl, a file of "):
        work(verb.compose(base))
    assert questions.read_bytes() == labelled
    assert not (tmp_path / "cache").exists()  # refused before any work


def test_replace_true_is_asked_for_and_then_allowed(dataset, tmp_path):
    questions = dataset / "questions.jsonl"
    written = rewrite(REWRITE.compose([f"dataset.path={dataset}", f"out={questions}", "replace=true"]))
    assert written.path == questions and questions.read_text().count('"kind"') == written.lines


def test_a_file_written_beside_out_is_checked_too(dataset, tmp_path):
    (dataset / "v.usage.json").write_text("{}")  # rewrite writes <out>.usage.json beside out
    with pytest.raises(ConfigError, match=r"would overwrite v.usage.json"):
        rewrite(REWRITE.compose([f"dataset.path={dataset}", f"out={dataset / 'v.jsonl'}"]))


def test_the_resolved_config_names_the_dataset_that_ran(dataset):
    from rag_bench.config.schema import Config
    from rag_bench.data.dataset import DatasetConfig
    from rag_bench.run_folder.write import config_yaml

    assert "name: kb\n" in config_yaml(Config(dataset=DatasetConfig(path=str(dataset))))
    assert DatasetConfig(name="mine", path=str(dataset)).name == "mine"  # a name given is kept
