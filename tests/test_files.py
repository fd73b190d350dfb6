"""rag_bench.core.files: a write that fails midway leaves the previous file byte-identical."""

import errno
import json
import os
import subprocess
import uuid

import pytest

from rag_bench.core import files
from rag_bench.data.jsonl import jsonl_bytes
from rag_bench.data.native import load_dataset
from rag_bench.entry.cli import main
from rag_bench.entry.failing import write_hint


def leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(files.TEMP_PREFIX)]


@pytest.fixture
def tmpfs(tmp_path):
    """A fresh 64 KiB tmpfs (a real full disk), unmounted afterwards; skipped where mount is not allowed."""
    mount = tmp_path / f"tmpfs-{uuid.uuid4().hex[:6]}"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_write_text_replaces_whole_and_keeps_the_mode(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"old\r\n")
    path.chmod(0o640)
    files.write_text(path, "new\r\nline")
    assert path.read_bytes() == b"new\r\nline"  # no newline translation
    assert path.stat().st_mode & 0o777 == 0o640
    assert leftovers(tmp_path) == []


def test_a_failed_rename_leaves_the_old_file_and_names_the_destination(tmp_path, monkeypatch):
    path = tmp_path / "metrics.json"
    path.write_bytes(b'{"old": 1}\n')

    def refuse(src, dst):
        raise OSError(errno.EROFS, "Read-only file system", src)

    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(OSError) as caught:
        files.write_text(path, '{"new": 2}\n')
    assert caught.value.errno == errno.EROFS
    assert caught.value.filename == str(path)  # not the temporary file
    assert path.read_bytes() == b'{"old": 1}\n'
    assert leftovers(tmp_path) == []


def test_a_writer_that_fails_midway_leaves_the_old_file(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_bytes(b'{"id": "q1"}\n')

    def torn(handle):
        handle.write(b'{"id": "q1"}\n{"id": "q2", "quest')
        raise OSError(errno.ENOSPC, "No space left on device")  # a write() names no file

    with pytest.raises(OSError) as caught:
        files.write_atomic(path, torn)
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(path))
    assert path.read_bytes() == b'{"id": "q1"}\n'
    assert leftovers(tmp_path) == []


def test_a_real_full_disk_leaves_the_old_file(tmpfs):
    path = tmpfs / "documents.jsonl"
    path.write_bytes(b"x" * 1000)
    with pytest.raises(OSError) as caught:
        files.write_bytes(path, b"y" * 200_000)  # three times the disk
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(path)
    assert path.read_bytes() == b"x" * 1000
    assert leftovers(tmpfs) == []
    line = files.os_error_line(caught.value)
    assert line.startswith(f"cannot write {path}: No space left on device (fix: free space")


def test_write_via_keeps_the_suffix_for_writers_that_read_it(tmp_path):
    seen = []
    files.write_via(tmp_path / "plot.png", lambda tmp: (seen.append(tmp.suffix), tmp.write_bytes(b"png")))
    assert seen == [".png"]
    assert (tmp_path / "plot.png").read_bytes() == b"png"


def test_write_together_changes_nothing_when_a_later_file_fails(tmp_path, monkeypatch):
    first, second = tmp_path / "documents.jsonl", tmp_path / "questions.jsonl"
    first.write_bytes(b"docs v1\n")
    second.write_bytes(b"questions v1\n")
    real_fill = files._fill

    def fill(tmp, write):
        if "questions" in tmp.name:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fill(tmp, write)

    monkeypatch.setattr(files, "_fill", fill)
    with pytest.raises(OSError) as caught:
        files.write_together({first: b"docs v2\n", second: b"questions v2\n"})
    assert caught.value.filename == str(second)
    assert first.read_bytes() == b"docs v1\n"  # the first file was staged, never renamed
    assert second.read_bytes() == b"questions v1\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("write", ["write_text", "write_together"])
def test_a_symlink_is_written_through_to_its_target(tmp_path, write):
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "questions.jsonl"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    (tmp_path / "data").mkdir()
    link = tmp_path / "data" / "questions.jsonl"
    link.symlink_to(target)
    hop = tmp_path / "hop.jsonl"  # a link to the link: the chain is followed to its end
    hop.symlink_to(link)
    if write == "write_text":
        files.write_text(hop, "new\n")
    else:
        files.write_together({hop: b"new\n"})
    assert hop.is_symlink() and link.is_symlink()  # both links stay links
    assert os.readlink(link) == str(target)
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o777 == 0o640  # the target's mode kept
    assert leftovers(tmp_path / "shared") == leftovers(tmp_path / "data") == leftovers(tmp_path) == []


def test_a_link_planted_in_the_cache_is_replaced_not_followed(tmp_path):
    from rag_bench.core.cache import DiskCache

    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"mine\n")
    cache = DiskCache(tmp_path / "cache")
    entry = cache.path("runs", "ab" * 32)
    entry.parent.mkdir(parents=True)
    entry.symlink_to(victim)  # another user of a shared cache aims an entry at someone's file
    cache.put("runs", "ab" * 32, b"payload")
    assert victim.read_bytes() == b"mine\n"
    assert not entry.is_symlink() and cache.get("runs", "ab" * 32) == b"payload"


def test_check_writable_names_the_file_when_a_file_blocks_its_folder(tmp_path):
    (tmp_path / "plain").write_text("a file")
    with pytest.raises(FileExistsError) as caught:  # mkdir finds a file where the folder belongs
        files.check_writable(tmp_path / "plain" / "out.jsonl")
    assert caught.value.filename == str(tmp_path / "plain" / "out.jsonl")
    assert files.check_writable(tmp_path / "new" / "out.jsonl") == tmp_path / "new" / "out.jsonl"
    assert leftovers(tmp_path / "new") == []


def _small_dataset(folder):
    folder.mkdir()
    docs = [{"id": "a", "text": "Alpha text."}, {"id": "b", "text": "Beta text."}]
    questions = [{"id": "q1", "question": "What is alpha?", "judgements": {"a": 1}}]
    (folder / "documents.jsonl").write_bytes(jsonl_bytes(docs))
    (folder / "questions.jsonl").write_bytes(jsonl_bytes(questions))


def test_import_trec_into_its_own_dataset_interrupted_leaves_it_intact(tmp_path, monkeypatch, capsys):
    data = tmp_path / "judged"
    _small_dataset(data)
    before = {name: (data / name).read_bytes() for name in ("documents.jsonl", "questions.jsonl")}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 b 2\n")
    real_fill = files._fill
    calls = []

    def fill(tmp, write):  # the disk fills while questions.jsonl is written
        calls.append(tmp.name)
        if "questions.jsonl" in tmp.name:
            with open(tmp, "wb") as handle:
                handle.write(before["questions.jsonl"][:10])
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fill(tmp, write)

    monkeypatch.setattr(files, "_fill", fill)
    with pytest.raises(SystemExit) as stopped:
        main(["import", "trec", str(qrels), str(data), "--dataset", str(data), "--force"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"rag-bench: cannot write {data / 'questions.jsonl'}: No space left on device (fix: ")
    assert len(calls) == 2  # documents.jsonl was staged first, and left unrenamed
    assert {name: (data / name).read_bytes() for name in before} == before
    assert leftovers(data) == []
    monkeypatch.setattr(files, "_fill", real_fill)  # the same import on a healthy disk adds the grade
    with pytest.raises(SystemExit) as done:
        main(["import", "trec", str(qrels), str(data), "--dataset", str(data), "--force"])
    assert done.value.code == 0
    assert json.loads((data / "questions.jsonl").read_text())["judgements"] == {"a": 1, "b": 2}
    assert load_dataset(data).questions[0].judgements == {"a": 1, "b": 2}


def test_a_fault_in_the_cache_names_the_cache_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_BENCH_CACHE", str(tmp_path / "cache"))
    error = OSError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / "cache" / "chunks" / "ab"))
    assert (
        write_hint(error, tmp_path / "run")
        == f"cache_dir=... or RAG_BENCH_CACHE (now {tmp_path / 'cache'}) can name a writable folder"
    )
    outside = OSError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / "elsewhere"))
    assert write_hint(outside, tmp_path / "run") == ""
    assert files.os_error_line(error, "RAG_BENCH_CACHE (now X) can name a writable folder") == (
        f"cannot write {tmp_path / 'cache' / 'chunks' / 'ab'}: Permission denied (fix: make the folder writable, "
        f"or write somewhere else; RAG_BENCH_CACHE (now X) can name a writable folder)"
    )


class CountingRaw:
    """A raw binary sink recording the size of each write(2) the buffered writer makes."""

    def __init__(self):
        self.sizes, self.data = [], bytearray()

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    closed = False

    def write(self, view):
        self.sizes.append(len(view))
        self.data += view
        return len(view)

    def flush(self):
        pass


def test_a_large_buffer_reaches_the_kernel_a_piece_at_a_time():
    import numpy as np

    raw = CountingRaw()
    handle = files.PieceWriter(raw)
    big = bytes(range(256)) * (3 * files.PIECE // 256 + 7)  # 3 pieces and 1,792 bytes
    grid = np.arange(files.PIECE, dtype=np.float32).reshape(1024, -1)  # 4 MiB, 2-D: written as its bytes
    assert handle.write(b"head") == 4
    assert handle.write(big) == len(big)
    assert handle.write(grid) == grid.nbytes
    with pytest.raises(ValueError, match="contiguous"):  # as io.BufferedWriter refuses it
        handle.write(grid[:, ::2])
    handle.flush()
    assert max(raw.sizes) <= files.PIECE
    assert bytes(raw.data) == b"head" + big + grid.tobytes()


def test_write_bytes_of_many_pieces_is_whole(tmp_path):
    data = os.urandom(files.PIECE * 2 + 12345)
    path = files.write_bytes(tmp_path / "big.bin", data)
    assert path.read_bytes() == data
    assert leftovers(tmp_path) == []


def test_keep_newest_deletes_the_oldest_files_and_leaves_folders_and_a_file_gone_meanwhile(tmp_path, monkeypatch):
    for i in range(5):
        (tmp_path / f"f{i}").write_text("x")
        os.utime(tmp_path / f"f{i}", ns=(10**18 + i, 10**18 + i))
    (tmp_path / "sub").mkdir()
    os.utime(tmp_path / "sub", ns=(1, 1))  # older than every file, but not a file
    real_unlink = os.unlink

    def raced(path):  # another process deleted f0 first
        if path.endswith("f0"):
            real_unlink(path)
        real_unlink(path)

    monkeypatch.setattr(files.os, "unlink", raced)
    files.keep_newest(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f3", "f4", "sub"]
