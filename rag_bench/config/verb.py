"""One way for every side verb (check-generation, synthesize, contextualize, rewrite) to compose its settings.

A verb's settings are ``configs/<folder>/config.yaml`` over its schema (a dataclass registered as
``rag_bench_<folder>_schema``), with its own option groups (``generator``, stored as
``schema/<folder>/generator/<name>``) and, where it reads them, the run's groups (``dataset``,
``chunker``, ``embedder``: ``configs/`` is then on the search path). ``compose`` returns the checked
dataclasses, with Hydra's errors as one line and a key of another option explained.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_bench.config.compose import compose
from rag_bench.config.groups import check_choices, register_groups
from rag_bench.config.schema import register as register_run
from rag_bench.config.schema import validate
from rag_bench.core.options import Options
from rag_bench.core.paths import project_folder


@dataclass(frozen=True)
class Verb:
    """A side verb's configuration: where its YAML lives, its schema, its own groups."""

    command: str  # rag-bench <command>
    folder: str  # configs/<folder>/config.yaml
    schema: type  # the verb's settings dataclass
    groups: tuple[Options, ...] = ()  # its own option groups (their ``path`` is ``<folder>/<group>``)
    main_groups: bool = True  # the run's groups (configs/dataset, chunker, embedder ...) are on its search path

    @property
    def schema_name(self) -> str:
        return f"rag_bench_{self.folder}_schema"

    def register(self) -> None:
        """Store the verb's schema and its groups' (and the run's) in Hydra's ConfigStore."""
        from hydra.core.config_store import ConfigStore

        register_run()
        ConfigStore.instance().store(name=self.schema_name, node=self.schema)
        register_groups(self.groups)

    def compose(self, overrides: Sequence[str] = (), search: Sequence[Path] = ()):
        """The checked settings from ``configs/<folder>/config.yaml`` and ``overrides``; ``search``: more config
        folders, laid out as ``configs/<folder>/`` is (``generator/<name>.yaml`` for a generator of one's own)."""
        self.register()
        configs = project_folder("configs")
        folders = [configs, *search] if self.main_groups else list(search)
        schema_file = self.schema.__module__.replace(".", "/") + ".py"
        label = f"{self.command} settings (configs/{self.folder}/, {schema_file})"
        settings = validate(compose(configs / self.folder, overrides, label, search=folders, groups=self.groups))
        check_choices(settings, self.groups)
        return settings
