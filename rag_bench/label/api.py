"""The labelling app's JSON API over HTTP (127.0.0.1 only); the page uses nothing else.

    GET    /                       the page
    GET    /api/dataset            name, questions file, document count, categories, run folder
    GET    /api/search?q=&k=       BM25 over chunks: [{doc_id, title, start, end, text, score, highlights}]
    GET    /api/documents          [{id, title, length}]
    GET    /api/documents/<id>     {id, title, text, metadata}
    GET    /api/questions          {version, questions: [{id, line, row, spans, run}]}
    POST   /api/questions          create (an id is assigned when the row has none)
    GET    /api/questions/<id>     one question, as in the list
    PUT    /api/questions/<id>     replace it
    DELETE /api/questions/<id>     remove it

Offsets are code points into the document text as stored. Writes send JSON
(``Content-Type: application/json``) and ``If-Match: <version>`` (the ``version`` of the last
read, also sent as the ``ETag`` header); they answer ``{version, question}``. Errors answer
``{"error": "..."}``: 400 a row the loader would refuse (the message names the field and the
fix), 404 unknown id, 409 the file changed on disk since that version (nothing written; the
answer carries the current ``version``) or is itself invalid, 428 no If-Match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from rag_bench.core.errors import DataError
from rag_bench.core.types import Document
from rag_bench.data.jsonl import parse_line
from rag_bench.label.misses import run_outcomes
from rag_bench.label.request import ApiError, int_param, path_part, query_params
from rag_bench.label.search import CorpusSearch
from rag_bench.label.store import Entry, QuestionStore, SaveFailed, StaleVersion, UnknownQuestion


@dataclass
class LabelApp:
    """What the API serves: the documents, their search index, the questions file, a run's outcomes."""

    name: str
    documents: dict[str, Document]
    store: QuestionStore
    search: CorpusSearch
    run_folder: Path | None = None
    k: int = 10
    folder: Path = Path(".")  # the dataset folder (a run's documents must be its own)
    page: bytes = field(default_factory=lambda: resources.files("rag_bench.label").joinpath("page.html").read_bytes())

    def outcomes(self) -> dict | None:
        return run_outcomes(self.run_folder, self.k, self.folder) if self.run_folder else None


def dataset_info(app: LabelApp, query: dict, body: object) -> dict:
    categories = sorted({e.question.category for e in _read(app).entries.values() if e.question.category})
    return {
        "name": app.name,
        "questions_file": str(app.store.path),
        "documents": len(app.documents),
        "categories": categories,
        "run": str(app.run_folder) if app.run_folder else None,
        "k": app.k,
    }


def search(app: LabelApp, query: dict, body: object) -> dict:
    text = query.get("q", [""])[0]
    k = int_param(query, "k", 20, 1, 200)
    titles = {d.id: d.title for d in app.documents.values()}
    return {"query": text, "results": [hit.as_json(titles) for hit in app.search.search(text, k)]}


def list_documents(app: LabelApp, query: dict, body: object) -> dict:
    return {"documents": [{"id": d.id, "title": d.title, "length": len(d.text)} for d in app.documents.values()]}


def document(app: LabelApp, query: dict, body: object, doc_id: str) -> dict:
    doc = app.documents.get(doc_id)
    if doc is None:
        raise ApiError(404, f"no document {doc_id!r} (fix: pick one from GET /api/documents)")
    return {"id": doc.id, "title": doc.title, "text": doc.text, "metadata": dict(doc.metadata)}


def list_questions(app: LabelApp, query: dict, body: object) -> dict:
    snap = _read(app)
    run = app.outcomes()
    return {"version": snap.version, "questions": [_entry_json(app, e, run) for e in snap.entries.values()]}


def get_question(app: LabelApp, query: dict, body: object, qid: str) -> dict:
    snap = _read(app)
    if qid not in snap.entries:
        raise ApiError(404, f"no question {qid!r} (fix: reload the questions)")
    return {"version": snap.version, "question": _entry_json(app, snap.entries[qid], app.outcomes())}


def create_question(app: LabelApp, query: dict, body: object, version: str) -> tuple[int, dict]:
    entry, new = app.store.create(body, version)
    return 201, {"version": new, "question": _entry_json(app, entry, None)}


def update_question(app: LabelApp, query: dict, body: object, version: str, qid: str) -> dict:
    entry, new = app.store.update(qid, body, version)
    return {"version": new, "question": _entry_json(app, entry, None)}


def delete_question(app: LabelApp, query: dict, body: object, version: str, qid: str) -> dict:
    return {"version": app.store.delete(qid, version), "deleted": qid}


# (method, path pattern) -> handler; writes take the If-Match version after the body
ROUTES: dict[tuple[str, str], Callable] = {
    ("GET", r"/api/dataset"): dataset_info,
    ("GET", r"/api/search"): search,
    ("GET", r"/api/documents"): list_documents,
    ("GET", r"/api/documents/(.+)"): document,
    ("GET", r"/api/questions"): list_questions,
    ("GET", r"/api/questions/([^/]+)"): get_question,
    ("POST", r"/api/questions"): create_question,
    ("PUT", r"/api/questions/([^/]+)"): update_question,
    ("DELETE", r"/api/questions/([^/]+)"): delete_question,
}
WRITES = {"POST", "PUT", "DELETE"}


def _entry_json(app: LabelApp, entry: Entry, run: dict | None) -> dict:
    q = entry.question
    text = {d: app.documents[d].text for d in {s.doc_id for s in q.spans}}
    outcome = None
    if run is not None:
        outcome = run["questions"].get(q.id, {"first_hit_rank": None, "hit": None, "absent": True})
    return {
        "id": q.id,
        "line": entry.line,
        "row": entry.row,
        "spans": [
            {"doc_id": s.doc_id, "start": s.start, "end": s.end, "text": text[s.doc_id][s.start : s.end]}
            for s in q.spans
        ],
        "labelled": q.labelled,
        "run": outcome,
    }


def _read(app: LabelApp):
    try:
        return app.store.read()
    except DataError as exc:
        raise ApiError(409, f"{exc} -- correct the file, then reload") from None


def describe(exc: DataError) -> str:
    """A row error as the API reports it: ``field: problem (fix: ...)``."""
    text = f"{exc.field}: {exc.problem}" if exc.field else exc.problem
    return f"{text} (fix: {exc.fix})" if exc.fix else text


def handle(app: LabelApp, method: str, target: str, headers, body: bytes) -> tuple[int, dict]:
    """Route one request: (status, JSON answer)."""
    parts = urlsplit(target)
    for (verb, pattern), handler in ROUTES.items():
        match = re.fullmatch(pattern, parts.path)
        if verb != method or match is None:
            continue
        try:
            query, args = query_params(parts.query), [path_part(g) for g in match.groups()]
            if method not in WRITES:
                return 200, handler(app, query, None, *args)
            row = _body(headers, body) if method != "DELETE" else None
            version = headers.get("If-Match")
            if not version:
                raise ApiError(428, "If-Match: missing (fix: send the version from GET /api/questions as If-Match)")
            answer = handler(app, query, row, version, *args)
            return answer if isinstance(answer, tuple) else (200, answer)
        except StaleVersion as exc:
            return 409, {"error": str(exc), "version": exc.current}
        except UnknownQuestion as exc:
            return 404, {"error": str(exc)}
        except SaveFailed as exc:
            return 500, {"error": str(exc)}
        except ApiError as exc:
            return exc.status, {"error": str(exc), **exc.extra}
        except DataError as exc:
            if exc.line is not None:  # the file on disk, not the request
                return 409, {"error": f"{exc} -- correct the file, then reload"}
            return 400, {"error": describe(exc)}
    known = any(re.fullmatch(p, parts.path) for _, p in ROUTES)
    return (405, {"error": f"{method} is not allowed on {parts.path}"}) if known else (404, {"error": "no such path"})


def _body(headers, body: bytes) -> object:
    kind = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, f"Content-Type: {kind or 'missing'} (fix: send application/json)")
    try:
        return parse_line("request body", None, body)
    except DataError as exc:
        raise ApiError(400, describe(exc)) from None
