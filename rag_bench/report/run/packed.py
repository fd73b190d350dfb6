"""The explorer model as report.html stores it: the same data in lists instead of objects (format 2).

At 10,000 questions the model's keys, repeated in every question and every listed chunk, were a third of
the page. Packed, each part is a list in a fixed order, and a chunk's id is left out when it is the
``doc:start-end`` its offsets make:

  chunks     [doc, start, end, text] (and the id fifth, when it is another)
  questions  [id, text, category, failure, first_hit, ranks, evidence, relevant, top, beyond]
  evidence   [doc, start, end, text]
  top/beyond [chunk, hit (1 or 0), rank per stage ..., score per stage ...]

Everything else is as ``view.py`` lays it out. ``unpack_view(pack_view(view)) == view``; the page's script
unpacks the same way (``assets/run_page.js``).
"""

from __future__ import annotations

PACKED = 2  # the layout version of a packed model (``view.FORMAT`` is the unpacked one)
QUESTION_KEYS = ("id", "text", "category", "failure", "first_hit", "ranks", "evidence", "relevant", "top", "beyond")
SPAN_KEYS = ("doc", "start", "end", "text")


def pack_view(view: dict) -> dict:
    """``view`` (``view.run_view``) with its chunks, questions, evidence and listed chunks as lists."""
    return {
        **view,
        "format": PACKED,
        "chunks": [pack_chunk(c) for c in view["chunks"]],
        "questions": [_question(q) for q in view["questions"]],
    }


def unpack_view(packed: dict, format_: int) -> dict:
    """The model ``pack_view`` packed (``packed`` with layout version ``format_``).

    Raises KeyError, IndexError, TypeError or ValueError on a model that is not one ``pack_view`` made.
    """
    stages = len(packed["run"]["stages"])
    return {
        **packed,
        "format": format_,
        "chunks": [_unchunk(c) for c in packed["chunks"]],
        "questions": [_unquestion(q, stages) for q in packed["questions"]],
    }


def pack_chunk(c: dict) -> list:
    """A chunk of the model as a list: doc, start, end, text (and the id, unless its offsets make it)."""
    row = [c["doc"], c["start"], c["end"], c["text"]]
    return row if c["id"] == f"{c['doc']}:{c['start']}-{c['end']}" else [*row, c["id"]]


def _unchunk(row: list) -> dict:
    doc, start, end, text = row[:4]
    chunk_id = row[4] if len(row) > 4 else f"{doc}:{start}-{end}"
    return {"id": chunk_id, "doc": doc, "start": start, "end": end, "text": text}


def _question(q: dict) -> list:
    row = [q[key] for key in QUESTION_KEYS]
    row[6] = [[e[key] for key in SPAN_KEYS] for e in q["evidence"]]
    row[8], row[9] = [_entry(t) for t in q["top"]], [_entry(t) for t in q["beyond"]]
    return row


def _unquestion(row: list, stages: int) -> dict:
    if len(row) != len(QUESTION_KEYS):
        raise ValueError(f"a question of {len(row)} fields")
    q = dict(zip(QUESTION_KEYS, row, strict=True))
    q["evidence"] = [dict(zip(SPAN_KEYS, e, strict=True)) for e in q["evidence"]]
    q["top"] = [_unentry(t, stages) for t in q["top"]]
    q["beyond"] = [_unentry(t, stages) for t in q["beyond"]]
    return q


def _entry(t: dict) -> list:
    return [t["chunk"], int(t["hit"]), *t["ranks"], *t["scores"]]


def _unentry(row: list, stages: int) -> dict:
    if len(row) != 2 + 2 * stages:
        raise ValueError(f"a listed chunk of {len(row)} fields for {stages} stages")
    return {"chunk": row[0], "hit": bool(row[1]), "ranks": row[2 : 2 + stages], "scores": row[2 + stages :]}
