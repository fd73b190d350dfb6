"""Leases on a shared cache, so that concurrent processes or cluster jobs never embed one text twice.

A process claims a batch of texts (2048 of a local embedder, one request of an API one) with one
lease, two files in ``<cache>/claims/<namespace>/``: ``<id>.keys`` (the texts' keys, hex, one a line)
and ``<id>.lease`` (the holder's line, written last: the lease exists once it does). Leases are taken
under the namespace's lock, the file ``lock`` in the same folder, made as a hard link to a file that
already holds the holder's line (``link`` is atomic and exclusive on local filesystems and on NFS;
``O_CREAT | O_EXCL`` where links are not supported). Under the lock the claimer reads every lease,
takes up to its limit of the keys that none holds, and writes its own; one process wins each text,
the others leave it to the winner and wait for its vector to appear in the cache. The holder commits
the batch, then deletes its lease, so a process that claims a key and then checks the cache sees
either the vector or a free key it may embed. A claim costs a few system calls per batch, not a
``link`` and an ``unlink`` per text (about 7 us a text: a fifth of the hashing embedder's time).
On NFS the lock's ``link``, made in the leases' own folder, brings that folder's listing up to date.

Under the lock a claimer reads the file ``generation`` and writes its own random token there unless it is
there already: found unchanged, no other claimer took a lease since, and if none was held at its previous
take either, nobody can have committed a text since (``quiet``), so its view of the cache is still whole.

A lease names its holder: ``host pid-namespace pid start-time``. A holder that died (killed by the
scheduler, out of memory) is found dead on its own host when no process with that PID and start time
exists there (so a reused PID is not taken for the holder), and its leases are broken at once. From
another host a lease is stale once older than ``RAG_BENCH_CLAIM_TIMEOUT`` seconds (600 by default; a
live holder keeps a lease for one batch, never that long). A lease's name is random and never reused,
so breaking it is one ``unlink`` that cannot hit a newer lease. The lock, held for milliseconds, is
broken when its holder is dead or after ``LOCK_STALE_S``; breaking it is itself exclusive (a
``.break`` file, also ``O_EXCL``), so two waiters never both break it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

STALE_AFTER_S = 600.0  # a lease older than this is stale from any host (RAG_BENCH_CLAIM_TIMEOUT)
BREAK_STALE_S = 60.0  # a .break file older than this belongs to a breaker that died mid-break
LOCK_STALE_S = 60.0  # a lock older than this belongs to a holder that stopped while holding it
LOCK_POLL_S = (0.001, 0.05)  # first and longest wait between tries of a busy lock


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
    """Who holds a lease: a process on a host."""

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
            return None  # a lock being written, or damaged: judged by its age
        return cls(parts[0], int(parts[1]), parts[2])

    def line(self) -> str:
        return f"{self.host} {self.pid} {self.started}"

    def dead(self) -> bool:
        """True when the holder is on this host and gone; False when alive or on another host (unknown)."""
        if self.host != _host():
            return False
        started = _start_time(self.pid)
        return started is None or (started != "?" and self.started != "?" and started != self.started)


@dataclass(frozen=True)
class Lease:
    """One lease as read from the folder: its id, its holder's line, its keys and its age in seconds."""

    name: str
    line: bytes
    keys: list[bytes]
    age: float


class Claims:
    """The leases of one cache namespace (``vectors/<model>/<dim>/<input type>``)."""

    def __init__(self, root: Path, namespace: str, stale_after: float | None = None) -> None:
        self.folder = Path(root) / "claims" / namespace
        if stale_after is None:
            stale_after = float(os.environ.get("RAG_BENCH_CLAIM_TIMEOUT") or STALE_AFTER_S)
        self.stale_after = stale_after
        self.broken = 0  # keys in the leases of dead or stale holders broken by this process
        self._me = Holder.me()
        self._line = self._me.line().encode()
        self._made = False
        self._lease_of: dict[bytes, str] = {}  # key -> id of this object's lease holding it
        self._token: bytes | None = None  # the generation token this object wrote last
        self._alone = False  # at this object's last take no other lease was held
        self.quiet = False  # after a take: no other claimer can have committed a text since the previous take

    def take(self, keys: Iterable[bytes], limit: int) -> list[bytes]:
        """Claim up to ``limit`` of ``keys`` (in order) that no lease holds, with one lease; the ones now held."""
        if not self._made:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._made = True
        mine: list[bytes] = []
        with self._locked() as holder_file:
            leases, own = self.leases(clean=True), set(self._lease_of.values())
            held = {key for lease in leases for key in lease.keys}
            self._note_generation(alone=all(lease.name in own for lease in leases))
            for key in keys:
                if len(mine) == limit:
                    break
                if key not in held:
                    mine.append(key)
                    held.add(key)
            if mine:
                name = os.urandom(8).hex()
                keys_tmp = self.folder / f".tmp-{name}"
                keys_tmp.write_text("\n".join(key.hex() for key in mine))
                os.replace(keys_tmp, self.folder / f"{name}.keys")
                self._publish(holder_file, f"{name}.lease")  # the lease exists from here
                self._lease_of.update(dict.fromkeys(mine, name))
        return mine

    def _note_generation(self, alone: bool) -> None:
        """Under the lock: set ``quiet``, and make the generation token this object's."""
        path = self.folder / "generation"
        token = path.read_bytes() if path.exists() else None  # written by rename: whole or absent
        self.quiet = self._alone and token is not None and token == self._token
        self._alone = alone
        if token is None or token != self._token:
            self._token = os.urandom(8).hex().encode()
            temp = self.folder / f".tmp-generation-{self._token.decode()}"
            temp.write_bytes(self._token)
            os.replace(temp, path)

    def release(self, keys: Iterable[bytes]) -> None:
        """Drop this process's leases holding ``keys`` (after their vectors are committed, or on failure).

        A lease is released whole: pass every key ``take`` returned with it."""
        names = {self._lease_of.pop(key) for key in keys if key in self._lease_of}
        for name in names:
            self._remove(name)
        if names:
            self._lease_of = {key: name for key, name in self._lease_of.items() if name not in names}

    def break_stale(self, keys: Iterable[bytes]) -> int:
        """Break the leases holding any of ``keys`` whose holder is dead or that are older than ``stale_after``;
        how many keys they held."""
        wanted = set(keys)
        verdicts: dict[bytes, bool] = {}  # a holder's line -> dead, judged once per call
        broken = 0
        for lease in self.leases():
            if wanted.isdisjoint(lease.keys):
                continue
            if lease.line not in verdicts:
                holder = Holder.parse(lease.line.decode(errors="replace"))
                verdicts[lease.line] = holder is not None and holder.dead()
            if (verdicts[lease.line] or lease.age > self.stale_after) and self._remove(lease.name):
                broken += len(lease.keys)
        self.broken += broken
        return broken

    def held(self) -> set[bytes]:
        """Every key some lease of this namespace holds now."""
        return {key for lease in self.leases() for key in lease.keys}

    def leases(self, clean: bool = False) -> list[Lease]:
        """The leases in the folder now. With ``clean`` (under the lock, where no lease is half-made), the
        keys files of leases whose holder died before making them, or while releasing them, are deleted."""
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return []
        now, found = time.time(), []
        leases = {name[: -len(".lease")] for name in names if name.endswith(".lease")}
        for name in names:
            if clean and name.startswith(".tmp-"):  # a keys file its writer died writing
                (self.folder / name).unlink(missing_ok=True)
            if not name.endswith(".keys"):
                continue
            name = name[: -len(".keys")]
            if name not in leases:
                if clean:
                    (self.folder / f"{name}.keys").unlink(missing_ok=True)
                continue
            try:
                line = (self.folder / f"{name}.lease").read_bytes()
                age = now - (self.folder / f"{name}.lease").stat().st_mtime
                raw = bytes.fromhex((self.folder / f"{name}.keys").read_text())
            except FileNotFoundError:
                continue  # released meanwhile
            except ValueError:  # damaged on disk (never written so: keys files are renamed into place)
                continue
            found.append(Lease(name, line, [raw[i : i + 32] for i in range(0, len(raw), 32)], age))
        return found

    def _remove(self, name: str) -> bool:
        """Delete lease ``name`` (the lease first, then its keys); whether this call deleted it."""
        try:
            os.unlink(self.folder / f"{name}.lease")
        except FileNotFoundError:
            return False
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.folder / f"{name}.keys")
        return True

    @contextlib.contextmanager
    def _locked(self):
        """Hold the namespace's lock; yields a file holding this process's line (for ``_publish``)."""
        holder_file = self.folder / f".holder-{self._me.pid}-{os.urandom(4).hex()}"
        holder_file.write_bytes(self._line)
        lock = self.folder / "lock"
        try:
            wait = LOCK_POLL_S[0]
            while not self._publish(holder_file, "lock"):
                self._break_lock(lock)
                time.sleep(wait)
                wait = min(wait * 2, LOCK_POLL_S[1])
                os.utime(holder_file)  # the lock's (and the lease's) age counts from when it is taken
            try:
                yield holder_file
            finally:
                with contextlib.suppress(FileNotFoundError):
                    if os.path.samefile(lock, holder_file) or lock.read_bytes() == self._line:
                        lock.unlink()  # still ours (not broken as stale and taken by another)
        finally:
            holder_file.unlink(missing_ok=True)

    def _publish(self, holder_file: Path, name: str) -> bool:
        """Create ``name`` holding this process's line, exclusively; False when it exists."""
        try:
            os.link(holder_file, self.folder / name)  # atomic and exclusive, NFS included
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

    def _break_lock(self, lock: Path) -> None:
        """Delete the lock if its holder is dead or it is older than ``LOCK_STALE_S``, with no other breaker at work."""
        try:
            seen = lock.read_bytes()
            judged = lock.stat()
        except FileNotFoundError:
            return
        holder = Holder.parse(seen.decode(errors="replace"))
        if not ((holder is not None and holder.dead()) or time.time() - judged.st_mtime > LOCK_STALE_S):
            return
        guard = lock.with_name("lock.break")
        try:
            fd = os.open(guard, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            with contextlib.suppress(FileNotFoundError):
                if time.time() - guard.stat().st_mtime > BREAK_STALE_S:
                    guard.unlink(missing_ok=True)  # its breaker died between two system calls
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                now = lock.stat()
                if (now.st_ino, now.st_mtime_ns) == (judged.st_ino, judged.st_mtime_ns) and lock.read_bytes() == seen:
                    lock.unlink()  # the very lock it judged, not one taken since
        finally:
            os.close(fd)
            guard.unlink(missing_ok=True)
