import json
import re
from dataclasses import replace

import pytest

from rag_bench.core.errors import DataError
from rag_bench.entry.cli import main as rag_bench_main
from rag_bench.report.diff.cli import main
from rag_bench.report.diff.flips import diff_markdown, diff_view
from rag_bench.report.run.page import read_run_view, write_run_page
from rag_bench.report.run.view import run_view

from .pages import FUSED_B, facts


def views():
    return run_view(facts()), run_view(facts(fused=FUSED_B))


def test_flips_lost_first_with_both_rankings_and_classes():
    view = diff_view(*views(), labels=("runs/a", "runs/b"))
    assert view["runs"] == ["runs/a", "runs/b"] and view["report_k"] == 2 and view["n_questions"] == 6
    assert [(f["id"], f["lost"]) for f in view["flips"]] == [("q-hit", True), ("q-fused", False)]
    lost = view["flips"][0]
    assert (lost["before"]["failure"], lost["after"]["failure"]) == ("hit", "fused-out")
    assert [c["id"] for c in lost["before"]["top"]] == ["guide.md:34-99", "guide.md:0-34"]
    assert [c["hit"] for c in lost["before"]["top"]] == [True, False]
    assert [c["id"] for c in lost["after"]["top"]] == ["guide.md:0-34", "faq.md:40-91"]
    assert (lost["before"]["first_hit"], lost["after"]["first_hit"]) == (1, 3)
    assert lost["evidence"][0]["text"] == "The port is 8443"
    counts = view["counts"]
    assert (counts["lost"], counts["gained"]) == (1, 1)
    assert counts["transitions"]["hit"] == {"fused-out": 1} and counts["transitions"]["fused-out"] == {"hit": 1}
    assert counts["transitions"]["boundary"] == {"boundary": 1}
    json.dumps(view, allow_nan=False)


def test_no_flips_between_a_run_and_itself():
    before, _ = views()
    view = diff_view(before, before, labels=("a", "a"))
    assert view["flips"] == [] and view["counts"]["lost"] == 0


def test_markdown_lists_each_flip_with_evidence_and_rankings():
    text = diff_markdown(diff_view(*views(), labels=("runs/a", "runs/b")), page="diff.html")
    assert text.startswith("## Flipped questions at k = 2: runs/a -> runs/b\n")
    assert "1 lost (hit -> miss), 1 gained (miss -> hit), of 6 questions. Side by side: [diff.html](diff.html)" in text
    assert "### lost: q-hit: Which port does the agent use?" in text
    assert "class hit -> fused-out; first hit at rank 1 -> 3; category a" in text
    assert "> evidence guide.md [51, 67): The port is 8443" in text
    assert "| 1 | **hit** `guide.md:34-99` art the service. The port is 8443 by default. Logs live in /var. |" in text
    assert "### gained: q-fused: How long do refunds take?" in text
    assert text.index("### lost") < text.index("### gained")


def test_runs_on_other_questions_are_diffed_on_the_shared_ones_and_other_cut_offs_refused():
    from rag_bench.report.diff.page import render_diff_page

    before, after = views()
    reworded = {**after["questions"][1], "text": after["questions"][1]["text"] + " (reworded)"}
    other = {**after, "questions": [reworded, *after["questions"][2:]]}
    view = diff_view(before, other, labels=("a", "b"))
    assert view["questions"] == {"added": [], "removed": ["q-hit"], "changed": [reworded["id"]]}
    assert view["n_questions"] == len(before["questions"]) - 2
    assert f"Only the shared questions are compared. removed 1: q-hit; changed 1: {reworded['id']}" in diff_markdown(
        view
    )
    page = render_diff_page(view)
    assert '<li id="removed">removed (1): q-hit</li>' in page and '<li id="changed">changed (1)' in page
    nothing = {**after, "questions": []}
    with pytest.raises(DataError, match=r"shares no question with a"):
        diff_view(before, nothing, labels=("a", "b"))
    other_k = run_view(replace(facts(), report_k=3))
    with pytest.raises(DataError, match="report_k 3, a at 2"):
        diff_view(before, other_k, labels=("a", "b"))


def write_runs(tmp_path):
    before, after = views()
    write_run_page(before, tmp_path / "a" / "report.html")
    write_run_page(after, tmp_path / "b" / "report.html")
    return tmp_path / "a", tmp_path / "b"


def test_the_verb_writes_the_page_and_prints_markdown(tmp_path, capsys):
    a, b = write_runs(tmp_path)
    out, md = tmp_path / "out" / "diff.html", tmp_path / "out" / "diff.md"
    assert main([str(a), str(b), "--out", str(out), "--markdown", str(md)]) == 0
    printed = capsys.readouterr()
    assert printed.out == md.read_text() and "[diff.html](diff.html)" in printed.out
    assert f"wrote {out} and {md}" in printed.err
    page = out.read_text()
    assert page.count('<section class="flip ') == 2 and "<script" not in page


def test_report_html_round_trips_its_model(tmp_path):
    before, _ = views()
    write_run_page(before, tmp_path / "report.html")
    assert read_run_view(tmp_path) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "report.html: is missing (fix: give a run folder written by `rag-bench` (it holds report.html))"),
        ("<html>no data</html>", "holds no run data"),
        ('<script id="run-data" type="application/json">{"format": 1</script>', "holds damaged run data"),
        ('<script id="run-data" type="application/json">{"format": 99}</script>', "format 99; this version reads 1"),
        ('<script id="run-data" type="application/json">[1, 2]</script>', "holds damaged run data (a JSON list,"),
        (
            '<script id="run-data" type="application/json">{"format": 2, "run": {"stages": ["bm25"]}, "chunks": [],'
            ' "questions": [["q1", "text"]]}</script>',
            "holds damaged run data (ValueError: a question of 2 fields)",
        ),
    ],
)
def test_a_folder_without_a_readable_report_is_one_clear_error(tmp_path, capsys, content, message):
    run = tmp_path / "run"
    run.mkdir()
    if content is not None:
        (run / "report.html").write_text(content)
    with pytest.raises(DataError, match=re.escape(message)):
        read_run_view(run)
    write_runs(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        rag_bench_main(["diff", str(run), str(tmp_path / "b"), "--out", str(tmp_path / "d.html")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("rag-bench: error: ") and message in err and len(err.strip().splitlines()) == 1
