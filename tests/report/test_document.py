import re

from rag_bench.report.sweep.cli import report_sweep
from rag_bench.report.sweep.document import p_value


def table_lines(text, header_start):
    """The header and data rows of the Markdown table whose header starts with ``header_start``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return lines[start], rows


def test_quality_table_sorted_with_best_ties_differences_and_p_values(size_sweep, tmp_path):
    report_sweep(size_sweep, tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text()
    header, rows = table_lines(text, "|  | point")
    assert header == (
        "|  | point | chunker.size | ndcg@10 | 95% interval | vs best [95%] | p (Holm) | recall@5 | recall@10 |"
    )
    # sorted by ndcg@10: size 400 (1.0, best), 800 (5/6, tie at Holm p 0.5), 200 (0, p 1/32)
    assert rows[0] == "| **best** | **#1** | **400** | **1.000** | **[0.900, 1.100]** | **0 (the best)** | **-** |" + (
        " **1.000** | **1.000** |"
    )
    # 800 misses one of six questions the best hits: mean difference -1/6; a resample holds that question
    # 0 to 6 times, more than 3 times in under 1% of resamples, never in a third of them: [-3/6, 0]
    assert rows[1] == "| tie | #2 | 800 | 0.833 | [0.733, 0.933] | -0.167 [-0.500, 0.000] | 0.500 | 0.833 | 0.833 |"
    assert rows[2] == "|  | #0 | 200 | 0.000 | [-0.100, 0.100] | -1.000 [-1.000, -1.000] | 0.031 | 0.000 | 0.000 |"
    assert "- swept: chunker.size = 200, 400, 800" in text
    assert "- same in every point: retrieval=bm25" in text
    assert "- best on ndcg@10: #1 (chunker.size=400) ndcg@10 = 1.000 [0.900, 1.100]" in text
    assert "- not significantly worse than the best: #2" in text
    assert "- chosen on the 3 dev questions: #1; its ndcg@10 on the 3 held-out test questions: 1.000" in text
    assert "![Metric vs chunk size](plots/metric_vs_chunk_size.png)" in text


def test_work_table_in_the_same_order(size_sweep, tmp_path):
    report_sweep(size_sweep, tmp_path)
    header, rows = table_lines((tmp_path / "report.md").read_text(), "| point | chunks")
    assert header == (
        "| point | chunks | index size | mean chunk chars | tokens billed | cost billed (USD) | seconds | embedded |"
        " cache hits |"
    )
    assert [row.split(" | ")[0] for row in rows] == ["| **#1**", "| #2", "| #0"]
    assert rows[1] == "| #2 | 15 | 1.6 MiB | 720 | 1,500 | 0.0200 | 1.75 | 5 | 2 |"


def test_p_values_print_as_the_gate_prints_them():
    assert [p_value(0.0001), p_value(0.001), p_value(0.0312), p_value(float("nan")), p_value(None)] == [
        "<0.001",
        "0.001",
        "0.031",
        "-",
        "-",
    ]


def test_many_questions_give_a_p_value_below_a_thousandth(tmp_path, make_point):
    make_point(tmp_path / "0", ["x=1"], {"ndcg@10": [1.0] * 20})
    make_point(tmp_path / "1", ["x=2"], {"ndcg@10": [0.0] * 20})
    report_sweep(tmp_path)
    _, rows = table_lines((tmp_path / "report.md").read_text(), "|  | point")
    # 20 differences of -1: the sign-flip test draws 10,000 sign vectors, p = (1 + 0) / 10,001
    assert rows[1].startswith("|  | #1 | 2 | 0.000 | [-0.100, 0.100] | -1.000 [-1.000, -1.000] | <0.001 |")


def test_a_null_setting_stays_in_the_swept_values(tmp_path, make_point):
    make_point(tmp_path / "0", ["embedder.dimension=32"], {"ndcg@10": [1.0]}, config={"embedder.dimension": 32})
    make_point(tmp_path / "1", ["embedder.dimension=null"], {"ndcg@10": [0.0]}, config={"embedder.dimension": None})
    report_sweep(tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "- swept: embedder.dimension = 32, null" in text
    _, rows = table_lines(text, "|  | point")
    assert rows[1].startswith("| tie | #1 | null | 0.000 |")  # one question: p = 1/2


def test_each_point_links_to_its_own_report(size_sweep, tmp_path):
    (size_sweep / "1" / "report.html").write_text("<html></html>")
    report_sweep(size_sweep)
    text = (size_sweep / "report.md").read_text()
    assert "| **[#1](1/report.html)** |" in text and "| #2 |" in text  # point 2 has no report.html
    page = (size_sweep / "report.html").read_text()
    assert page.count('<a href="1/report.html">#1</a>') == 2  # quality and work tables
    report_sweep(size_sweep, tmp_path / "elsewhere")  # a report written elsewhere links nothing
    assert "report.html)" not in (tmp_path / "elsewhere" / "report.md").read_text()


def test_report_html_is_self_contained(size_sweep, tmp_path):
    report_sweep(size_sweep, tmp_path)
    page = (tmp_path / "report.html").read_text()
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == 3 and all(s.startswith("data:image/png;base64,iVBOR") for s in sources)
    assert "<link" not in page and "<script" not in page
    assert page.count("<tr class=best>") == 2 and "<td>#1</td>" in page
