"""Per-text claims on a shared cache, so that concurrent processes or cluster jobs never embed one text twice.

Before a process embeds a text it claims the text's key by creating the file
``<cache>/claims/<namespace>/<key hex>`` exclusively, as a hard link to a file that already holds the
holder's line (``link`` is atomic and exclusive on local filesystems and on NFS; ``O_CREAT | O_EXCL``
where links are not supported): one process wins, the others leave the text to it and wait for its
vector to appear in the cache. The holder commits the batch, then deletes its claims, so a process
that claims a key and then checks the cache sees either the vector or a free key it may embed.

A claim names its holder: ``host pid-namespace pid start-time``. A holder that died (killed by the
scheduler, out of memory) is found dead on its own host when no process with that PID and start time
exists there (so a reused PID is not taken for the holder), and its claims are broken at once. From
another host a claim is stale once older than ``RAG_BENCH_CLAIM_TIMEOUT`` seconds (600 by default;
a local embedder holds a claim for 512 texts, an API one for its batches in flight, so a live holder
never holds one that long). Breaking is itself exclusive (a ``.break`` file, also ``O_EXCL``), so two
waiters never both break and re-claim.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

STALE_AFTER_S = 600.0  # a claim older than this is stale from any host (RAG_BENCH_CLAIM_TIMEOUT)
BREAK_STALE_S = 60.0  # a .break file older than this belongs to a breaker that died mid-break


def _start_time(pid: int) -> str | None:
    """Start time of process ``pid``, clock ticks since boot (/proc/PID/stat field 22); None: no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:
        return "?"
    return stat.rsplit(")", 1)[1].split()[19]  # the command name may hold spaces; fields after it are fixed


def _host() -> str:
    """This host and PID namespace: PIDs are comparable only between processes that share both."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = "-"
    return f"{socket.gethostname()}|{namespace}"


@dataclass(frozen=True)
class Holder:
    """Who holds a claim: a process on a host."""

    host: str
    pid: int
    started: str

    @classmethod
    def me(cls) -> Holder:
        return cls(_host(), os.getpid(), _start_time(os.getpid()) or "?")

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        parts = text.split(" ")
        if len(parts) != 3 or not parts[1].isdigit():
            return None  # a claim being written, or damaged: judged by its age
        return cls(parts[0], int(parts[1]), parts[2])

    def line(self) -> str:
        return f"{self.host} {self.pid} {self.started}"

    def dead(self) -> bool:
        """True when the holder is on this host and gone; False when alive or on another host (unknown)."""
        if self.host != _host():
            return False
        started = _start_time(self.pid)
        return started is None or (started != "?" and self.started != "?" and started != self.started)


class Claims:
    """The claims of one cache namespace (``vectors/<model>/<dim>/<input type>``)."""

    def __init__(self, root: Path, namespace: str, stale_after: float | None = None) -> None:
        self.folder = Path(root) / "claims" / namespace
        if stale_after is None:
            stale_after = float(os.environ.get("RAG_BENCH_CLAIM_TIMEOUT") or STALE_AFTER_S)
        self.stale_after = stale_after
        self.broken = 0  # claims of dead or stale holders broken by this process
        self._me = Holder.me()
        self._line = self._me.line().encode()
        self._made = False

    def path(self, key: bytes) -> Path:
        return self.folder / key.hex()

    def take(self, keys: Iterable[bytes], limit: int) -> list[bytes]:
        """Claim up to ``limit`` of ``keys`` (in order) that nobody holds; the ones now held by this process.

        Each claim is a hard link to one file already holding this process's line, so a claim is never
        seen half-written, even when its holder is killed while claiming (the link is the claim).
        """
        if not self._made:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._made = True
        name = f".holder-{self._me.pid}-{os.urandom(4).hex()}"
        (self.folder / name).write_bytes(self._line)
        mine: list[bytes] = []
        with _Folder(self.folder) as at:
            try:
                for key in keys:
                    if len(mine) == limit:
                        break
                    if self._claim(at, name, key.hex()):
                        mine.append(key)
            finally:
                at.unlink(name)
        return mine

    def _claim(self, at: _Folder, line: str, name: str) -> bool:
        try:
            at.link(line, name)  # atomic and exclusive, NFS included
            return True
        except FileExistsError:
            return False
        except OSError:  # a filesystem without hard links: create exclusively, then write
            pass
        try:
            fd = os.open(self.folder / name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, self._line)
        finally:
            os.close(fd)
        return True

    def release(self, keys: Iterable[bytes]) -> None:
        """Drop this process's claims on ``keys`` (after their vectors are committed, or on failure)."""
        with _Folder(self.folder) as at:
            for key in keys:
                at.unlink(key.hex())

    def break_stale(self, keys: Iterable[bytes]) -> int:
        """Break the claims on ``keys`` whose holder is dead or that are older than ``stale_after``; how many."""
        verdicts: dict[bytes, bool] = {}  # a holder's claim line -> dead, judged once per call
        broken = 0
        now = time.time()
        for key in keys:
            path = self.path(key)
            try:
                line = path.read_bytes()
                age = now - path.stat().st_mtime
            except FileNotFoundError:
                continue  # released meanwhile
            if line not in verdicts:
                holder = Holder.parse(line.decode(errors="replace"))
                verdicts[line] = holder is not None and holder.dead()
            if (verdicts[line] or age > self.stale_after) and self._break(path, line):
                broken += 1
        self.broken += broken
        return broken

    def _break(self, path: Path, seen: bytes) -> bool:
        """Delete the claim at ``path`` if it still holds ``seen``, with no other breaker at work on it."""
        guard = path.with_name(path.name + ".break")
        try:
            fd = os.open(guard, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                if time.time() - guard.stat().st_mtime > BREAK_STALE_S:
                    guard.unlink(missing_ok=True)  # its breaker died between two system calls
            except FileNotFoundError:
                pass
            return False
        try:
            try:
                current = path.read_bytes()
            except FileNotFoundError:
                return False
            if current != seen:
                return False  # released and claimed again meanwhile: a live claim
            path.unlink(missing_ok=True)
            return True
        finally:
            os.close(fd)
            guard.unlink(missing_ok=True)


class _Folder:
    """Links and unlinks by name inside one folder, through a descriptor of it where the platform allows
    (the kernel then walks no path per claim: a claim and its release are one short system call each)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.fd = str(folder), None

    def __enter__(self) -> _Folder:
        if os.link in os.supports_dir_fd and os.unlink in os.supports_dir_fd:
            try:
                self.fd = os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                self.fd = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def link(self, source: str, name: str) -> None:
        if self.fd is None:
            os.link(os.path.join(self.folder, source), os.path.join(self.folder, name))
        else:
            os.link(source, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        """Remove ``name`` if it is there."""
        with contextlib.suppress(FileNotFoundError):
            if self.fd is None:
                os.unlink(os.path.join(self.folder, name))
            else:
                os.unlink(name, dir_fd=self.fd)
