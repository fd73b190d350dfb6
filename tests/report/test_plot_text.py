"""Plot labels are plain text: a "$" in a swept value or dataset name is drawn as written, never as mathtext."""

import matplotlib
import pandas as pd
import pytest
from omegaconf import OmegaConf

from rag_bench.report.sweep.callback import SweepReport
from rag_bench.report.sweep.cli import main
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plots import make_plots

# "$$" is an empty formula mathtext refuses; "$x_1$" would be drawn as a subscript; "a$b" is a lone dollar
NAMES = ["a$$b", "$x_1$ kb", "a$b"]


@pytest.fixture
def dollar_sweep(tmp_path, make_point):
    """Chunk size x dataset.name, every name holding "$"."""
    root = tmp_path / "sweep"
    for num, (size, name) in enumerate((s, n) for s in (200, 400) for n in NAMES):
        score = size / 1000 + NAMES.index(name) / 100
        overrides = [f"chunker.size={size}", f"dataset.name={name}"]
        scores = {"ndcg@10": [score] * 4, "recall@5": [score] * 4, "recall@10": [score] * 4}
        make_point(root / str(num), overrides, scores, config={"chunker.size": size, "dataset.name": name})
    return root


def test_rag_bench_report_draws_dollar_signs_as_written(dollar_sweep, capsys):
    assert main([str(dollar_sweep)]) == 0
    plots = {p.name for p in (dollar_sweep / "plots").iterdir()}
    assert plots == {"metric_vs_chunk_size.png", "recall_vs_k.png", "quality_vs_cost.png"}
    # report.md escapes each $ (Markdown renderers read $...$ as maths); it renders as written
    assert r"dataset.name = a\$\$b, \$x_1\$ kb, a\$b" in (dollar_sweep / "report.md").read_text(encoding="utf-8")


def test_the_sweeps_callback_writes_its_report_with_dollar_signs(dollar_sweep):
    SweepReport().on_multirun_end(OmegaConf.create({"hydra": {"sweep": {"dir": str(dollar_sweep)}}}))
    assert (dollar_sweep / "report.md").is_file() and (dollar_sweep / "plots" / "metric_vs_chunk_size.png").is_file()


def test_every_text_of_every_plot_is_plain(tmp_path, monkeypatch):
    """The index-method curves too (ann_plot), and the settings as drawn: the texts keep their "$" unparsed."""
    rows = [
        {"retrieval.index.method": method, "retrieval.index.ef_search": ef, "recall@10": 0.5 + ef / 1000,
         "ndcg@10": 0.5 + ef / 1000, "latency_ms_p95": ef / 10, "point": str(i)}
        for i, (method, ef) in enumerate((m, e) for m in ("$$", "hnsw $x$") for e in (10, 40))
    ]  # fmt: skip
    drawn = []
    save = matplotlib.figure.Figure.savefig

    def keep(figure, *args, **kwargs):
        drawn.append(figure)
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    data = PlotData(pd.DataFrame(rows), "ndcg@10", ("retrieval.index.method", "retrieval.index.ef_search"))
    written = make_plots(data, tmp_path)
    assert "recall_vs_p95_latency.png" in {p.name for p in written}
    texts = [t for figure in drawn for t in figure.findobj(matplotlib.text.Text)]
    assert {"$$", "hnsw $x$"} <= {t.get_text() for t in texts}  # the legend holds both names as written
    assert not [t.get_text() for t in texts if t.get_parse_math()]
