"""``rag-bench label DATASET_DIR [--port P] [--no-browser] [--run RUN_DIR]``: serve the labelling app.

The app listens on 127.0.0.1 only and edits ``DATASET_DIR/questions.jsonl`` (or
``--questions FILE``, e.g. the output of ``rag-bench synthesize``), which need not exist
yet. ``--run`` marks the questions that run folder's configuration misses at ``--k``.
"""

from __future__ import annotations

import argparse
import errno
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.data.native import load_documents
from rag_bench.label.api import LabelApp
from rag_bench.label.search import CorpusSearch
from rag_bench.label.server import LabelServer
from rag_bench.label.store import QuestionStore

DEFAULT_PORT = 8765


def main(argv: Sequence[str]) -> int:
    """Run the verb until Ctrl-C; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(prog="rag-bench label", description="Write and review labelled questions.")
    parser.add_argument("dataset", type=Path, help="dataset folder: documents.jsonl or docs/, and questions.jsonl")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0 = any free port)"
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--run", type=Path, help="a run folder: show which questions its configuration misses")
    parser.add_argument(
        "--k", type=int, default=10, help="a question is missed when its evidence is not in the top k (default 10)"
    )
    parser.add_argument(
        "--questions", type=Path, help="the questions file to edit (default DATASET_DIR/questions.jsonl)"
    )
    args = parser.parse_args(list(argv))
    server = start(build_app(args.dataset, args.questions, args.run, args.k), args.port)
    app = server.app
    count = len(app.store.read().entries)
    print(f"labelling {app.name}: {len(app.documents)} documents, {count} questions in {app.store.path}")
    print(f"open {server.url}  (Ctrl-C to stop)", flush=True)
    if not args.no_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.server_close()
    return 0


def build_app(folder: Path, questions: Path | None = None, run: Path | None = None, k: int = 10) -> LabelApp:
    """The app for a dataset folder; the questions file and run folder are checked now, not on first use."""
    if not Path(folder).is_dir():
        raise DataError(folder, "is not a folder", fix="pass a dataset folder (documents.jsonl or docs/)")
    if k < 1:
        raise ConfigError(f"--k ({k}) must be at least 1")
    documents = {d.id: d for d in load_documents(Path(folder))}
    store = QuestionStore(questions or Path(folder) / "questions.jsonl", documents)
    store.read()
    search = CorpusSearch(list(documents.values()))
    app = LabelApp(Path(folder).resolve().name, documents, store, search, run, k, folder=Path(folder))
    app.outcomes()
    return app


def start(app: LabelApp, port: int) -> LabelServer:
    """The server bound to 127.0.0.1:``port`` (not yet serving)."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port ({port}) must lie between 0 and 65535")
    try:
        return LabelServer(app, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"--port ({port}) is in use on 127.0.0.1; pick another, or --port 0 for a free one"
            ) from None
        raise ConfigError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror})") from None
