"""``--dry-run`` plans and ``budget.*`` caps, on a three-document dataset whose tokens are counted by hand, with the
real ``voyageai`` client against the fake Voyage server (its model priced by ``embedder.price_per_million``).

WordPiece (the bundled all-MiniLM-L6-v2 tokenizer, which plans API tokens) splits these texts into whole
words, plus [CLS] and [SEP]: "the cat sat on the mat" is 6 + 2 = 8 tokens, "a dog ran in the park" 8,
"birds sing in the morning" 7 (chunks: 23); "where did the cat sit" 7, "what did the dog do" 7 (questions: 14).
At $1 per million tokens a cold run costs (23 + 14) / 10^6 = $0.000037.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rag_bench.config.compose import compose
from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder
from rag_bench.core.workspace import Workspace
from rag_bench.pipeline.plan import plan_point
from rag_bench.pipeline.run import run
from rag_bench.testing.voyage_server import FakeVoyageServer

KEY = "pa-plan-test-key"
DOCUMENTS = {"d1": "the cat sat on the mat", "d2": "a dog ran in the park", "d3": "birds sing in the morning"}
QUESTIONS = [
    {"id": "q1", "question": "where did the cat sit", "evidence": [{"doc_id": "d1", "start": 0, "end": 22}]},
    {"id": "q2", "question": "what did the dog do", "evidence": [{"doc_id": "d2", "start": 0, "end": 21}]},
]
COLD_USD = (23 + 14) / 1e6


def write_dataset(folder: Path, documents: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"id": doc_id, "text": text} for doc_id, text in documents.items()]
    (folder / "documents.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return folder


def overrides(folder: Path, server: FakeVoyageServer) -> list[str]:
    return [
        f"dataset.path={folder}",
        "chunker=fixed",  # one chunk per document: each is shorter than 800 characters
        "embedder=voyage",
        f"embedder.base_url={server.url}",
        "embedder.price_per_million=1.0",
        "embedder.backoff_s=0.01",
        "bootstrap=10",
        "quiet=true",
    ]


def config_of(args: list[str]):
    register()
    return validate(compose(project_folder("configs"), args, "test"))


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    monkeypatch.delenv("VOYAGE_API_KEY_PATH", raising=False)
    with FakeVoyageServer(api_key=KEY) as fake:  # stopped on leaving, whatever happens
        yield fake


def test_a_plan_counts_texts_tokens_and_cost_before_and_after_a_warm_cache(server, tmp_path):
    folder = write_dataset(tmp_path / "kb", DOCUMENTS)
    config = config_of([*overrides(folder, server), f"cache_dir={tmp_path / 'cache'}"])
    ws = Workspace.open(config.cache_dir)
    cold = plan_point(config, ws)
    chunks, questions = cold.parts
    assert (chunks.what, chunks.sent, chunks.cached, chunks.tokens) == ("embedding chunks", 3, 0, 23)
    assert (questions.what, questions.sent, questions.cached, questions.tokens) == ("embedding questions", 2, 0, 14)
    assert cold.usd == pytest.approx(COLD_USD) and cold.tokens == 37
    assert not cold.timed  # nothing recorded on this cache yet: the time is unknown, and said so
    assert server.received("/v1/embeddings") == []  # planning sent nothing
    assert not Path(config.cache_dir).exists()  # and wrote nothing, not even the cache folder

    done = run(config, Workspace.open(config.cache_dir))
    sent = [t for r in server.received("/v1/embeddings") for t in r.body["input"]]
    assert sorted(sent) == sorted([*DOCUMENTS.values(), *(q["question"] for q in QUESTIONS)])
    assert done.stats.cost_usd == pytest.approx(27 / 1e6)  # the fake server bills words: 17 + 10, under the plan

    warm = plan_point(config, Workspace.open(config.cache_dir))
    assert [(p.sent, p.cached, p.tokens) for p in warm.parts] == [(0, 3, 0), (0, 2, 0)]
    assert warm.usd == 0.0 and warm.timed  # the run recorded its throughput in the cache

    grown = write_dataset(tmp_path / "kb2", {**DOCUMENTS, "d4": "fish swim in the sea"})  # 5 + 2 tokens
    config2 = config_of([*overrides(grown, server), f"cache_dir={tmp_path / 'cache'}"])
    partial = plan_point(config2, Workspace.open(config2.cache_dir))
    assert [(p.sent, p.cached, p.tokens) for p in partial.parts] == [(1, 3, 7), (0, 2, 0)]
    assert partial.usd == pytest.approx(7 / 1e6)


def test_a_sweep_plan_counts_texts_an_earlier_point_embeds_as_cached(server, tmp_path):
    folder = write_dataset(tmp_path / "kb", DOCUMENTS)
    pending: dict = {}
    ws = Workspace.open(tmp_path / "cache")
    plans = [
        plan_point(
            config_of([*overrides(folder, server), f"cache_dir={tmp_path / 'cache'}", f"retrieval={mode}"]), ws, pending
        )
        for mode in ("dense", "hybrid", "bm25")
    ]
    assert [p.usd for p in plans] == [pytest.approx(COLD_USD), 0.0, 0.0]  # hybrid finds dense's texts; bm25 embeds none
    assert [len(p.parts) for p in plans] == [2, 2, 0]


def rag_bench(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "rag_bench", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_budget_stops_a_four_point_sweep_after_point_2_as_its_plan_said(server, tmp_path):
    folder = write_dataset(tmp_path / "kb", DOCUMENTS)
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache"), "VOYAGE_API_KEY": KEY}
    # four models, each its own vectors: every point embeds the 5 texts, planned at $0.000037 each;
    # $0.0001 holds two points (0.000074), not a third (0.000111)
    sweep = ["-m", *overrides(folder, server), "embedder.model=voyage-3.5,voyage-3,voyage-4,voyage-3-large"]
    sweep += ["budget.usd=0.0001", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    plan = rag_bench([*sweep, "--dry-run"], tmp_path, env)
    assert plan.returncode == 0, plan.stderr
    lines = plan.stdout.splitlines()
    points = [line for line in lines if re.match(r"plan \d", line)]
    assert [("NOT RUN" in line) for line in points] == [False, False, True, True]
    assert (
        "the sweep stops before point 2 (embedder.model=voyage-4): budget.usd (0.0001): spent $0.000074" in plan.stdout
    )
    assert "with this budget: 2 points run ($0.000074" in plan.stdout
    assert server.received("/v1/embeddings") == [] and not (tmp_path / "sweep").exists()

    done = rag_bench(sweep, tmp_path, env)
    assert done.returncode == 3, done.stderr  # BUDGET_STOP
    assert "sweep stopped by its budget: points 2, 3 not run" in done.stderr
    models = sorted({r.body["model"] for r in server.received("/v1/embeddings")})
    assert models == ["voyage-3", "voyage-3.5"]  # points 0 and 1 ran, nothing else was sent
    for point in ("0", "1"):
        assert (tmp_path / "sweep" / point / "metrics.json").is_file()
    for point in ("2", "3"):
        reason = json.loads((tmp_path / "sweep" / point / "not_run.json").read_text())["reason"]
        assert not (tmp_path / "sweep" / point / "metrics.json").exists()
        assert reason.startswith("budget.usd (0.0001)") or "the sweep stopped before point 2" in reason
    report = (tmp_path / "sweep" / "report.md").read_text()
    assert "2 points not run (budget)" in report and "budget.usd (0.0001)" in report
    again = rag_bench([*sweep[:-1], f"hydra.sweep.dir={tmp_path / 'again'}", "--dry-run"], tmp_path, env)
    assert again.returncode == 0, again.stderr  # points 0 and 1 would be served from the run cache, at no cost:
    assert again.stdout.count("served from the run cache") == 2  # the same budget now runs the rest
    assert "with this budget: every point runs" in again.stdout and "$0.000074 estimated" in again.stdout


def test_budget_settings_must_be_finite_numbers_not_below_zero(tmp_path):
    from rag_bench.core.errors import ConfigError

    folder = write_dataset(tmp_path / "kb", DOCUMENTS)
    for setting, shown in (("budget.usd=-1", "budget.usd (-1.0)"), ("budget.seconds=-0.5", "budget.seconds (-0.5)")):
        with pytest.raises(ConfigError, match=re.escape(f"{shown} must be a finite number >= 0")):
            config_of([f"dataset.path={folder}", setting])
    assert config_of([f"dataset.path={folder}", "budget.usd=0"]).budget.usd == 0.0  # 0: only free points run


def test_a_point_runs_only_while_spent_plus_its_plan_stays_within_the_budget():
    from rag_bench.config.schema import BudgetConfig
    from rag_bench.entry.planning import Planning, decide, over_budget
    from rag_bench.pipeline.plan import Part, PointPlan

    plan = PointPlan([Part("embedding chunks", "m", 10, 0, 1000, 0.3, 2.0)], other_seconds=1.0)  # $0.3, 3 s
    assert over_budget(BudgetConfig(usd=1.0), 0.7, 0.0, plan) is None  # 0.7 + 0.3 = 1.0: not over
    assert "= $1.100000 would exceed it" in over_budget(BudgetConfig(usd=1.0), 0.8, 0.0, plan)
    assert over_budget(BudgetConfig(seconds=10), 0.0, 7.0, plan) is None  # 7 + 3 = 10
    assert "7.5 s so far + this point's estimate 3.0 s" in over_budget(BudgetConfig(seconds=10), 0.0, 7.5, plan)
    planning = Planning(dry=True, spent_usd=0.8)
    assert decide(planning, "2 (x=1)", BudgetConfig(usd=1.0), plan) is not None
    free = PointPlan([Part("embedding chunks", "m", 0, 10, 0, 0.0, 0.0)], other_seconds=0.0)
    later = decide(planning, "3 (x=2)", BudgetConfig(usd=1.0), free)  # free, but the sweep has stopped
    assert later.startswith("the sweep stopped before point 2 (x=1)")


@pytest.mark.slow
def test_a_budget_on_a_parallel_launcher_is_refused_in_one_line(tmp_path):
    folder = write_dataset(tmp_path / "kb", DOCUMENTS)
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    args = ["-m", f"dataset.path={folder}", "embedder=fake", "chunker.size=100,200", "budget.usd=1"]
    args += ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    done = rag_bench(args, tmp_path, env)
    assert done.returncode == 2
    assert "rag-bench: error: budget.usd/budget.seconds need the basic launcher, not JoblibLauncher" in done.stderr
    assert "Traceback" not in done.stderr and not list((tmp_path / "sweep").glob("*/metrics.json"))


def test_a_chunker_that_embeds_to_cut_is_planned_once_its_chunks_are_cached(tmp_path):
    sentences = "the cat sat on the mat. a bird sang. the sun rose. the rain fell."  # several: cut by similarity
    folder = write_dataset(tmp_path / "kb", {**DOCUMENTS, "d1": sentences})
    args = [f"dataset.path={folder}", "chunker=semantic", "embedder=fake", f"cache_dir={tmp_path / 'cache'}"]
    config = config_of([*args, "quiet=true", "bootstrap=10"])
    cold = plan_point(config, Workspace.open(config.cache_dir))
    assert cold.parts == [] and cold.notes[0].startswith("chunker=semantic embeds")  # said, not guessed
    assert "texts, tokens and cost unknown until its chunks are cached" in cold.notes[0]
    run(config, Workspace.open(config.cache_dir))
    warm = plan_point(config, Workspace.open(config.cache_dir))
    assert warm.notes == [] and [(p.what, p.sent) for p in warm.parts] == [
        ("embedding chunks", 0),
        ("embedding questions", 0),
    ]
