"""What a run is told about its configuration before it starts: the source conventions of its dataset
(``data/conventions.py``) that it does not follow, as the overrides that would.
"""

from __future__ import annotations

from rag_bench.config.groups import STAGE_GROUPS
from rag_bench.config.schema import Config
from rag_bench.data.conventions import FILE, differing, read_conventions


def conventions_hint(config: Config) -> str | None:
    """One line naming the overrides that make this run follow its dataset's conventions, or None."""
    folder = config.dataset.folder
    conventions = read_conventions(folder)
    if conventions is None:
        return None
    keys = differing(conventions, config, {group.group: group.key for group in STAGE_GROUPS})
    if not keys:
        return None
    return (
        f"hint: {config.dataset.name} comes from {conventions.source or 'a source'}, whose published numbers use "
        f"{conventions.summary or 'other settings'} ({folder / FILE}); for comparable numbers run with: "
        f"{' '.join(conventions.as_overrides(keys))}"
    )
