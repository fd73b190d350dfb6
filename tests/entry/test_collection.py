"""entry/collection.py: the command imports and composes with the garbage collector paused, then freezes start-up."""

import gc
import json
import subprocess
import sys
import textwrap

from rag_bench.entry import collection


def test_pause_then_resume_once_freezes_what_exists_and_collects_again():
    frozen = gc.get_freeze_count()
    try:
        collection.pause_collection()
        assert not gc.isenabled() and collection.paused()
        made = [[] for _ in range(1000)]  # objects made while paused
        collection.resume_collection()
        assert gc.isenabled() and not collection.paused()
        assert gc.get_freeze_count() >= frozen + len(made)
        count = gc.get_freeze_count()
        collection.resume_collection()  # once only: a sweep's later jobs freeze nothing more
        assert gc.get_freeze_count() == count and gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_collector_someone_else_turned_off_is_left_off_and_nothing_is_frozen():
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        collection.pause_collection()
        assert not collection.paused()
        collection.resume_collection()
        assert not gc.isenabled() and gc.get_freeze_count() == frozen
    finally:
        gc.enable()


SCRIPT = textwrap.dedent(
    """
    import gc, json, sys
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    import rag_bench.entry.hydra_app as app
    from rag_bench.entry.cli import main

    seen = {}
    compose, job = ConfigLoaderImpl.load_configuration, app.run_job

    def load_configuration(self, *args, **kwargs):
        seen["composing"] = gc.isenabled()
        return compose(self, *args, **kwargs)

    def run_job(cfg):
        seen["job"] = [gc.isenabled(), gc.get_freeze_count() > 0]
        return job(cfg)

    ConfigLoaderImpl.load_configuration, app.run_job = load_configuration, run_job
    main(sys.argv[1:])
    seen["after"] = gc.isenabled()
    print("SEEN " + json.dumps(seen))
    """
)


def test_the_command_composes_with_the_collector_paused_and_runs_its_job_with_it_back(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-c", SCRIPT, "embedder=fake", "retrieval=bm25", f"hydra.run.dir={out}"]
    env = {"RAG_BENCH_CACHE": str(tmp_path / "cache"), "RAG_BENCH_QUIET": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.rpartition("SEEN ")[2])
    assert seen == {"composing": False, "job": [True, True], "after": True}
    assert json.loads((out / "metrics.json").read_text())["stats"]["chunks"] > 0  # the run itself finished
