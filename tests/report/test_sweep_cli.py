import logging
import os
import subprocess
import sys

import pandas as pd
import pytest
from omegaconf import OmegaConf

from rag_bench.entry.cli import main as rag_bench_main
from rag_bench.report.sweep.callback import SweepReport
from rag_bench.report.sweep.cli import main

WRITTEN = {"summary.csv", "summary.parquet", "report.md", "report.html", "plots"}


def test_report_verb_writes_everything_into_the_sweep_folder(size_sweep, capsys):
    assert main([str(size_sweep)]) == 0
    out = capsys.readouterr().out
    assert "best on ndcg@10: #1 (chunker.size=400)" in out and str(size_sweep / "summary.csv") in out
    assert {p.name for p in size_sweep.iterdir()} >= WRITTEN
    csv = pd.read_csv(size_sweep / "summary.csv", dtype={"point": str})
    parquet = pd.read_parquet(size_sweep / "summary.parquet")
    assert list(csv.columns) == list(parquet.columns) and len(csv) == 3
    assert list(parquet["point"]) == ["0", "1", "2"] and list(parquet["best"]) == [False, True, False]
    pd.testing.assert_frame_equal(csv, parquet, check_dtype=False)


def test_out_folder_and_another_metric(size_sweep, tmp_path, capsys):
    assert main([str(size_sweep), "--metric", "recall@5", "--out", str(tmp_path / "elsewhere")]) == 0
    assert "best on recall@5: #1" in capsys.readouterr().out
    assert {p.name for p in (tmp_path / "elsewhere").iterdir()} >= WRITTEN
    assert not (size_sweep / "summary.csv").exists()


def test_usage_errors_exit_2_with_one_line(size_sweep, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        rag_bench_main(["report", str(size_sweep), "--metric", "recall@20"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("rag-bench: error: --metric recall@20 was not measured in")
    with pytest.raises(SystemExit) as exit_info:
        rag_bench_main(["report", str(tmp_path / "missing")])
    assert exit_info.value.code == 2 and "is not a folder" in capsys.readouterr().err
    assert main([]) == 2  # argparse: SWEEP_DIR is required


def test_callback_reports_when_the_multirun_ends(size_sweep):
    SweepReport(metric="recall@10").on_multirun_end(OmegaConf.create({"hydra": {"sweep": {"dir": str(size_sweep)}}}))
    assert {p.name for p in size_sweep.iterdir()} >= WRITTEN
    assert "best on recall@10" in (size_sweep / "report.md").read_text()


def test_callback_only_warns_when_there_is_nothing_to_report(tmp_path, caplog):
    with caplog.at_level(logging.WARNING):
        SweepReport().on_multirun_end(OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path)}}}))
    assert "sweep report not written" in caplog.text and "no finished sweep point" in caplog.text


def rag_bench(*args, cache):
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    command = [sys.executable, "-m", "rag_bench", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.slow
def test_real_multirun_then_report(tmp_path):
    sweep = tmp_path / "sweep"
    args = ["-m", "embedder=fake", "chunker.size=300,600", "retrieval=bm25,hybrid", f"hydra.sweep.dir={sweep}"]
    done = rag_bench(*args, cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    report = rag_bench("report", str(sweep), cache=tmp_path / "cache")
    assert report.returncode == 0, report.stderr
    table = pd.read_csv(sweep / "summary.csv")
    assert len(table) == 4
    assert sorted(zip(table["chunker.size"], table["retrieval"], strict=True)) == [
        (300, "bm25"),
        (300, "hybrid"),
        (600, "bm25"),
        (600, "hybrid"),
    ]
    assert table["best"].sum() == 1 and (table["chunks"] > 0).all() and (table["seconds"] > 0).all()
    assert table["work_chars"].notna().all() and (table["work_chars"] > 0).sum() == 2  # hybrid embeds, bm25 not
    report = (sweep / "report.md").read_text()
    assert all(f"[#{n}]({n}/report.html)" in report for n in range(4))  # each point links to its own report
    assert {p.name for p in (sweep / "plots").iterdir()} == {
        "metric_vs_chunk_size.png",
        "recall_vs_k.png",
        "quality_vs_cost.png",
    }


@pytest.mark.slow
def test_real_multirun_writes_its_report_through_the_callback(tmp_path):
    sweep = tmp_path / "sweep"
    callback = "++hydra.callbacks.sweep_report._target_=rag_bench.report.sweep.callback.SweepReport"
    args = ["-m", "embedder=fake", "retrieval=bm25,hybrid", f"hydra.sweep.dir={sweep}", callback]
    done = rag_bench(*args, cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert len(pd.read_csv(sweep / "summary.csv")) == 2
    assert "swept: retrieval = bm25, hybrid" in (sweep / "report.md").read_text()
