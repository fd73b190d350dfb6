import json

from rag_bench.report.run.packed import PACKED, pack_view, unpack_view
from rag_bench.report.run.page import DATA_START, embed_json, read_run_view, render_run_page
from rag_bench.report.run.view import FORMAT, run_view

from .pages import facts


def embedded(page: str) -> dict:
    start = page.index(DATA_START) + len(DATA_START)
    return json.loads(page[start : page.index("</script>", start)])


def test_the_page_stores_questions_and_listed_chunks_as_lists_in_a_fixed_order():
    view = run_view(facts())
    packed = embedded(render_run_page(view))
    assert packed["format"] == PACKED and packed["run"] == view["run"] and packed["metrics"] == view["metrics"]
    cut = packed["questions"][1]  # q-cut, as test_run_view reads it: its evidence, its fused top 2, no beyond
    assert cut[:8] == [
        "q-cut",
        "What comes after installing?",
        "a",
        "boundary",
        None,
        {"bm25": None, "dense": None, "fused": None},
        [["guide.md", 25, 50, "Then restart the service."]],
        [],
    ]
    # [chunk slot, hit, rank in bm25, dense, fused, score in bm25, dense, fused]: guide.md:0-34, faq.md:0-40
    assert cut[8] == [[1, 0, 1, None, 1, 10.0, None, 0.03], [2, 0, 2, 1, 2, 5.0, 1.0, 0.015]]
    assert cut[9] == []
    assert packed["questions"][2][9] == [[2, 1, 3, None, 4, 3.33333, None, 0.0075]]  # the evidence chunk, a hit
    chunk = packed["chunks"][0]  # guide.md:34-99: the id its offsets make is left out
    assert chunk == ["guide.md", 34, 99, view["chunks"][0]["text"]]


def test_unpacking_gives_back_the_model_exactly():
    view = run_view(facts())
    assert unpack_view(json.loads(embed_json(pack_view(view))), FORMAT) == view


def test_a_chunk_id_other_than_its_offsets_is_kept():
    view = run_view(facts())
    view["chunks"][0]["id"] = "renamed"
    packed = pack_view(view)
    assert packed["chunks"][0][4:] == ["renamed"] and unpack_view(packed, FORMAT) == view


def test_the_packed_page_is_smaller(tmp_path):
    view = run_view(facts())
    assert len(embed_json(pack_view(view))) < 0.8 * len(embed_json(view))
    (tmp_path / "report.html").write_text(render_run_page(view), encoding="utf-8")
    assert read_run_view(tmp_path) == view


def test_a_page_of_the_unpacked_format_is_still_read(tmp_path):
    view = run_view(facts())
    page = render_run_page(view)
    start = page.index(DATA_START) + len(DATA_START)
    older = page[:start] + embed_json(view) + page[page.index("</script>", start) :]  # as format 1 pages were
    (tmp_path / "report.html").write_text(older, encoding="utf-8")
    assert read_run_view(tmp_path) == view
