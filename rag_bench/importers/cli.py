"""``rag-bench import FORMAT SOURCE DEST``: convert a dataset into a native dataset folder.

rag-bench import beir ../shared/datasets/scifact data/scifact --split test
rag-bench import chroma ../shared/datasets/chroma-chunking data/chroma
rag-bench import squad dev-v2.0.json data/squad-dev
rag-bench import prechunked my-chunks/ data/mine        # chunks.jsonl + questions.jsonl
rag-bench import trec qrels.txt data/judged --dataset data/mine
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.data.conventions import read_conventions
from rag_bench.data.native import load_dataset
from rag_bench.importers.beir import read_beir
from rag_bench.importers.chroma import read_chroma
from rag_bench.importers.common import NATIVE_FILES, Imported, write_native
from rag_bench.importers.prechunked import MANIFEST, read_prechunked
from rag_bench.importers.squad import read_squad
from rag_bench.importers.trec import add_judgements


@dataclass(frozen=True)
class Format:
    """One importable format: its help line, its options, and its conversion."""

    help: str
    add_options: Callable[[argparse.ArgumentParser], None]
    convert: Callable[[Path, argparse.Namespace], Imported]


def _beir_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", default="test", help="qrels/<split>.tsv to read (default: test)")
    parser.add_argument("--all-queries", action="store_true", help="keep unjudged queries (as unanswerable)")


def _chroma_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpora", type=Path, help="corpus folder of <corpus_id>.md (default: corpora/ beside the CSV)"
    )


def _prechunked_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=Path, help="questions JSONL (default: questions.jsonl beside the chunks)")
    parser.add_argument("--separator", default="\\n\\n", help="joins a document's chunks; \\n and \\t escapes allowed")


def _trec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", type=Path, required=True, help="native dataset whose questions the qrels judge")


def _prechunked(source: Path, args: argparse.Namespace) -> Imported:
    chunks = source / "chunks.jsonl" if source.is_dir() else source
    questions = args.questions or chunks.parent / "questions.jsonl"
    separator = args.separator.replace("\\n", "\n").replace("\\t", "\t")
    return read_prechunked(chunks, questions, separator)


FORMATS: dict[str, Format] = {
    "beir": Format(
        "BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv",
        _beir_options,
        lambda source, args: read_beir(source, args.split, args.all_queries),
    ),
    "chroma": Format(
        "Chroma questions CSV (or its folder) plus a corpus folder",
        _chroma_options,
        lambda source, args: read_chroma(source, args.corpora),
    ),
    "squad": Format("SQuAD v1.1 or v2.0 JSON file", lambda parser: None, lambda source, args: read_squad(source)),
    "prechunked": Format(
        "chunks JSONL (or its folder) plus questions naming chunk ids", _prechunked_options, _prechunked
    ),
    "trec": Format(
        "TREC qrels file: judgements for the questions of --dataset",
        _trec_options,
        lambda source, args: replace(
            add_judgements(load_dataset(args.dataset), source), conventions=read_conventions(args.dataset)
        ),
    ),
}


def main(argv: list[str]) -> int:
    """Convert SOURCE in FORMAT into the native dataset folder DEST; print what was written."""
    args = _parser().parse_args(argv)
    source, dest = Path(args.source), Path(args.dest)
    _check_dest(dest, args.force)
    imported = FORMATS[args.format].convert(source, args)
    dataset = write_native(imported, dest)
    for note in imported.notes:
        print(f"note: {note}")
    spans = sum(len(q.spans) for q in dataset.questions)
    judged = sum(len(q.judgements) for q in dataset.questions)
    labelled = sum(q.labelled for q in dataset.questions)
    print(
        f"imported {args.format}: {len(dataset.documents)} documents, {len(dataset.questions)} questions "
        f"({labelled} labelled; {spans} evidence spans, {judged} judgements) -> {dest}"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag-bench import", description="Write a native dataset folder.")
    formats = parser.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for name, fmt in FORMATS.items():
        sub = formats.add_parser(name, help=fmt.help, description=fmt.help)
        sub.add_argument("source", metavar="SOURCE")
        sub.add_argument("dest", metavar="DEST", help="dataset folder to write")
        sub.add_argument("--force", action="store_true", help="overwrite a dataset already in DEST")
        fmt.add_options(sub)
    return parser


def _check_dest(dest: Path, force: bool) -> None:
    """DEST must be a folder (or not exist yet) and, without --force, hold no dataset."""
    if dest.exists() and not dest.is_dir():
        raise DataError(dest, "is not a folder", fix="give a folder path as DEST")
    present = [name for name in (*NATIVE_FILES, MANIFEST) if (dest / name).exists()]
    if present and not force:
        raise DataError(dest, f"already holds {present[0]}", fix="choose an empty DEST or pass --force to overwrite")
