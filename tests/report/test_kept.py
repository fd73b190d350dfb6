"""Marks and plots kept in the cache: computed once per set of inputs, and again when an input changes."""

import shutil
import subprocess
import sys

import pandas as pd
import pytest

import rag_bench.report.sweep.kept as kept
from rag_bench.core.cache import DiskCache
from rag_bench.report.sweep.collect import collect
from rag_bench.report.sweep.marks import mark_points, with_marks
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.work import RUN_WORK


def refuse(*args, **kwargs):
    raise AssertionError("computed again, not read from the cache")


def test_marks_are_read_back_until_a_score_changes(size_sweep, tmp_path, monkeypatch):
    cache, sweep = DiskCache(tmp_path / "cache"), collect(size_sweep)
    first = kept.kept_marks(cache, sweep, "ndcg@10", 0.05, 0, 0.5)
    assert first == mark_points(sweep, "ndcg@10", 0.05, 0, 0.5)
    with monkeypatch.context() as patched:
        patched.setattr(kept, "mark_points", refuse)
        again = kept.kept_marks(cache, sweep, "ndcg@10", 0.05, 0, 0.5)
        with pytest.raises(AssertionError, match="computed again"):
            kept.kept_marks(cache, sweep, "ndcg@10", 0.05, 1, 0.5)  # another seed
    assert again == first and again.marks["0"].p_holm == 1 / 32
    path = size_sweep / "2" / "per_question.csv"
    path.write_text(path.read_text().replace(",0.0,0.0,0.0", ",1.0,1.0,1.0"))  # point 2 misses nothing now
    changed = kept.kept_marks(cache, collect(size_sweep), "ndcg@10", 0.05, 0, 0.5)
    assert changed.marks["2"].p_value == 1.0 and changed != first


def plot_data(sweep_dir):
    sweep = collect(sweep_dir)
    marks = mark_points(sweep, "ndcg@10")
    return PlotData(with_marks(sweep.table, marks), "ndcg@10", tuple(sweep.swept))


def test_plots_are_drawn_once_without_what_a_run_did(size_sweep, tmp_path, monkeypatch):
    cache, data = DiskCache(tmp_path / "cache"), plot_data(size_sweep)
    seen = []
    from rag_bench.report.sweep import plots

    make_plots = plots.make_plots

    def spy(given, out_dir):
        seen.append(list(given.table.columns))
        return make_plots(given, out_dir)

    monkeypatch.setattr(plots, "make_plots", spy)
    first = kept.kept_plots(cache, data, tmp_path / "a")
    assert len(seen) == 1 and not set(RUN_WORK) & set(seen[0])  # the plots never see what a run did
    assert sorted(p.name for p in first) == ["metric_vs_chunk_size.png", "quality_vs_cost.png", "recall_vs_k.png"]
    other_run = data.table.assign(seconds=99.0, embedded=0, cache_hits=7)  # a repeated sweep: same plots
    again = kept.kept_plots(cache, PlotData(other_run, data.metric, data.swept), tmp_path / "b")
    assert len(seen) == 1 and [p.name for p in again] == [p.name for p in first]
    for a, b in zip(first, again, strict=True):
        assert a.read_bytes() == b.read_bytes() and a.read_bytes().startswith(b"\x89PNG")
    other_sizes = data.table.assign(index_bytes=data.table["index_bytes"] * 2)  # the cost plot's x-axis
    kept.kept_plots(cache, PlotData(other_sizes, data.metric, data.swept), tmp_path / "c")
    assert len(seen) == 2


def test_a_repeated_sweep_report_equals_the_first_but_for_the_run_columns(size_sweep, tmp_path):
    from rag_bench.report.sweep.cli import report_sweep

    cache = DiskCache(tmp_path / "cache")
    copy = tmp_path / "again"
    shutil.copytree(size_sweep, copy)
    report_sweep(size_sweep, cache=cache)
    report_sweep(copy, cache=cache)  # marks and plots from the cache
    fresh = tmp_path / "fresh"
    report_sweep(size_sweep, fresh, cache=DiskCache(tmp_path / "empty"))
    for name in ("metric_vs_chunk_size.png", "quality_vs_cost.png", "recall_vs_k.png"):
        assert (copy / "plots" / name).read_bytes() == (fresh / "plots" / name).read_bytes()
    pd.testing.assert_frame_equal(pd.read_csv(copy / "summary.csv"), pd.read_csv(fresh / "summary.csv"))


def test_the_report_imports_matplotlib_only_to_draw():
    check = "import sys, rag_bench.report.sweep.cli; assert 'matplotlib' not in sys.modules, 'imported'"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
