"""What a rewrite run asked of the API: requests and tokens by kind, from the replies' usage.

Priced by ``remote/prices.py`` (``configs/prices.yaml``); a model missing from the table has an unknown
(None) cost unless both prices are given as settings.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class RewriteUsage:
    """Requests sent and tokens billed by one ``rag-bench rewrite`` run."""

    requests: int = 0  # replies asked of the API in this run
    from_cache: int = 0  # replies served from the disk cache (no request)
    tokens: dict[str, int] = field(default_factory=lambda: {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0})
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)  # concurrent requests

    def add(self, usage) -> None:
        """Add a Messages API reply's ``usage`` (input, output, cache creation and cache read tokens)."""
        self.add_counts(
            {
                name: getattr(usage, attr, 0) or 0
                for name, attr in (
                    ("input", "input_tokens"),
                    ("cache_write", "cache_creation_input_tokens"),
                    ("cache_read", "cache_read_input_tokens"),
                    ("output", "output_tokens"),
                )
            }
        )

    def add_counts(self, counts: dict[str, int]) -> None:
        """Add one reply's tokens by kind (kinds not given count 0)."""
        with self._lock:
            self.requests += 1
            for name, value in counts.items():
                self.tokens[name] += value

    def served_from_cache(self) -> None:
        with self._lock:
            self.from_cache += 1
