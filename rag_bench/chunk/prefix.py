"""Chunk prefixes: text embedded and indexed with a chunk but never counted as its source."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from rag_bench.chunk.contexts import Contexts
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Document

PREFIXES = ("none", "title", "headings", "contexts")
# (chunk start, chunk end) -> prefix; every kind but contexts needs only the start
Prefix = Callable[[int, int], str]

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def heading_trail(text: str) -> Callable[[int], str]:
    """A function from a character offset to the Markdown heading trail above it.

    Example: under "# Report", "## Security", "### Incidents" the trail at a
    paragraph in Incidents is "Report > Security > Incidents".
    """
    positions: list[int] = []
    trails: list[str] = []
    stack: list[tuple[int, str]] = []
    for match in _HEADING.finditer(text):
        level = len(match.group(1))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, match.group(2)))
        positions.append(match.start())
        trails.append(" > ".join(title for _, title in stack))

    def trail(offset: int) -> str:
        i = bisect.bisect_right(positions, offset) - 1
        return trails[i] if i >= 0 else ""

    return trail


def prefixer(kind: str, doc: Document, contexts: Contexts | None = None) -> Prefix:
    """The prefix of the chunk ``[start, end)`` of ``doc``; ``contexts`` is read for ``kind="contexts"``."""
    if kind == "none":
        return lambda start, end=None: ""
    if kind == "title":
        title = doc.title or doc.id
        return lambda start, end=None: title
    if kind == "headings":
        trail = heading_trail(doc.text)
        title = doc.title or doc.id
        return lambda start, end=None: trail(start) or title
    if kind == "contexts":
        if contexts is None:
            raise ConfigError(
                "chunker.prefix=contexts needs chunker.contexts=<file written by rag-bench contextualize>"
            )
        return contexts.for_document(doc)
    raise ConfigError(f"chunker.prefix ({kind!r}) must be one of: {', '.join(PREFIXES)}")
