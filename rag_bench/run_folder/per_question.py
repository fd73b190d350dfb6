"""The per-question table of a run folder: ``per_question.csv`` and ``per_question.parquet``, written here.

One row per question: its metrics, ``question``, ``labels`` (a digest of its labels, ``label_digest``),
``failure`` (``explain.py``), the evidence rank in
each stage list (``evidence_rank_<stage>``), ``top_chunks`` and ``ranked_chunks`` (chunk ids, best
first; JSON text in the CSV, lists in the Parquet file). ``read.py`` reads it back.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rag_bench.core.cache import digest
from rag_bench.core.distinct import each_distinct
from rag_bench.core.files import write_atomic
from rag_bench.run_folder.explain import Explanation
from rag_bench.run_folder.id_lists import IdLists

NAMES = ("per_question.csv", "per_question.parquet")  # the files ``write_per_question`` writes

LIST_COLUMNS = ("top_chunks", "ranked_chunks")  # lists: JSON text in the CSV, lists in the Parquet file


def per_question_table(result, explanation: Explanation) -> pd.DataFrame:
    """The evaluation's per-question rows with ``question``, ``failure``, ``evidence_rank_<stage>`` per stage
    list, and ``ranked_chunks`` (every chunk id of the final list, best first)."""
    table, ranked = _table(result, explanation)
    table["ranked_chunks"] = ranked.lists()
    return table


def _table(result, explanation: Explanation) -> tuple[pd.DataFrame, IdLists]:
    """``per_question_table`` but ``ranked_chunks``, and that column's lists (indices into the chunk ids)."""
    table = result.evaluation.per_question.copy()
    at = list(table.columns).index("labelled")
    table.insert(1, "question", [q.text for q in result.dataset.questions])
    table.insert(2, "labels", [label_digest(q) for q in result.dataset.questions])
    table.insert(at + 3, "failure", [d.failure for d in explanation.diagnoses])  # after labelled
    names = list(explanation.diagnoses[0].ranks) if explanation.diagnoses else []
    position = list(table.columns).index("first_hit_rank") + 1
    for offset, name in enumerate(names):
        ranks = [d.ranks.get(name) for d in explanation.diagnoses]
        table.insert(position + offset, f"evidence_rank_{name}", pd.array(ranks, dtype="Int64"))
    return table, IdLists.of_ranked(result.chunks, result.ranked)


def label_digest(question) -> str:
    """12 hex digits naming a question's labels (evidence spans, judgements, filter): runs compared on a
    question set that grew pair a question only while its id, text and labels are the same."""
    spans = sorted((s.doc_id, s.start, s.end) for s in question.spans)
    judged = sorted(question.judgements.items())
    where = question.filter.source if question.filter is not None else None
    return digest(spans, judged, where)[:12]


def write_per_question(result, explanation: Explanation, out_dir: Path) -> list[Path]:
    """Write per_question.csv and per_question.parquet into ``out_dir``; return their paths."""
    return [write_atomic(out_dir / name, fill) for name, fill in per_question_files(result, explanation).items()]


def per_question_files(result, explanation: Explanation) -> dict[str, Callable[[BinaryIO], object]]:
    """per_question.csv and per_question.parquet: file name -> what writes it (``files.write_atomic``'s
    ``write``); the CSV's text is made here, the Parquet file's table when it is written."""
    table, ranked = _table(result, explanation)
    top = IdLists.of_cells(table["top_chunks"].tolist())
    if top is None:  # not lists of text: every list column as Python lists, as before
        table = table.assign(ranked_chunks=ranked.lists())
        lists = {name: [_json_list(items) for items in table[name]] for name in LIST_COLUMNS}
    else:  # placeholders: the cells are the lists' (``LIST_COLUMNS`` are the last columns either way)
        lists, table = {"top_chunks": top, "ranked_chunks": ranked}, table.assign(ranked_chunks=None)
    data = csv_text(table, lists).encode("utf-8")
    return {
        NAMES[0]: lambda handle: handle.write(data),
        NAMES[1]: lambda handle: write_parquet(table, handle, None if top is None else lists),
    }


def write_parquet(table: pd.DataFrame, handle: BinaryIO, lists: dict[str, IdLists] | None = None) -> None:
    """``table.to_parquet(handle, index=False)``, the same bytes, with the list columns (``LIST_COLUMNS``, lists
    of text) made as Arrow list arrays from their flattened items and offsets: pyarrow's own conversion
    inspects every item of every list (a million chunk ids at 10,000 questions), most of the write's time.

    The rest of the table goes through ``pa.Table.from_pandas`` as before, and the pandas metadata gets the
    entries ``from_pandas`` gives a column of lists of text, in the table's column order; anything else
    (an empty table, an item that is not text, a cell that is not a list) is left to ``to_parquet``.

    ``lists``: the list columns' cells (the table's cells in those columns are then placeholders).
    """
    if lists is not None:  # placeholders in the table: its cells are these lists
        arrow = _arrow_table(table, lists) if len(table) else None
        table = table.assign(**{name: column.lists() for name, column in lists.items()}) if arrow is None else table
    else:
        found = {name: IdLists.of_cells(table[name].tolist()) for name in LIST_COLUMNS if name in table}
        complete = all(column is not None for column in found.values())
        arrow = _arrow_table(table, found) if len(table) and found and complete else None
    if arrow is None:
        table.to_parquet(handle, index=False)
    else:
        sink = pa.BufferOutputStream()  # written in Arrow's memory, the interpreter's lock released, then copied once
        pq.write_table(arrow, sink, compression="snappy")  # pandas' default compression
        handle.write(sink.getvalue())


def _arrow_table(table: pd.DataFrame, lists: dict[str, IdLists]) -> pa.Table:
    """``pa.Table.from_pandas(table, preserve_index=False)``, its ``lists`` columns made by ``IdLists.arrow``."""
    arrow = pa.Table.from_pandas(table.drop(columns=list(lists)), preserve_index=False)
    probe = pd.DataFrame({name: [["text"]] for name in lists})  # what from_pandas records for such a column
    entries = {e["name"]: e for e in _pandas_metadata(pa.Table.from_pandas(probe, preserve_index=False))["columns"]}
    metadata = _pandas_metadata(arrow)
    entries |= {e["name"]: e for e in metadata["columns"]}
    for name in sorted(lists, key=list(table.columns).index):  # inserted left to right
        column = lists[name].arrow()
        arrow = arrow.add_column(list(table.columns).index(name), pa.field(name, column.type), column)
    metadata["columns"] = [entries[name] for name in table.columns]
    return arrow.replace_schema_metadata({**arrow.schema.metadata, b"pandas": json.dumps(metadata).encode("utf8")})


def _pandas_metadata(arrow: pa.Table) -> dict:
    return json.loads(arrow.schema.metadata[b"pandas"])


def csv_text(table: pd.DataFrame, texts: dict[str, list[str] | IdLists]) -> str:
    """``table.to_csv(index=False)`` with the columns named in ``texts`` replaced by those texts, written by
    the csv module itself (as pandas does: minimal quoting, ``\n`` line ends) from each column's field
    texts, without making a frame of text columns (pandas 3 would convert each to Arrow strings and back).

    Fields: a float64 column as ``float_text`` writes it, a missing value (None, NaN, NA) as empty, any
    other value as ``str`` of it; a column of any other dtype goes through pandas as it was. A ``texts``
    column given as ``IdLists`` stands for its rows' JSON texts (``IdLists.json_texts``).
    """
    columns = []
    for name in table.columns:
        series = table[name]
        if name in texts:
            columns.append(texts[name])
        elif series.dtype == np.float64:
            columns.append(float_text(series.to_numpy()).tolist())
        elif _plain_dtype(series.dtype):
            columns.append(series.to_numpy(dtype=object, na_value="").tolist())
        else:
            return table.assign(**{n: _texts(texts[n]) for n in texts}).to_csv(index=False)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(table.columns))
    trailing = _trailing_texts(list(table.columns), texts, columns)
    if trailing:  # the long list texts joined to each row's line here, not copied a character at a time by csv
        head = io.StringIO()
        csv.writer(head, lineterminator="\n").writerows(zip(*columns[:-trailing], strict=True))
        lines = head.getvalue().split("\n")[:-1]  # one line a row: no field before these holds a line break
        fields = [_fields(column) for column in columns[-trailing:]]
        out.write("".join([",".join(row) + "\n" for row in zip(lines, *fields, strict=True)]))
        return out.getvalue()
    writer.writerows(zip(*map(_texts, columns), strict=True))
    return out.getvalue()


def _texts(column: list | IdLists) -> list:
    """A column's values, an ``IdLists`` column as its rows' JSON texts."""
    return column.json_texts() if isinstance(column, IdLists) else column


def _fields(column: list[str] | IdLists) -> list[str]:
    """A trailing text column's fields as the csv module writes them (``_quoted``)."""
    return column.csv_fields() if isinstance(column, IdLists) else [_quoted(text) for text in column]


def _trailing_texts(names: list[str], texts: dict[str, list[str]], columns: list[list]) -> int:
    """How many of the last columns are ``texts`` columns (the list columns), to be quoted by ``_quoted`` and
    joined to the lines the csv module writes of the columns before them: 0 unless some are, some column
    comes before them, and no field holds a line break (a row would then span lines)."""
    n = 0
    while n < len(names) - 1 and names[len(names) - 1 - n] in texts:
        n += 1
    return n if n and not any(map(_breaks, columns)) else 0


def _breaks(column: list) -> bool:
    """Whether a field of ``column`` (text, or values the csv module writes as ``str``) holds a line break."""
    if isinstance(column, IdLists):  # JSON texts: json.dumps escapes line breaks
        return False
    try:
        joined = "".join(column)
    except TypeError:  # not all text: only its text values can break a line
        joined = "".join(v for v in column if isinstance(v, str))
    return "\n" in joined or "\r" in joined


def _quoted(text: str) -> str:
    """``text`` as the csv module writes a field (minimal quoting, quotes doubled), for text without line breaks."""
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if "," in text or '"' in text else text


def _plain_dtype(dtype) -> bool:
    """Whether pandas writes the values of a column of ``dtype`` as ``str`` of each, missing ones empty:
    object (text, None, lists), Arrow-backed text, bool, int64 and nullable Int64."""
    if isinstance(dtype, pd.StringDtype | pd.Int64Dtype):
        return True
    return isinstance(dtype, np.dtype) and (dtype.kind in "Ob" or dtype == np.int64)


def float_text(values: np.ndarray) -> np.ndarray:
    """(n,) object: the text ``DataFrame.to_csv`` writes for each float64 value (numpy's ``astype(str)``, NaN
    as empty), each distinct value converted once (a metric column holds few distinct values)."""
    text = each_distinct(values, lambda distinct: distinct.astype(str))
    text[np.isnan(values)] = ""
    return text


def _json_list(items: object) -> str:
    """``json.dumps`` of the list; joined directly when every item is text JSON writes as it is."""
    if isinstance(items, list) and all(type(item) is str for item in items):
        joined = '", "'.join(items)
        if not _ESCAPED.search(joined):
            return f'["{joined}"]' if items else "[]"
    return json.dumps(list(items) if isinstance(items, list | tuple | np.ndarray) else items)


_ESCAPED = re.compile(r'[^\x20-\x7e]|["\\]')  # what json.dumps escapes: quotes, backslashes, control, non-ASCII
