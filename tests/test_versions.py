"""core/versions.py: installed versions as importlib.metadata gives them, checked against it."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile

import pytest

from rag_bench.core import versions
from rag_bench.core.cache import COMPUTING, library_versions


def oracle(names):
    found = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def dist(folder, dirname, metadata="METADATA", text="Metadata-Version: 2.1\nName: x\nVersion: {v}\n\nbody\n", v="1.0"):
    path = folder / dirname
    path.mkdir(parents=True)
    (path / metadata).write_text(text.format(v=v), encoding="utf-8")
    return path


INSTALLED = ("hydra-core", "omegaconf", "PyYAML", "pyyaml", "pyarrow", "rank-bm25", "Rank.BM25", "pytest", "pip")


def test_this_environment_agrees_with_importlib_metadata():
    names = (*COMPUTING, *INSTALLED, "rag-bench", "no-such-package-here")
    assert library_versions(names) == oracle(names)
    assert library_versions(("no-such-package-here",)) == {"no-such-package-here": None}


def test_a_run_s_versions_do_not_import_importlib_metadata():
    code = "import sys; from rag_bench.core.cache import library_versions; library_versions(); "
    code += "print('importlib.metadata' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_first_entry_wins_names_normalise_and_pkg_info_stands_in(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    dist(first, "foo_bar-2.0.dist-info", v="2.0")
    dist(second, "foo_bar-3.0.dist-info", v="3.0")
    dist(second, "Only.Here-0.5.dist-info", v="0.5")
    dist(second, "legacy-4.1-py3.11.egg-info", metadata="PKG-INFO", v="4.1")
    dist(second, "spaced-1.0.dist-info", text="Name: spaced\nVersion:   1.0 \n\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(first), str(second)])
    names = ("foo-bar", "Foo.Bar", "only-here", "only_here", "legacy", "spaced", "absent")
    expected = {"foo-bar": "2.0", "Foo.Bar": "2.0", "only-here": "0.5", "only_here": "0.5", "legacy": "4.1"}
    expected |= {"spaced": "1.0 ", "absent": None}
    assert versions._listed(names) == expected  # by hand
    assert versions.versions(names) == oracle(names) == expected


def test_what_it_does_not_read_goes_to_importlib_metadata(tmp_path, monkeypatch):
    folded = tmp_path / "folded"
    dist(folded, "fold-1.0.dist-info", text="Name: fold\nVersion: 1.0\n  .post1\n\n")
    monkeypatch.setattr(sys, "path", [str(folded)])
    with pytest.raises(versions._Unusual):
        versions._listed(("fold",))
    assert versions.versions(("fold",)) == oracle(("fold",)) == {"fold": "      1.0\n.post1"}  # its own unfolding

    files = tmp_path / "files"
    files.mkdir()
    (files / "old-0.9-py3.11.egg-info").write_text("Name: old\nVersion: 0.9\n\n", encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(files)])
    assert versions.versions(("old",)) == oracle(("old",)) == {"old": "0.9"}

    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-7.0.dist-info/METADATA", "Name: zipped\nVersion: 7.0\n\n")
    monkeypatch.setattr(sys, "path", [str(archive)])
    with pytest.raises(versions._Unusual):
        versions._listed(("zipped",))
    assert versions.versions(("zipped",)) == oracle(("zipped",)) == {"zipped": "7.0"}


def test_another_finder_of_distributions_goes_to_importlib_metadata(tmp_path, monkeypatch):
    class Finder:
        @staticmethod
        def find_distributions(context=None):
            return iter([importlib.metadata.PathDistribution(tmp_path / "own-5.0.dist-info")])

        @staticmethod
        def find_spec(*args, **kwargs):
            return None

    dist(tmp_path, "own-5.0.dist-info", v="5.0")
    monkeypatch.setattr(sys, "meta_path", [Finder, *sys.meta_path])
    with pytest.raises(versions._Unusual):
        versions._listed(("own",))
    assert versions.versions(("own",)) == {"own": "5.0"}
