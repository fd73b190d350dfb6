"""dataset-stats on a five-question set whose every number is worked out by hand."""

from __future__ import annotations

import json
import re

import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.data.native import load_dataset
from rag_bench.label.overlap import copied_share
from rag_bench.label.stats import console, health, main, markdown

DOCS = [{"id": "a.md", "text": "# A\nAlpha beta gamma. Zeta omega."}, {"id": "b.txt", "text": "Beta zeta facts here."}]
QUESTIONS = [  # q1 gets category c1 below
    {
        "id": "q1",
        "question": "What is alpha?",
        "evidence": [{"doc_id": "a.md", "text": "Alpha beta gamma."}],
        "category": "c1",
    },
    {
        "id": "q2",
        "question": "Beta and zeta trivia?",
        "evidence": [{"doc_id": "a.md", "text": "Zeta omega."}, {"doc_id": "b.txt", "text": "Beta zeta facts"}],
        "category": "c2",
    },
    {"id": "q3", "question": "Anything else?", "category": "c1"},
    {"id": "q4", "question": "Judged?", "judgements": {"b.txt": 2, "a.md": 0}, "source": "synthetic"},
    {"id": "q5", "question": "How?", "evidence": [{"doc_id": "a.md", "start": 4, "end": 9}], "source": "synthetic"},
]


QUESTIONS[0]["category"] = "c1"


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return tmp_path


def test_copied_share_by_hand():
    assert copied_share("When does the KG-450 reboot?", ["The KG-450 reboots nightly."]) == 0.5
    assert copied_share("How?", ["anything"]) is None  # no terms once question words are dropped
    assert copied_share("Beta and zeta trivia?", ["Zeta omega.", "Beta zeta facts"]) == pytest.approx(2 / 3)


def test_counts_distributions_and_overlap(folder):
    h = health(load_dataset(folder))
    assert (h.questions, h.with_spans, h.judged_only, h.unanswerable) == (5, 3, 1, 1)
    assert h.by_category == {
        "(none)": {"questions": 2, "unanswerable": 0},
        "c1": {"questions": 2, "unanswerable": 1},
        "c2": {"questions": 1, "unanswerable": 0},
    }
    assert h.by_document == {"a.md": 3, "b.txt": 2}  # q4's grade 0 for a.md is not evidence
    assert h.by_source == {"(none)": 3, "synthetic": 2}
    assert h.spans_per_question == {"1": 2, "2": 1, "3+": 0}
    # span lengths 17, 11, 15, 5; linear percentiles over 5, 11, 15, 17: p10 at position 0.3 -> 6.8, ...
    e = h.evidence_chars
    assert (e.count, e.mean, e.min, e.max) == (4, 12.0, 5.0, 17.0)
    assert (e.p10, e.p25, e.median, e.p75, e.p90) == pytest.approx((6.8, 9.5, 13.0, 15.5, 16.4))
    # q1 copies {alpha} of {alpha}: 1; q2 {beta, zeta} of {beta, zeta, trivia}: 2/3; q5 has no terms
    assert (h.copied_share.count, h.copied_share.mean) == (2, pytest.approx(5 / 6))
    assert h.copied_buckets == {"0-25%": 0, "25-50%": 0, "50-75%": 1, "75-100%": 1}
    assert h.mostly_copied == 1


def test_console_and_markdown_show_the_same_tables(folder):
    h = health(load_dataset(folder))
    text = console(h)
    assert text.startswith(f"{folder.name}: 5 questions over 2 documents")
    assert re.search(r"\nunanswerable \(no evidence\) +1 \(20\.0%\)\n", text)
    md = markdown(h)
    assert "| evidence length (characters) | 4 | 12 | 5 | 7 | 10 | 13 | 16 | 16 | 17 |" in md  # 9.5 -> 10, 15.5 -> 16
    assert "## By document (top 15; 0 of 2 documents hold no evidence)" in md


def test_main_writes_json_and_refuses_other_suffixes(folder, tmp_path, capsys):
    out = tmp_path / "report" / "health.json"
    assert main([str(folder), "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["unanswerable"] == 1 and written["evidence_chars"]["median"] == 13.0
    assert "wrote" in capsys.readouterr().out
    with pytest.raises(ConfigError, match=r"--out \(x.txt\) must end in .md or .json"):
        main([str(folder), "--out", "x.txt"])


def test_a_bundled_name_works(capsys):
    assert main(["annual-report"]) == 0
    assert capsys.readouterr().out.startswith("annual-report: 40 questions over 1 documents")


def test_detect_says_how_many_questions_a_drop_needs(capsys):
    # n = ((z_0.95 + z_0.8) * sqrt(0.2) / 0.1)^2 = 2.48647^2 * 0.2 / 0.01 = 123.65 -> 124
    assert main(["annual-report", "--detect", "0.1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "to confirm a drop of 0.1 in a hit metric (p < 0.05, 80% power) when 20% of the questions change: "
        "124 questions; this set has 40 (84 more needed)"
    )
    assert main(["annual-report", "--detect", "0.3", "--discordance", "0.3"]) == 0  # 2.48647^2 * 0.3 / 0.09 = 20.6
    assert capsys.readouterr().out.splitlines()[-1].endswith("21 questions; this set has 40 (enough)")
    with pytest.raises(ConfigError, match=r"--discordance \(0.01\) between it and 1"):
        main(["annual-report", "--detect", "0.05", "--discordance", "0.01"])
