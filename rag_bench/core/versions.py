"""Installed packages' versions as ``importlib.metadata.version`` gives them, without importing it where it can.

Importing ``importlib.metadata`` (it brings ``email``, ``zipfile``, ``csv`` ...) costs 15-25 ms, a tenth of what a
run does before its first stage when its cache is new (``core/cache.py`` keys computed results by the versions of
``COMPUTING``). Its answer for a name is the ``Version`` header of the first distribution found: the import
path's entries in order, each entry's ``<name>-<version>.dist-info`` / ``.egg-info`` folders in ``os.listdir``
order, a folder's name matched after PEP 503 normalisation with dashes as underscores (``Prepared.normalize``
in the standard library), its metadata read from ``METADATA``, else ``PKG-INFO``. ``versions`` does the same
with one listing per entry, and hands the whole question to ``importlib.metadata`` when anything falls outside
that (a zip or an ``.egg`` on the path, a metadata file rather than a folder, a folded or missing header, or a
finder besides the path finder that finds distributions): the same answer either way
(``tests/test_versions.py`` checks it against ``importlib.metadata``).
"""

from __future__ import annotations

import os
import re
import sys
from importlib.machinery import PathFinder

_RUN = re.compile(r"[-_.]+")
_HEADER = re.compile(r"[\041-\071\073-\176]*:")  # a header line's start (email.feedparser.headerRE)
SUFFIXES = (".dist-info", ".egg-info")


class _Unusual(Exception):
    """Something ``importlib.metadata`` reads that this module does not: it answers instead."""


def versions(names: tuple[str, ...]) -> dict[str, str | None]:
    """The installed version of each package (None where it is not installed)."""
    try:
        return _listed(names)
    except (_Unusual, OSError, UnicodeDecodeError):
        return _imported(names)


def _imported(names: tuple[str, ...]) -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def normalize(name: str) -> str:
    """``importlib.metadata``'s ``Prepared.normalize``: PEP 503 normalisation plus dashes as underscores."""
    return _RUN.sub("-", name).lower().replace("-", "_")


def _listed(names: tuple[str, ...]) -> dict[str, str | None]:
    if any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path):
        raise _Unusual
    wanted: dict[str, list[str]] = {}  # normalised name -> the names asked that it answers
    for name in names:
        wanted.setdefault(normalize(name), []).append(name)
    found: dict[str, str | None] = dict.fromkeys(names)
    for entry in sys.path:
        if not wanted:
            break
        for key, folder in _distributions(entry):
            if key in wanted:
                version = _version(folder)
                found.update(dict.fromkeys(wanted.pop(key), version))
    return found


def _distributions(entry: str) -> list[tuple[str, str]]:
    """(normalised name, folder) of each distribution's metadata in one import path entry, in listing order."""
    root = entry or "."
    if not os.path.isdir(root):
        if os.path.exists(root):  # a zip of packages
            raise _Unusual
        return []
    if os.path.basename(entry).lower().endswith(".egg"):
        raise _Unusual
    listed = []
    for child in os.listdir(root):
        low = child.lower()
        if low.endswith(SUFFIXES):
            listed.append((normalize(low.rpartition(".")[0].partition("-")[0]), os.path.join(root, child)))
    return listed


def _version(folder: str) -> str:
    """The ``Version`` header of a distribution's metadata folder (``METADATA``, else ``PKG-INFO``)."""
    if not os.path.isdir(folder):
        raise _Unusual
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        if text:
            return _header(text, "version")
    raise _Unusual


def _header(text: str, wanted: str) -> str:
    """The first header ``wanted`` (any case) of an RFC 822 block, as ``email`` reads it: the headers end at the
    first line that is not one (``email.feedparser``'s ``headerRE``); _Unusual when folded, absent or odd."""
    lines = text.split("\n")  # read in text mode: every line end is "\n"
    for number, line in enumerate(lines):
        if line.startswith("From "):
            raise _Unusual  # a Unix "From " line: email's own rules
        if _HEADER.match(line) is None:
            break
        name, _, value = line.partition(":")
        if name.lower() == wanted:
            if number + 1 < len(lines) and lines[number + 1][:1] in (" ", "\t"):
                raise _Unusual  # folded over several lines
            return value.lstrip(" \t")
    raise _Unusual
