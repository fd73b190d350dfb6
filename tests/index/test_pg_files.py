"""Under root the embedded PostgreSQL runs as 'nobody': a folder it cannot enter is one clear error before a start."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.index.postgres import files as pg_files

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the service user is used only when running as root")


@pytest.fixture
def reachable(monkeypatch):
    """A cache folder and a programs folder that others may enter (pytest's own tmp_path is mode 700)."""
    base = Path(tempfile.mkdtemp(prefix="rag-bench-pg-files-"))
    try:
        base.chmod(0o755)
        for folder in base.parents:
            assert folder.stat().st_mode & 0o001, f"{folder} must be searchable by others for this test"
        programs = base / "venv" / "pginstall" / "bin"
        programs.mkdir(parents=True)
        (programs / "initdb").write_text("")
        monkeypatch.setattr(pg_files, "binary", lambda name: str(programs / name))
        cache = base / "cache" / "pgvector"
        cache.mkdir(parents=True)
        yield cache, base / "venv"
    finally:
        shutil.rmtree(base)


def test_folders_others_can_enter_pass(reachable):
    cache, _ = reachable
    pg_files.check_reachable(cache)


def test_a_closed_folder_above_the_data_names_it_and_the_fix(reachable):
    cache, _ = reachable
    cache.parent.chmod(0o700)
    with pytest.raises(ConfigError, match=f"folder {cache.parent} is not searchable by others; set RAG_BENCH_CACHE"):
        pg_files.check_reachable(cache)


def test_a_closed_folder_above_the_programs_names_it_and_the_fix(reachable):
    """A virtual environment inside a mode-700 folder (as ``mktemp -d`` makes): initdb would fail with EACCES."""
    cache, venv = reachable
    venv.chmod(0o700)
    with pytest.raises(
        ConfigError, match=f"cannot run the programs in .*: folder {venv} is not searchable.*chmod o\\+x"
    ):
        pg_files.check_reachable(cache)
