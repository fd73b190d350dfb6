"""The dataset a run or a verb names (``dataset=<bundled>`` or ``dataset.path=<folder>``): its settings, its
folder, and loading it, once per process while its files are unchanged. Every verb loads its dataset here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Dataset
from rag_bench.core.workspace import Workspace
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun

DEFAULT_DATASET = "kestrel-kb"


@dataclass
class DatasetConfig:
    """Which dataset: a bundled one by ``name``, or any folder by ``path`` (then ``name`` is its label)."""

    name: str = DEFAULT_DATASET  # a bundled dataset under datasets/; with path, the name runs report
    path: str | None = None  # any folder in the native format; overrides name

    def __post_init__(self) -> None:
        # a path dataset is named by its folder unless a name was given: the resolved config says what ran
        if self.path and self.name == DEFAULT_DATASET:
            self.name = Path(self.path).expanduser().resolve().name

    @property
    def folder(self) -> Path:
        """The dataset's folder: ``path``, else the bundled dataset ``name``'s (a ConfigError when unknown)."""
        return dataset_folder(self.name, self.path)


def load(settings: DatasetConfig, ws: Workspace | None = None, parse: ParseRun | None = None) -> Dataset:
    """The dataset ``settings`` name; kept in ``ws`` while its files and parser settings are unchanged.

    ``parse``: the parser settings for files in ``docs/`` and the counts of what parsing did (none when the
    dataset was kept); None: the default parser. Parses go through ``ws``'s disk cache.
    """
    folder, name = settings.folder, settings.name
    parse = parse or ParseRun(PARSERS.default_settings())
    if ws is None:
        return load_dataset(folder, name, parse=parse)
    if parse.cache is None:
        parse.cache = ws.cache
    files = sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*") if p.is_file())
    key = digest(str(folder), name, files, asdict(parse.settings))
    return ws.remember("dataset", key, lambda: load_dataset(folder, name, parse=parse))


def check_outputs_outside(settings: DatasetConfig, paths: list[Path], replace: bool) -> None:
    """A ConfigError when a file a verb is about to write is an existing file of the dataset (its labelled
    ``questions.jsonl``, a document, a sidecar), unless ``replace``: labels are never overwritten unasked."""
    if replace:
        return
    folder = settings.folder.resolve()
    for path in paths:
        target = Path(path).resolve()
        if target.is_file() and target.is_relative_to(folder):
            raise ConfigError(
                f"out ({path}) would overwrite {target.relative_to(folder)}, a file of the dataset {settings.name}; "
                "choose another out=..., or add replace=true to overwrite it"
            )
