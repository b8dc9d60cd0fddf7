"""A throwaway PostgreSQL cluster for the tests and benchmarks/bench_store.py (test scaffolding, not
in the wheel): initdb into a temp folder, start it listening on a unix socket inside that folder only
(no TCP port to collide on), drop it at the end.

initdb and postgres refuse to run as root; as root (CI) they run as the `postgres` account that
Debian's package creates, through runuser. Nothing here imports psycopg.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SERVER_USER = "postgres"  # the account Debian's postgresql package creates
ROLE = "memroute"


def find_bindir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: Debian's versioned folder (newest first), else PATH."""
    for initdb in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version, reverse=True):
        return Path(initdb).parent
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    return None


def _version(path: str) -> float:
    try:
        return float(Path(path).parts[-3])
    except ValueError:
        return 0.0


def unavailable_reason() -> str | None:
    """Why a throwaway cluster cannot run here (None when it can)."""
    if find_bindir() is None:
        return "PostgreSQL is not installed (no initdb): apt-get install postgresql postgresql-contrib"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and there is no {SERVER_USER!r} account to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing (PostgreSQL refuses to run as root)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed: pip install 'memroute[postgres]'"
    return None


@dataclass
class Cluster:
    folder: Path
    bindir: Path
    durable: bool = False

    @property
    def socket_dir(self) -> Path:
        return self.folder

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://{ROLE}@/{dbname}?host={self.folder}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = list(args)
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", SERVER_USER, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        data = self.folder / "data"
        done = self._run(
            str(self.bindir / "initdb"), "-D", str(data), "-U", ROLE, "--auth=trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync",
        )
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
        # Tests: fsync off (a throwaway cluster need not survive a power cut; they kill workers, not the
        # host). Benchmarks: durable, as a production server is (every commit flushed to disk).
        fsync = "on" if self.durable else "off"
        options = f"-k {self.folder} -c listen_addresses='' -c fsync={fsync} -c max_connections=200"
        done = self._run(
            str(self.bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(self.folder / "server.log"),
            "-w", "-t", "60", "start",
        )
        if done.returncode:
            log = (self.folder / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}\n{log}")

    def create_database(self, name: str, template: str | None = None) -> str:
        """A fresh database in the cluster (a copy of `template` if given); returns its DSN."""
        import psycopg

        copy = f' TEMPLATE "{template}" STRATEGY file_copy' if template else ""
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.dsn(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster(*, durable: bool = False) -> Cluster:
    """initdb + start a cluster in a new temp folder (short path: a unix socket path has ~100 bytes).
    `durable`: fsync on, as in production (benchmarks); off by default (tests)."""
    bindir = find_bindir()
    if bindir is None:
        raise RuntimeError(unavailable_reason() or "PostgreSQL is not installed")
    folder = Path(tempfile.mkdtemp(prefix="memroute-pg-", dir="/tmp"))
    if os.geteuid() == 0:
        account = pwd.getpwnam(SERVER_USER)
        os.chown(folder, account.pw_uid, account.pw_gid)
    os.chmod(folder, 0o755)  # clients (root, the test user) reach the socket inside
    cluster = Cluster(folder, bindir, durable)
    try:
        cluster.start()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return cluster
