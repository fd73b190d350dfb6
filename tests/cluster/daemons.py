"""Real one-machine clusters for the engine tests: SLURM (munge, MariaDB, slurmdbd, slurmctld, slurmd) and Ray.

Every daemon runs in the foreground as a child of this process, with its files (configuration, keys,
state, logs, database) under one folder and its ports picked free on 127.0.0.1, so several copies can
run on one machine without touching /etc or the system's daemons. ``stop`` ends each one by its PID
(SIGTERM, then SIGKILL), on success and on failure; the context managers call it.

    with SlurmCluster(folder) as slurm:   # slurm.env: SLURM_CONF for sbatch, sacct, squeue, scancel
        subprocess.run(["sbatch", ...], env={**os.environ, **slurm.env})

By hand (Debian/Ubuntu, root; ``.ci/cluster-setup`` installs the packages):
``python tests/cluster/daemons.py slurm -- rag-bench sweep=grid24 hydra/launcher=submitit_slurm``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

SLURM_PROGRAMS = ("munged", "mungekey", "mariadbd", "mariadb-install-db", "mariadb", "slurmdbd", "slurmctld", "slurmd")
START_TIMEOUT_S = 60.0


def missing_programs(names: tuple[str, ...]) -> list[str]:
    """The programs of ``names`` found neither on PATH nor in /usr/sbin."""
    return [n for n in names if not shutil.which(n, path=f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/bin")]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def until(condition: Callable[[], bool], timeout: float, every: float = 0.1) -> bool:
    """Poll ``condition`` until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(every)


def _parents() -> dict[int, int]:
    """PID -> parent PID of every process (from /proc)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    return parents


def descendants(pid: int) -> list[int]:
    """The PIDs of every process below ``pid`` now."""
    parents, found, frontier = _parents(), [], [pid]
    while frontier:
        children = [p for p, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def descendants_alive(pids: list[int]) -> set[int]:
    """Those of ``pids`` still running (zombies excluded)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


class DaemonError(RuntimeError):
    """A daemon did not start; the message holds the end of its log."""


class Daemons:
    """Processes started by this object, stopped in reverse order by PID."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.started: list[tuple[str, subprocess.Popen]] = []

    def start(
        self, name: str, argv: list[str], env: dict[str, str], ready: Callable[[], bool], cwd: Path | None = None
    ) -> subprocess.Popen:
        """Start ``argv`` (log in ``<folder>/<name>.out``) and wait until ``ready()``; DaemonError if it never is."""
        log = (self.folder / f"{name}.out").open("ab")
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd)
        log.close()
        self.started.append((name, proc))
        if not until(lambda: proc.poll() is not None or ready(), START_TIMEOUT_S) or proc.poll() is not None:
            raise DaemonError(f"{name} did not start (exit {proc.poll()}); its log ends:\n{self.tail(name)}")
        return proc

    def tail(self, name: str, lines: int = 30) -> str:
        logs = [p for p in sorted(self.folder.glob(f"{name}*")) if p.suffix in (".out", ".log")]
        return "\n".join(
            f"--- {p.name}\n" + "\n".join(p.read_text(errors="replace").splitlines()[-lines:]) for p in logs
        )

    def stop(self) -> list[str]:
        """Stop every daemon started here by PID (SIGTERM, SIGKILL after 15 s), then any process it left behind.

        Returns the names of those that needed SIGKILL.
        """
        killed = []
        for name, proc in reversed(self.started):
            children = descendants(proc.pid)
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=15)
                    killed.append(name)
            for pid in children:  # what the daemon spawned and did not stop (ray's servers, a job's steps)
                if pid in descendants_alive(children):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(f"{name}:{pid}")
        self.started.clear()
        return killed

    def pids(self) -> dict[str, int]:
        return {name: proc.pid for name, proc in self.started}


class SlurmCluster:
    """A one-node SLURM cluster with real accounting (slurmdbd on MariaDB), run by root."""

    def __init__(self, folder: Path, cpus: int | None = None, cluster: str = "ragbench") -> None:
        self.folder = Path(folder)
        self.cpus = cpus or os.cpu_count() or 1
        self.cluster = cluster
        self.daemons = Daemons(self.folder / "logs")
        self.host = socket.gethostname()
        self.conf = self.folder / "etc" / "slurm.conf"
        self.env = {"SLURM_CONF": str(self.conf)}

    def __enter__(self) -> SlurmCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        for sub in ("etc", "munge", "db", "state", "spool", "logs", "run"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        self.ports = {name: free_port() for name in ("mysql", "dbd", "ctld", "slurmd")}
        env = {**os.environ, **self.env}
        self._start_munge(env)
        self._start_mariadb(env)
        self._write_configs()
        socket_path = self.folder / "run" / "munge.socket"
        self.daemons.start(
            "slurmdbd", ["slurmdbd", "-D"], env, lambda: self._listening(self.ports["dbd"]) and socket_path.exists()
        )
        run(["sacctmgr", "-i", "add", "cluster", self.cluster], env)
        self.daemons.start("slurmctld", ["slurmctld", "-D", "-i"], env, lambda: self._listening(self.ports["ctld"]))
        self.daemons.start("slurmd", ["slurmd", "-D", "-N", self.host], env, self._node_idle)

    def stop(self) -> list[str]:
        """Cancel every job, wait for them to go, then stop each daemon by PID."""
        if self.conf.exists() and any(n == "slurmctld" for n, p in self.daemons.started if p.poll() is None):
            env = {**os.environ, **self.env}
            subprocess.run(["scancel", "--full", "--signal=KILL", "-u", "root"], env=env, capture_output=True)
            until(lambda: not self.queue(), 20, every=0.5)
        return self.daemons.stop()

    def queue(self) -> list[str]:
        """Job ids still in the queue (``["?"]`` when squeue fails, e.g. slurmctld busy: not known to be empty)."""
        done = subprocess.run(
            ["squeue", "-h", "-o", "%i"], env={**os.environ, **self.env}, capture_output=True, text=True
        )
        return done.stdout.split() if done.returncode == 0 else ["?"]

    def _listening(self, port: int) -> bool:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            return probe.connect_ex(("127.0.0.1", port)) == 0

    def _node_idle(self) -> bool:
        done = subprocess.run(
            ["sinfo", "-h", "-o", "%T"], env={**os.environ, **self.env}, capture_output=True, text=True
        )
        return done.stdout.strip() == "idle"

    def _start_munge(self, env: dict[str, str]) -> None:
        key = self.folder / "munge" / "munge.key"
        run(["mungekey", "-c", "-f", "-k", str(key)], env)
        munge_socket = self.folder / "run" / "munge.socket"
        self.daemons.start(
            "munged",
            ["munged", "-F", "-f", f"--socket={munge_socket}", f"--key-file={key}",
             f"--pid-file={self.folder / 'run' / 'munged.pid'}", f"--seed-file={self.folder / 'munge' / 'seed'}",
             f"--log-file={self.folder / 'logs' / 'munged.log'}"],
            env,
            munge_socket.exists,
        )  # fmt: skip

    def _start_mariadb(self, env: dict[str, str]) -> None:
        data, sock = self.folder / "db", self.folder / "run" / "mysql.sock"
        run(["mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root", "--skip-test-db",
             "--auth-root-authentication-method=normal"], env)  # fmt: skip
        self.daemons.start(
            "mariadbd",
            ["mariadbd", "--no-defaults", f"--datadir={data}", f"--socket={sock}", f"--port={self.ports['mysql']}",
             "--bind-address=127.0.0.1", "--skip-name-resolve", "--user=root", f"--pid-file={data / 'mariadbd.pid'}",
             "--innodb-buffer-pool-size=64M", f"--log-error={self.folder / 'logs' / 'mariadbd.log'}"],
            env,
            lambda: self._listening(self.ports["mysql"]),
        )  # fmt: skip
        sql = (
            "CREATE USER 'slurm'@'127.0.0.1'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; "
            "CREATE DATABASE slurm_acct_db;"
        )
        run(["mariadb", "--no-defaults", f"--socket={sock}", "-uroot", "-e", sql], env)

    def _write_configs(self) -> None:
        folder, ports, munge_socket = self.folder, self.ports, self.folder / "run" / "munge.socket"
        memory_mb = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20 * 0.8)
        slurm = f"""
ClusterName={self.cluster}
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={ports["ctld"]}
SlurmdPort={ports["slurmd"]}
AuthType=auth/munge
AuthInfo=socket={munge_socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder / "state"}
SlurmdSpoolDir={folder / "spool"}
SlurmctldPidFile={folder / "run" / "slurmctld.pid"}
SlurmdPidFile={folder / "run" / "slurmd.pid"}
SlurmctldLogFile={folder / "logs" / "slurmctld.log"}
SlurmdLogFile={folder / "logs" / "slurmd.log"}
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={ports["dbd"]}
AccountingStoragePass={munge_socket}
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
KillWait=5
MinJobAge=30
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName=debug Nodes={self.host} Default=YES MaxTime=INFINITE State=UP
"""
        dbd = f"""
AuthType=auth/munge
AuthInfo=socket={munge_socket}
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={ports["dbd"]}
SlurmUser=root
LogFile={folder / "logs" / "slurmdbd.log"}
PidFile={folder / "run" / "slurmdbd.pid"}
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={ports["mysql"]}
StorageUser=slurm
StorageLoc=slurm_acct_db
"""
        self.conf.write_text(slurm.lstrip())
        dbd_conf = self.conf.with_name("slurmdbd.conf")
        dbd_conf.write_text(dbd.lstrip())
        dbd_conf.chmod(0o600)


class RayCluster:
    """A local Ray head node bound to 127.0.0.1 (``ray start --head --block``), stopped by PID."""

    def __init__(self, folder: Path, cpus: int | None = None) -> None:
        self.folder = Path(folder)
        self.cpus = cpus or os.cpu_count() or 1
        self.daemons = Daemons(self.folder / "logs")
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        # Ray binds to the machine's external address unless told otherwise (here: loopback only)
        self.env = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_ADDRESS": self.address}

    def __enter__(self) -> RayCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, worker_env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        ray = str(Path(sys.executable).with_name("ray"))
        env = {**os.environ, **self.env, **(worker_env or {})}  # workers get the raylet's environment
        env.pop("RAY_ADDRESS")
        argv = [
            ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={self.port}",
            f"--num-cpus={self.cpus}", "--include-dashboard=false", "--disable-usage-stats",
            f"--temp-dir={self.folder / 'ray'}", "--object-store-memory=200000000",
        ]  # fmt: skip
        self.daemons.start("ray", argv, env, self._up, cwd=cwd)

    def _up(self) -> bool:
        log = self.daemons.folder / "ray.out"
        return log.exists() and "Ray runtime started" in log.read_text(errors="replace")

    def stop(self) -> list[str]:
        return self.daemons.stop()


def run(argv: list[str], env: dict[str, str]) -> None:
    """Run a set-up command; DaemonError with its output if it fails."""
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise DaemonError(
            f"{' '.join(argv[:3])} failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


def main(argv: list[str]) -> int:
    """``daemons.py slurm|ray [-- COMMAND...]``: start a cluster, run COMMAND in its environment, stop it."""
    import tempfile

    if not argv or argv[0] not in ("slurm", "ray"):
        print("usage: daemons.py slurm|ray [-- COMMAND ...]", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1 :] if "--" in argv else []
    folder = Path(tempfile.mkdtemp(prefix=f"rag-bench-{argv[0]}-"))
    cluster = SlurmCluster(folder) if argv[0] == "slurm" else RayCluster(folder)
    with cluster:
        print(f"{argv[0]} up: {cluster.env}; daemons {cluster.daemons.pids()}; files in {folder}", flush=True)
        if command:
            return subprocess.run(command, env={**os.environ, **cluster.env}).returncode
        input("press Enter to stop the cluster ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
