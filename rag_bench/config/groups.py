"""The run's config groups (parser, chunker, embedder, retrieval and its nested index, expand, diversity,
reranker), registered with Hydra.

Each group is an ``Options`` (``core/options.py``) kept in its stage's registry; ``register`` stores the
top-level schema and every option's schema in Hydra's ConfigStore (``schema/<group>/<name>``), which
each YAML option under ``configs/`` extends through its defaults list (``- /schema/chunker/fixed@_here_``).
So a key that belongs to another option, or a typo, fails while Hydra composes, with the message
``explain_unknown_key`` gives it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.core.options import Options
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.index.registry import VECTOR_INDEXES
from rag_bench.parse.registry import PARSERS
from rag_bench.rerank.registry import RERANKERS
from rag_bench.retrieve.diversity.registry import DIVERSIFIERS
from rag_bench.retrieve.expand.registry import EXPANDERS
from rag_bench.retrieve.registry import RETRIEVERS

# a group that is a field of the run's config, then the nested dense-index group (retrieval.index=...)
STAGE_GROUPS: tuple[Options, ...] = (PARSERS, CHUNKERS, EMBEDDERS, RETRIEVERS, EXPANDERS, DIVERSIFIERS, RERANKERS)
RUN_GROUPS: tuple[Options, ...] = (*STAGE_GROUPS, VECTOR_INDEXES)


def register_groups(groups: Iterable[Options]) -> None:
    """Store each group's option schemas in Hydra's ConfigStore, each imported when a composition loads it."""
    from rag_bench.config.lazy_store import store_schema

    for group in groups:
        for name, make, where in group.schemas():
            store_schema(f"schema/{group.path}", name, make, where)


def check_choices(settings: object, groups: Iterable[Options] = STAGE_GROUPS) -> None:
    """Each group's name field must be the chosen option's own (``retrieval=bm25 retrieval.mode=dense`` is an error).

    ``settings``: a run's or a verb's config; a group it does not hold is skipped.
    """
    for group in groups:
        chosen = getattr(settings, group.group, None)
        if chosen is not None:
            group.check_choice(chosen)


def explain_unknown_key(message: str, overrides: Sequence[str] = (), groups: Sequence[Options] = ()) -> str:
    """Hydra's "Key 'x' not in 'FixedConfig'" as "chunker.x is not a setting of chunker=fixed; its settings are ...".

    Also a nested group the chosen option lacks (``retrieval=bm25 retrieval.index=hnsw``). ``groups``: a
    verb's own groups besides the run's.
    """
    known = [*RUN_GROUPS, *groups]
    nested = re.search(r"Could not override '(\w+)/(\w+)'\. No match in the defaults list", message)
    if nested is not None:
        parent, key = nested.groups()
        group = next((g for g in known if g.path == parent), None)
        if group is not None:
            chosen = [o.partition("=")[2] for o in overrides if o.partition("=")[0] == parent]
            name = chosen[-1] if chosen else group.default
            if name in group:
                return group.not_a_setting(name, key)
    found = re.search(r"Key '([^']+)' not in '([^']+)'", message)
    if found is None:
        return message
    key, schema = found.groups()
    for group in known:
        name = group.option_of_schema(schema)
        if name is not None:
            return group.not_a_setting(name, key)
    return message
