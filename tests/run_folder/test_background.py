import errno
import threading

import pytest

from rag_bench.run_folder.background import Writes


def test_files_are_written_in_order_by_another_thread(tmp_path):
    threads = []

    def fill(handle):
        threads.append(threading.current_thread().name)
        handle.write(b"two")

    with Writes() as writes:
        writes.text(tmp_path / "one.txt", "é one")
        writes.file(tmp_path / "two.bin", fill)
        writes.text(tmp_path / "three.txt", "three")
        paths = writes.paths()
    assert [p.name for p in paths] == ["one.txt", "two.bin", "three.txt"]
    assert (tmp_path / "one.txt").read_bytes() == "é one".encode() and (tmp_path / "two.bin").read_bytes() == b"two"
    assert threads != [threading.current_thread().name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.txt", "three.txt", "two.bin"]  # no temporary left


def test_a_failed_write_is_raised_in_the_caller_naming_the_file_and_stops_later_ones(tmp_path):
    def full(handle):
        handle.write(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    (tmp_path / "two.bin").write_bytes(b"old")
    with pytest.raises(OSError) as caught, Writes() as writes:
        writes.text(tmp_path / "one.txt", "one")
        writes.file(tmp_path / "two.bin", full)
        writes.text(tmp_path / "three.txt", "three")
        writes.paths()
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(tmp_path / "two.bin")
    assert (tmp_path / "two.bin").read_bytes() == b"old"  # whole or not at all
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.txt", "two.bin"]


def test_an_error_in_the_caller_drops_the_writes_not_yet_started(tmp_path):
    started, release = threading.Event(), threading.Event()

    def slow(handle):
        started.set()
        release.wait(10)
        handle.write(b"slow")

    with pytest.raises(KeyboardInterrupt), Writes() as writes:
        writes.file(tmp_path / "slow.bin", slow)
        writes.text(tmp_path / "later.txt", "later")
        started.wait(10)
        threading.Timer(0.3, release.set).start()  # after leaving the block has dropped the queued write
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.bin"]  # the write under way finished whole
