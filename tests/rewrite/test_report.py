import json
import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from rag_bench.core.errors import DataError
from rag_bench.core.paths import project_folder
from rag_bench.data.native import load_dataset
from rag_bench.data.variants import read_variants
from rag_bench.rewrite.offline import OfflineRewriter, OfflineRewriterConfig
from rag_bench.rewrite.report import REPORT_NAME, main, report_rows
from rag_bench.rewrite.run import limits, rewrite_all
from rag_bench.rewrite.settings import RewriteConfig


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """``rag-bench sweep=query`` on annual-report with the fake embedder: a real Hydra multirun."""
    tmp = tmp_path_factory.mktemp("query-sweep")
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp / "cache")}
    command = [sys.executable, "-m", "rag_bench", "sweep=query", "dataset=annual-report", "embedder=fake"]
    done = subprocess.run(
        [*command, f"hydra.sweep.dir={tmp / 'sweep'}"], cwd=tmp, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "sweep"


def per_question(folder):
    table = pd.read_csv(folder / "per_question.csv", dtype={"question_id": str})
    return table[table["labelled"]].set_index("question_id")


def test_sweep_writes_the_report_and_its_rows_match_the_runs(sweep):
    points = {}
    for folder in sorted(p for p in sweep.iterdir() if (p / "metrics.json").is_file()):
        kinds = json.loads((folder / "metrics.json").read_text())["config"]["retrieval"]["variant_kinds"]
        points[tuple(kinds)] = folder
    assert sorted(points) == [(), ("decompose",), ("keywords",), ("keywords", "decompose")]
    report = (sweep / REPORT_NAME).read_text(encoding="utf-8")
    base, keywords = per_question(points[()]), per_question(points[("keywords",)])
    # an independent oracle: means and wins / losses of recall@10 per category, from the runs' own tables
    for category in ("identifier", "paraphrase"):
        ids = base.index[base["category"] == category]
        before, after = base.loc[ids, "recall@10"], keywords.loc[ids, "recall@10"]
        wins, losses = int((after > before).sum()), int((after < before).sum())
        cells = f"| {category} | keywords | {len(ids)} | {before.mean():.3f} | {after.mean():.3f} | "
        cells += f"{after.mean() - before.mean():+.3f} | "
        row = next(line for line in report.splitlines() if line.startswith(cells))
        assert row.split(" | ")[7:9] == [str(wins), str(losses)]
    assert report.count("| keywords+decompose |") == 5  # all questions and the four categories


def test_the_undecomposed_questions_lose_and_gain_nothing(sweep):
    rows = report_rows([sweep], ["recall@10", "ndcg@10"])[0][1]
    # annual-report's paraphrase questions hold no second question: decompose leaves their lists alone
    lines = read_variants(project_folder("datasets") / "annual-report" / "variants-offline.jsonl")
    categories = {q.id: q.category for q in load_dataset(project_folder("datasets") / "annual-report").questions}
    assert not any(e.texts for e in lines if e.kind == "decompose" and categories[e.question_id] == "paraphrase")
    for metric in ("recall@10", "ndcg@10"):
        row = next(r for r in rows if (r.metric, r.category, r.variants) == (metric, "paraphrase", "decompose"))
        assert (row.delta, row.wins, row.losses, row.p_value) == (0.0, 0, 0, 1.0)


def test_report_verb_prints_and_writes(sweep, tmp_path, capsys):
    out = tmp_path / "q.md"
    assert main([str(sweep / "0"), str(sweep / "1"), "--metric", "ndcg@10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "## ndcg@10 (reference: " in printed and out.read_text(encoding="utf-8") in printed
    assert "| (all) | keywords | 40 |" in printed and "decompose" not in printed


def test_a_group_needs_exactly_one_run_without_variants(sweep, tmp_path):
    with pytest.raises(DataError, match=r"0 runs without query variants among runs of the same settings"):
        report_rows([sweep / "1", sweep / "2"], ["recall@10"])
    shutil.copytree(sweep / "0", tmp_path / "again")
    with pytest.raises(DataError, match=r"2 runs without query variants"):
        report_rows([sweep / "0", tmp_path / "again", sweep / "1"], ["recall@10"])
    with pytest.raises(DataError, match=r"holds no run"):
        report_rows([tmp_path / "nothing"], ["recall@10"])


@pytest.mark.parametrize("name", ["kestrel-kb", "annual-report"])
def test_bundled_variants_are_what_the_offline_generator_writes(name):
    folder = project_folder("datasets") / name
    dataset = load_dataset(folder, name)
    offline = OfflineRewriter(OfflineRewriterConfig(), dataset, None)
    fresh = rewrite_all(offline, dataset, ["decompose", "keywords"], limits(RewriteConfig()))
    bundled = read_variants(folder / "variants-offline.jsonl")
    assert [(e.question_id, e.kind, e.texts, e.question) for e in bundled] == [
        (e.question_id, e.kind, e.texts, e.question) for e in fresh
    ]


def test_wins_and_losses_follow_the_metrics_direction(tmp_path):
    from rag_bench.rewrite.report import compare
    from rag_bench.run_folder.runs import Run

    def run(name, leaks):
        (tmp_path / name).mkdir()
        table = pd.DataFrame({"question_id": ["a", "b", "c"], "category": None, "labelled": True, "leak@10": leaks})
        return Run(tmp_path / name, name, table.set_index("question_id"))

    # with variants, question a leaks less (a win), b more (a loss), c the same
    rows = compare(run("ref", [0.4, 0.0, 0.1]), [run("var", [0.2, 0.3, 0.1])], ["keywords"], "leak@10", seed=0)
    assert [(r.category, r.wins, r.losses) for r in rows] == [("(all)", 1, 1), ("(none)", 1, 1)]
    rows = compare(run("ref2", [0.4, 0.0, 0.1]), [run("var2", [0.2, 0.0, 0.1])], ["keywords"], "leak@10", seed=0)
    assert (rows[0].wins, rows[0].losses) == (1, 0)
