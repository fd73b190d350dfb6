"""Every number a setting takes is finite and within ``LIMIT``: checked once, on the settings as given, before
any schema's own checks or any computation reads them.

A float setting of 1e308 passes "is it a number" but overflows what it feeds (BM25's ``(k1 + 1) * tf``), and
NaN passes every comparison a range check makes (``nan < 0`` is False). So before a composed config becomes
the settings dataclasses (``config.schema.validate``, ``config.verb.Verb.compose``) and before
``Options.settings`` builds one, every number in it, lists included, must be finite and at most ``LIMIT``
in size; the error names the key as the user writes it (``retrieval.k1``, ``retrieval.weights[0]``).
The schemas then check each setting's own range (``k1 >= 0``, ``0 <= b <= 1``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rag_bench.core.errors import ConfigError

LIMIT = 1e9  # |x| of any numeric setting: products of a few such numbers stay far from float64's 1.8e308


def check_numbers(values: object, key: str = "") -> None:
    """A ConfigError naming the first number in ``values`` (a mapping, list or number) that is not finite or
    beyond ``LIMIT``; ``key``: the dotted key of ``values`` itself."""
    if isinstance(values, Mapping):
        for name, value in values.items():
            check_numbers(value, f"{key}.{name}" if key else str(name))
    elif isinstance(values, list | tuple):
        for at, value in enumerate(values):
            check_numbers(value, f"{key}[{at}]")
    elif isinstance(values, int | float) and not isinstance(values, bool):
        if isinstance(values, float) and not math.isfinite(values):
            raise ConfigError(f"{key} ({values}) must be a finite number")
        if abs(values) > LIMIT:
            raise ConfigError(f"{key} ({values:g}) is out of range: a setting's size is at most {LIMIT:g}")
