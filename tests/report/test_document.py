import re

from rag_bench.report.sweep_cli import report_sweep


def test_report_md_has_the_table_sorted_with_best_and_ties_marked(size_sweep, tmp_path):
    report_sweep(size_sweep, tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("|  | point"))
    assert header.startswith("|  | point | chunker.size | ndcg@10 | 95% interval | recall@5 | recall@10 | chunks |")
    assert "| mean chunk chars | tokens | cost (USD) | p (Holm) |" in header
    rows = [line for line in text.splitlines() if line.startswith("| ") and "#" in line]
    # sorted by ndcg@10: size 400 (1.0, best), 800 (5/6, tie at Holm p 0.5), 200 (0, p 1/32)
    assert rows[0].startswith("| **best** | **#1** | **400** | **1.000** | **[0.900, 1.100]** |")
    assert rows[1].startswith("| tie | #2 | 800 | 0.833 | [0.733, 0.933] |")
    assert rows[1].endswith("| 0.0200 | 0.500 |") and "| 1.6 MiB | 1.75 |" in rows[1]
    assert rows[2].startswith("|  | #0 | 200 | 0.000 |") and rows[2].endswith("| 0.031 |")
    assert "- swept: chunker.size = 200, 400, 800" in text
    assert "- same in every point: retrieval=bm25" in text
    assert "- best on ndcg@10: #1 (chunker.size=400) ndcg@10 = 1.000 [0.900, 1.100]" in text
    assert "- not significantly worse than the best: #2" in text
    assert "- chosen on the 3 dev questions: #1; its ndcg@10 on the 3 held-out test questions: 1.000" in text
    assert "![Metric vs chunk size](plots/metric_vs_chunk_size.png)" in text


def test_report_html_is_self_contained(size_sweep, tmp_path):
    report_sweep(size_sweep, tmp_path)
    page = (tmp_path / "report.html").read_text()
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == 3 and all(s.startswith("data:image/png;base64,iVBOR") for s in sources)
    assert "<link" not in page and "<script" not in page
    assert page.count("<tr class=best>") == 1 and "<td>#1</td>" in page
