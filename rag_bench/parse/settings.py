"""What every parser's settings hold: which files to leave out, the cleaning after parsing, and failures.

Each parser (``parse/registry.py``) is an option of the ``parser`` group with these settings; the options
differ in the reader each file type gets. ``__post_init__`` checks values before any work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from omegaconf import MISSING

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of

REPEATED = ("off", "pages", "documents")
DUPLICATES = ("keep", "flag", "drop")
FAILURES = ("auto", "stop", "skip")


@dataclass
class ParserConfig:
    """Every parser: files left out, cleaning (repeated lines, near-duplicate documents), failed files."""

    name: str = MISSING
    exclude: list[str] = field(default_factory=list)  # glob patterns under docs/ left out, e.g. ["*.csv", "old/*"]
    # off; pages: lines at the top or bottom of a page repeated on repeat_share of a file's pages (running
    # headers, footers, page numbers); documents: also lines found in repeat_share of the parsed files (menus)
    repeated: str = "pages"
    repeat_share: float = 0.5  # and at least 2 pages (files); digits count as one (page 3 of 9 = page 4 of 9)
    duplicates: str = "keep"  # keep; flag (metadata duplicate_of); drop (later near-duplicates leave the corpus)
    near: float = 0.6  # Jaccard similarity of word 5-gram sets at which two documents are near-duplicates (two
    # versions of a two-page policy with five edited sentences: 0.68)
    failures: str = "auto"  # a file its reader cannot read: stop (error), skip (counted, named); auto: stop in a
    # single run, skip in a sweep (-m)

    def __post_init__(self) -> None:
        one_of("parser.repeated", self.repeated, REPEATED)
        one_of("parser.duplicates", self.duplicates, DUPLICATES)
        one_of("parser.failures", self.failures, FAILURES)
        if not 0 < self.repeat_share <= 1:
            raise ConfigError(f"parser.repeat_share ({self.repeat_share}) must lie in (0, 1], e.g. 0.5")
        if not 0 < self.near <= 1:
            raise ConfigError(f"parser.near ({self.near}) must lie in (0, 1], e.g. 0.6")
        bad = [p for p in self.exclude if not isinstance(p, str) or not p.strip()]
        if bad:
            raise ConfigError(f"parser.exclude ({list(self.exclude)}) must be glob patterns such as ['*.csv']")

    def cleaning(self) -> dict[str, object]:
        """The settings that change a parsed text after its reader (they key the cleaned corpus)."""
        return {"repeated": self.repeated, "repeat_share": self.repeat_share}
