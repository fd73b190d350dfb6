"""Chunk prefixes: text embedded and indexed with a chunk but never counted as its source."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from rag_bench.errors import ConfigError
from rag_bench.types import Document

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


def prefixer(kind: str, doc: Document) -> Callable[[int], str]:
    """The prefix of a chunk of ``doc`` that starts at a given offset."""
    if kind == "none":
        return lambda offset: ""
    if kind == "title":
        title = doc.title or doc.id
        return lambda offset: title
    if kind == "headings":
        trail = heading_trail(doc.text)
        title = doc.title or doc.id
        return lambda offset: trail(offset) or title
    raise ConfigError(f"chunker.prefix ({kind!r}) must be one of: none, title, headings")
