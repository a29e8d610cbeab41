"""Benchmark the HTTP service: turns per second, latency and server CPU against a durable floor.

Run from the repository root: ``.venv/bin/python benchmarks/service.py [--sessions 80] [--turns 4]``.

1. **Throughput against the durable floor** — a real server (``uvicorn`` in a subprocess,
   ``slotgraph.server.factory:app_from_env``, what ``slotgraph serve`` runs) hosts Bella Notte with the
   **offline** model (deterministic, no network, no weights) on SQLite or Redis. ``--sessions`` sessions
   each play ``--turns`` user turns (``POST /v1/sessions/{id}/messages``; the same flow in varied wordings,
   :func:`session_script`), ``--concurrency`` requests in flight. Beside it, with the same uvicorn settings,
   the same workers and the same client, runs the **durable floor** (:mod:`floor_apps`): an endpoint that
   reads a session's ~3.5 KB JSON record, changes it and writes it back with the same durability (SQLite:
   WAL, ``synchronous=FULL``; Redis: the same two round trips, the per-session lock included) and does
   nothing else. Any durable chat service does at least that per turn, so it is the fair baseline: the
   ratios say what Slotgraph's turn (the runtime, the offline model, the session record) costs on top of
   keeping a session at all. The two are measured **interleaved**: ``--rounds`` batches of sessions, each
   played on Slotgraph and then, the same number of sessions and turns, on the floor, so both see the same
   load on a shared machine (a first batch of ``--concurrency`` sessions warms both up and is not counted).
   Reported: turns/s, p50 and p99 latency, and the server's CPU time per turn (its processes' user +
   system time from ``/proc``, workers included: what a turn costs the server itself, apart from the client
   on the same machine). Both servers run uvicorn with the protocol ``slotgraph serve`` uses (Nagle's
   algorithm off: :mod:`slotgraph.server.http_protocol`), and the load comes from :class:`LeanClient`, which
   costs ~0.15 ms of CPU per request (a client costing more than the server it measures would measure
   itself). Goals (issue 43), on SQLite and on Redis, 1 and 2 workers: turns/s at least 0.6 of the floor's,
   server CPU per turn at most 1.5 times the floor's. Redis runs only if ``redis-server`` is on PATH (a
   throwaway one on a loopback port, no persistence, for both); a skipped row says why.
2. **Memory per idle session** — 1,000 sessions are created and play one turn each, in process through the
   :class:`~slotgraph.server.SessionService`: the stored payload (JSON bytes of each record), the SQLite
   file's growth, Redis's ``used_memory`` growth, and the process's RSS growth for the in-memory store.
3. **Where a turn's CPU goes** — the same app called in process through ASGI (no sockets, no uvicorn, no
   client: a few microseconds of driver per request), one turn at a time, ``--parts-rounds`` batches of
   ``--parts-sessions`` sessions, memory, SQLite, Redis and PostgreSQL batches alternated (PostgreSQL when
   its server binaries and ``psycopg`` are installed: a throwaway server on a loopback port, started as the
   store tests start theirs, ``tests/stores/local_servers.py``; it has no goal of its own): CPU per turn of
   the whole turn, of the offline model inside it (its ``generate`` timed), of ``SessionService.turn``
   inside the request (the runtime, the model and the store), what is left (FastAPI, the middleware, the
   reply's JSON view), and the durable floor's turn called the same way on SQLite and Redis. What the
   throughput table's server CPU adds on top is uvicorn's HTTP and the sockets, which the floor pays too.

Everything listens on 127.0.0.1; every phase has a fixed number of requests, so the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import importlib.util
import itertools
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))  # floor_apps, as uvicorn's --app-dir finds it

import httpx  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from floor_apps import ENV as FLOOR_ENV  # noqa: E402
from floor_apps import redis_app, sqlite_app  # noqa: E402

from slotgraph.models import Model, ModelRequest, ModelResponse  # noqa: E402
from slotgraph.server import SessionService, create_app, load_hosted_agents, open_session_store  # noqa: E402
from slotgraph.server.errors import ServerConfigError  # noqa: E402
from slotgraph.server.http_protocol import HTTP_PROTOCOL  # noqa: E402
from slotgraph.server.settings import WorkerConfig  # noqa: E402

AGENT = ROOT / "examples" / "bella_notte"
TURNS_GOAL = 0.6
"""Slotgraph's turns/s at least this fraction of the floor's."""
CPU_GOAL = 1.5
"""Slotgraph's server CPU per turn at most this multiple of the floor's."""
SLOTGRAPH = "/v1/sessions"
FLOOR = "/sessions"
SCRIPT = ("Hi", "A table for 4 people", "yes", "Mario Rossi")
"""The first session's turns; every session plays the same flow in other words (:func:`session_script`)."""
_GREETINGS = ("Hi", "Hello", "Good evening", "Hi there", "Hey")
_PARTIES = (
    "A table for {n} people",
    "We are {n}",
    "Table for {n}, please",
    "A table for {n}",
    "There will be {n} of us",
)
_SIZES = ("4", "two", "3", "four", "2", "three")
_YESES = ("yes", "Yes, that's right", "correct", "yep", "that's right")
_NAMES = tuple(
    f"{first} {last}"
    for first in ("Mario", "Ada", "Grace", "Alan", "Emmy", "Wei", "Priya", "Olu")
    for last in ("Rossi", "Lovelace", "Hopper", "Turing", "Noether")
)


def session_script(n: int) -> tuple[str, ...]:
    """The ``n``-th session's four turns: :data:`SCRIPT`'s flow (greeting, party size, confirmation, a name)
    in one of 600 wordings, so sessions do not all send the same texts — a parser that keeps its answers
    per text (the offline model does, for dates and times) would otherwise be measured on repeats a real
    service does not see. Short answers ("yes", "Hi") repeat across sessions, as they do with real users."""
    party = _PARTIES[n // len(_GREETINGS) % len(_PARTIES)].format(n=_SIZES[n % len(_SIZES)])
    return (
        _GREETINGS[n % len(_GREETINGS)],
        party,
        _YESES[n // 3 % len(_YESES)],
        _NAMES[n % len(_NAMES)],
    )


# --- servers --------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(url: str, proc: subprocess.Popen[bytes], deadline_s: float = 60.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{url} did not come up")


def _tree_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and its live descendants (uvicorn's workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    seconds: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(entry)] = int(fields[1])
        seconds[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    tree, grown = {pid}, True
    while grown:
        found = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= found
        grown = bool(found)
    return sum(seconds.get(member, 0.0) for member in tree)


@contextlib.contextmanager
def _uvicorn(target: str, workers: int, env: dict[str, str], health: str) -> Iterator[tuple[str, int]]:
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        target,
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        # what `slotgraph serve` runs: uvicorn's protocol with Nagle's algorithm off on every connection
        # (with --workers, uvicorn leaves it on: each response then waits ~40 ms for the client's delayed ACK)
        "--http",
        HTTP_PROTOCOL,
        "--app-dir",
        str(ROOT / "benchmarks"),
    ]
    proc = subprocess.Popen(cmd, env={**os.environ, **env}, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base + health, proc)
        yield base, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def _redis() -> Iterator[str | None]:
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = _free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@contextlib.contextmanager
def _postgres(tmp: str) -> Iterator[str | None]:
    """A throwaway PostgreSQL server for part 3 (its admin URL), or None without binaries, driver or the
    checkout's ``tests/stores/local_servers.py``."""
    launcher = ROOT / "tests" / "stores" / "local_servers.py"
    if importlib.util.find_spec("psycopg") is None or not launcher.is_file():
        yield None
        return
    spec = importlib.util.spec_from_file_location("slotgraph_bench_local_servers", launcher)
    assert spec is not None and spec.loader is not None
    servers = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = servers  # its dataclass looks its module up there
    spec.loader.exec_module(servers)
    try:
        with servers.running_postgres(Path(tmp)) as url:
            yield url
    except (LookupError, RuntimeError):  # no binaries, or none could start
        yield None


# --- load -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    requests: int
    seconds: float
    latencies_ms: tuple[float, ...]
    server_cpu_seconds: float = 0.0
    """CPU time the server processes spent on these requests."""

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class LeanClient:
    """The load generator: HTTP/1.1 over ``concurrency`` keep-alive loopback connections, each request one
    write of pre-built bytes and a read of the status line, the headers and ``Content-Length`` bytes.

    A client that costs more per request than the server it measures measures itself, sharing the machine's
    cores with it: httpx spends ~2 ms of CPU per request on this machine, this client ~0.15 ms."""

    def __init__(self, base: str, size: int) -> None:
        host, _, port = base.removeprefix("http://").partition(":")
        self._host, self._port, self._size = host, int(port), size
        self._free: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._opened = 0
        self._returned = asyncio.Condition()

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        async with self._returned:
            while not self._free and self._opened >= self._size:
                await self._returned.wait()
            if self._free:
                return self._free.pop()
            self._opened += 1
        return await asyncio.open_connection(self._host, self._port)

    async def _give_back(self, connection: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
        async with self._returned:
            self._free.append(connection)
            self._returned.notify()

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nhost: {self._host}:{self._port}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(data)}\r\n\r\n"
        ).encode()
        reader, writer = connection = await self._connection()
        writer.write(head + data)
        status = await reader.readline()
        if not status:
            raise RuntimeError(f"{path}: the server closed the connection")
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        payload = await reader.readexactly(length)
        await self._give_back(connection)
        return int(status.split()[1]), payload

    async def close(self) -> None:
        for _reader, writer in self._free:
            writer.close()
        self._free.clear()


async def _timed(client: LeanClient, url: str, body: dict[str, Any], out: list[float]) -> None:
    start = time.perf_counter()
    status, payload = await client.post(url, body)
    out.append((time.perf_counter() - start) * 1000)
    if status != 200:
        raise RuntimeError(f"{url}: {status} {payload[:200]!r}")


async def _create(base: str, sessions: str, count: int) -> list[str]:
    """``count`` new sessions (``POST {sessions}``; Slotgraph's for Bella Notte), their ids."""
    body = {"agent": "bella_notte"} if sessions == SLOTGRAPH else {}
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        ids = []
        for _ in range(count):
            created = await client.post(sessions, json=body)
            created.raise_for_status()
            ids.append(created.json()["session_id"])
        return ids


async def _turns(
    base: str, sessions: str, ids: list[tuple[int, str]], turns: int, concurrency: int
) -> Measure:
    """Each numbered session plays its first ``turns`` turns of :func:`session_script` in order, the
    sessions concurrently, ``concurrency`` requests in flight."""
    client = LeanClient(base, concurrency)
    try:
        latencies: list[float] = []
        gate = asyncio.Semaphore(concurrency)

        async def play(n: int, session_id: str) -> None:
            for text in session_script(n)[:turns]:
                async with gate:
                    await _timed(client, f"{sessions}/{session_id}/messages", {"text": text}, latencies)

        start = time.perf_counter()
        await asyncio.gather(*(play(n, session_id) for n, session_id in ids))
        return Measure(len(latencies), time.perf_counter() - start, tuple(latencies))
    finally:
        await client.close()


def _combined(measures: list[Measure]) -> Measure:
    return Measure(
        sum(m.requests for m in measures),
        sum(m.seconds for m in measures),
        tuple(latency for m in measures for latency in m.latencies_ms),
        sum(m.server_cpu_seconds for m in measures),
    )


def _with_cpu(pid: int, measure: Coroutine[Any, Any, Measure]) -> Measure:
    """Run ``measure`` and note the CPU time the server process ``pid`` (and its workers) spent meanwhile."""
    before = _tree_cpu_seconds(pid)
    measured = asyncio.run(measure)
    return dataclasses.replace(measured, server_cpu_seconds=_tree_cpu_seconds(pid) - before)


@dataclass(frozen=True)
class Row:
    """One configuration's throughput: Slotgraph's turns and the floor's, over the same rounds."""

    store: str
    workers: int
    turns: Measure
    floor: Measure

    @property
    def speed(self) -> float:
        """Slotgraph's turns/s over the floor's."""
        return self.turns.per_second / self.floor.per_second

    @property
    def cpu(self) -> float:
        """Slotgraph's server CPU per turn over the floor's (NaN when too short a run measured none: /proc
        counts CPU time in clock ticks of 10 ms)."""
        floor = self.floor.server_cpu_seconds / self.floor.requests
        return (self.turns.server_cpu_seconds / self.turns.requests) / floor if floor else math.nan

    def markdown(self) -> str:
        t, f = self.turns, self.floor
        return (
            f"| {self.store} | {self.workers} | {t.requests} | {t.per_second:.0f} | {t.pct(0.5):.1f} | "
            f"{t.pct(0.99):.1f} | {f.per_second:.0f} | {f.pct(0.5):.1f} | {f.pct(0.99):.1f} | "
            f"{self.speed:.2f}× | {t.server_cpu_seconds / t.requests * 1000:.2f} | "
            f"{f.server_cpu_seconds / f.requests * 1000:.2f} | {self.cpu:.2f}× |"
        )

    def goals(self) -> list[str]:
        where = f"{self.store}, {self.workers} worker{'s' if self.workers > 1 else ''}"
        return [
            f"GOAL\tservice: turns/s, Slotgraph / durable floor, {where}\t{self.speed:.2f}\t>=\t"
            f"{TURNS_GOAL:g}\t×",
            f"GOAL\tservice: server CPU per turn, Slotgraph / durable floor, {where}\t{self.cpu:.2f}\t<=\t"
            f"{CPU_GOAL:g}\t×",
        ]


def _throughput_row(
    store: str, store_url: str, floor_url: str, workers: int, args: argparse.Namespace
) -> Row:
    """Slotgraph on ``store_url`` and the floor on ``floor_url``, measured in alternating rounds."""
    env = WorkerConfig(agent_paths=(str(AGENT),), store_url=store_url, model="offline").to_env()
    with (
        _uvicorn("slotgraph.server.factory:app_from_env", workers, env, "/readyz") as (base, pid),
        _uvicorn("floor_apps:app_from_env", workers, {FLOOR_ENV: floor_url}, "/healthz") as (
            floor,
            floor_pid,
        ),
    ):
        # a first batch of sessions warms both servers up (lazy imports, first connections), not counted
        warm = args.concurrency
        ids = list(enumerate(asyncio.run(_create(base, SLOTGRAPH, warm + args.sessions))))
        floor_ids = list(enumerate(asyncio.run(_create(floor, FLOOR, warm + args.sessions))))
        asyncio.run(_turns(base, SLOTGRAPH, ids[:warm], args.turns, args.concurrency))
        asyncio.run(_turns(floor, FLOOR, floor_ids[:warm], args.turns, args.concurrency))
        ids, floor_ids = ids[warm:], floor_ids[warm:]
        rounds = max(1, min(args.rounds, len(ids)))
        turn_runs: list[Measure] = []
        floor_runs: list[Measure] = []
        for r in range(rounds):
            turn_runs.append(
                _with_cpu(pid, _turns(base, SLOTGRAPH, ids[r::rounds], args.turns, args.concurrency))
            )
            floor_runs.append(
                _with_cpu(floor_pid, _turns(floor, FLOOR, floor_ids[r::rounds], args.turns, args.concurrency))
            )
    return Row(store, workers, _combined(turn_runs), _combined(floor_runs))


# --- where a turn's CPU goes ----------------------------------------------------------------------------


class _TimedModel:
    """Wraps the hosted model: the CPU time (every thread) spent inside ``generate``."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.cpu_seconds = 0.0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        start = time.process_time()
        try:
            return await self.inner.generate(request)
        finally:
            self.cpu_seconds += time.process_time() - start


class _TimedTurns:
    """Wraps ``SessionService.turn`` of one app: the CPU time spent inside it."""

    def __init__(self, service: SessionService) -> None:
        self._turn = service.turn
        self.cpu_seconds = 0.0
        service.turn = self  # type: ignore[method-assign]  # the benchmark times the service's own method

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return await self._turn(*args, **kwargs)
        finally:
            self.cpu_seconds += time.process_time() - start


async def asgi_post(app: Any, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
    """``POST path`` with a JSON body, straight into the ASGI app (no sockets): status and body."""
    data = json.dumps(body).encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    pending = [{"type": "http.request", "body": data, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return pending.pop() if pending else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return int(sent[0]["status"]), payload


async def _ok(app: Any, path: str, body: dict[str, Any]) -> bytes:
    status, payload = await asgi_post(app, path, body)
    if status not in (200, 201):
        raise RuntimeError(f"{path}: {status} {payload[:300]!r}")
    return payload


@dataclass
class _Parts:
    """One store's app in process and the CPU per turn of its batches."""

    app: FastAPI
    model: _TimedModel
    turns: _TimedTurns
    whole: list[float] = dataclasses.field(default_factory=list)
    model_share: list[float] = dataclasses.field(default_factory=list)
    turn_share: list[float] = dataclasses.field(default_factory=list)


def _parts_app(store_url: str) -> _Parts:
    hosted = [
        dataclasses.replace(agent, model=_TimedModel(agent.model))
        for agent in load_hosted_agents([AGENT], model="offline")
    ]
    app = create_app(hosted, store=open_session_store(store_url), seed=0)
    model = hosted[0].model
    assert isinstance(model, _TimedModel)
    return _Parts(app, model, _TimedTurns(app.state.service))


_PARTS_SESSIONS = itertools.count()
"""Part 3's sessions, numbered across batches and stores (each plays :func:`session_script` of its number)."""


async def _parts_batch(parts: _Parts, sessions: int, keep: bool) -> None:
    ids = [
        json.loads(await _ok(parts.app, "/v1/sessions", {"agent": "bella_notte"}))["session_id"]
        for _ in range(sessions)
    ]
    parts.model.cpu_seconds = parts.turns.cpu_seconds = 0.0
    start = time.process_time()
    for session_id in ids:
        for text in session_script(next(_PARTS_SESSIONS)):
            await _ok(parts.app, f"/v1/sessions/{session_id}/messages", {"text": text})
    spent = time.process_time() - start
    if keep:
        count = sessions * len(SCRIPT)
        parts.whole.append(spent / count)
        parts.model_share.append(parts.model.cpu_seconds / count)
        parts.turn_share.append(parts.turns.cpu_seconds / count)


async def _floor_batch(app: FastAPI, sessions: int) -> float:
    """The floor's CPU per turn over ``sessions`` sessions of :func:`session_script`'s turns."""
    ids = [json.loads(await _ok(app, FLOOR, {}))["session_id"] for _ in range(sessions)]
    start = time.process_time()
    for session_id in ids:
        for text in session_script(next(_PARTS_SESSIONS)):
            await _ok(app, f"{FLOOR}/{session_id}/messages", {"text": text})
    return (time.process_time() - start) / (sessions * len(SCRIPT))


async def _where_the_cpu_goes(
    stores: dict[str, str], floors: dict[str, FastAPI], rounds: int, sessions: int
) -> None:
    """Print the table of part 3 (see the module docstring)."""
    apps = {name: _parts_app(url) for name, url in stores.items()}
    floor_cpu: dict[str, list[float]] = {name: [] for name in floors}
    async with contextlib.AsyncExitStack() as stack:
        for app in [*(parts.app for parts in apps.values()), *floors.values()]:
            await stack.enter_async_context(app.router.lifespan_context(app))
        for r in range(rounds + 1):  # the first round warms every path up and is not kept
            for parts in apps.values():
                await _parts_batch(parts, sessions, keep=r > 0)
            for name, floor in floors.items():
                cpu = await _floor_batch(floor, sessions)
                if r > 0:
                    floor_cpu[name].append(cpu)

    def us(values: list[float]) -> float:
        return statistics.median(values) * 1e6

    memory = apps["memory"]
    rest = [w - t for w, t in zip(memory.whole, memory.turn_share, strict=True)]
    runtime = [t - m for t, m in zip(memory.turn_share, memory.model_share, strict=True)]
    print(
        f"\nWhere a turn's CPU goes, in process (ASGI called directly, one turn at a time; CPU µs per turn, "
        f"median of {rounds} batches of {sessions} sessions x {len(SCRIPT)} turns)"
    )
    print("| part | µs per turn |")
    print("|---|---|")
    print(f"| a turn through the app, memory store | {us(memory.whole):.0f} |")
    print(f"| - `SessionService.turn` inside the request | {us(memory.turn_share):.0f} |")
    print(f"|   - the offline model | {us(memory.model_share):.0f} |")
    print(f"|   - the runtime and the store (the rest of the turn) | {us(runtime):.0f} |")
    print(f"| - FastAPI, the middleware and the reply's JSON view (the rest) | {us(rest):.0f} |")
    for name, parts in apps.items():
        if name == "memory":
            continue
        more = [w - m for w, m in zip(parts.whole, memory.whole, strict=True)]
        label = f"a turn through the app, {name} store (more than memory)"
        print(f"| {label} | {us(parts.whole):.0f} ({us(more):+.0f}) |")
        if name in floor_cpu:
            print(f"| the durable floor's turn on {name}, called the same way | {us(floor_cpu[name]):.0f} |")


# --- memory ---------------------------------------------------------------------------------------------


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _redis_used_memory(url: str) -> int:
    import redis

    client = redis.Redis.from_url(url)
    try:
        return int(client.info("memory")["used_memory"])
    finally:
        client.close()


async def _idle_sessions(store_url: str, count: int) -> tuple[float, float | None]:
    """(mean stored payload bytes per session, growth of the store's own measure per session or None)."""
    store = open_session_store(store_url)
    service = SessionService(load_hosted_agents([AGENT], model="offline"), store, seed=0)
    sqlite_path = store_url.removeprefix("sqlite:///") if store_url.startswith("sqlite:///") else None
    before = _redis_used_memory(store_url) if store_url.startswith("redis") else _rss_bytes()
    ids = []
    for _ in range(count):
        session_id = await service.create("bella_notte")
        await service.turn(session_id, "Hi")
        ids.append(session_id)
    payload = []
    for session_id in ids[:100]:
        found = await store.load(session_id)
        assert found is not None
        payload.append(len(json.dumps(found[0], default=lambda o: getattr(o, "__dict__", str(o)))))
    growth: float | None
    if sqlite_path is not None:
        close = getattr(store, "close", None)
        if close is not None:
            await close()
        growth = Path(sqlite_path).stat().st_size / count
    elif store_url.startswith("redis"):
        growth = (_redis_used_memory(store_url) - before) / count
    else:
        growth = (_rss_bytes() - before) / count
    return statistics.mean(payload), growth


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=80)
    parser.add_argument("--turns", type=int, default=4, choices=range(1, len(SCRIPT) + 1))
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--idle", type=int, default=1000, help="sessions for the memory measurement")
    parser.add_argument("--rounds", type=int, default=8, help="alternating rounds of Slotgraph and the floor")
    parser.add_argument(
        "--parts-rounds", type=int, default=8, help="batches per store in part 3 (0: leave part 3 out)"
    )
    parser.add_argument("--parts-sessions", type=int, default=20, help="sessions per batch in part 3")
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated parts to run: throughput rows (sqlite:1, redis:2, ...), 'idle' (part 2), "
        "'parts' (part 3); default: everything",
    )
    args = parser.parse_args(argv)
    only = {item.strip() for item in args.only.split(",") if item.strip()}
    known = {"sqlite:1", "sqlite:2", "redis:1", "redis:2", "idle", "parts"}
    if only - known:
        unknown, choices = ", ".join(sorted(only - known)), ", ".join(sorted(known))
        parser.error(f"--only: unknown part(s) {unknown}; choose from {choices}")
    if importlib.util.find_spec("slotgraph.stores") is None:
        parser.error("the service benchmark needs Slotgraph's durable stores (pip install -e '.[dev]')")

    with tempfile.TemporaryDirectory() as tmp, _redis() as redis_url:
        # (store, Slotgraph's store URL, the floor's, workers)
        configs: list[tuple[str, str, str, int]] = []
        for workers in (1, 2):
            configs.append(
                (
                    "sqlite",
                    f"sqlite:///{tmp}/bench-{workers}.db",
                    f"sqlite:///{tmp}/floor-{workers}.db",
                    workers,
                )
            )
            if redis_url is not None:
                configs.append(
                    (
                        "redis",
                        redis_url.replace("/0", f"/{workers}"),
                        redis_url.replace("/0", f"/{workers + 2}"),
                        workers,
                    )
                )
        goals: list[str] = []
        configs = [c for c in configs if not only or f"{c[0]}:{c[3]}" in only]
        if configs:
            print(
                f"Throughput: Bella Notte, offline model, {args.sessions} sessions x {args.turns} turns, "
                f"{args.concurrency} in flight; floor = an endpoint that reads, changes and writes back a "
                "session record with the same durability, interleaved"
            )
            print(
                "| store | workers | turns | turns/s | p50 ms | p99 ms | floor turns/s | floor p50 ms "
                "| floor p99 ms | turns/s ÷ floor | server CPU ms/turn | floor CPU ms/turn | CPU ÷ floor |"
            )
            print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, url, floor_url, workers in configs:
            row = _throughput_row(name, url, floor_url, workers, args)
            print(row.markdown(), flush=True)
            goals += row.goals()
        if redis_url is None and configs:
            print("| redis | - | skipped: no redis-server on PATH |")
        if not only or "idle" in only:
            _memory_per_idle_session(tmp, redis_url, args.idle)
        if args.parts_rounds > 0 and (not only or "parts" in only):
            stores = {"memory": "memory://", "sqlite": f"sqlite:///{tmp}/parts.db"}
            floors = {"sqlite": sqlite_app(f"{tmp}/parts-floor.db")}
            if redis_url is not None:
                stores["redis"] = redis_url.replace("/0", "/10")
                floors["redis"] = redis_app(redis_url.replace("/0", "/11"))
            with _postgres(tmp) as postgres_url:
                if postgres_url is not None:
                    stores["postgresql"] = postgres_url
                asyncio.run(_where_the_cpu_goes(stores, floors, args.parts_rounds, args.parts_sessions))
                if postgres_url is None:
                    print("| postgresql | skipped: no PostgreSQL server binaries or psycopg |")
    for line in goals:
        print(line)
    return 0


def _memory_per_idle_session(tmp: str, redis_url: str | None, idle: int) -> None:
    """Part 2's table (see the module docstring)."""
    print(f"\nMemory per idle session ({idle} sessions, one turn each)")
    print("| store | stored payload bytes/session | store growth bytes/session |")
    print("|---|---|---|")
    memory_configs = [
        ("memory (RSS growth)", "memory://"),
        ("sqlite (file size)", f"sqlite:///{tmp}/idle.db"),
    ]
    if redis_url is not None:
        memory_configs.append(("redis (used_memory growth)", redis_url.replace("/0", "/9")))
    for name, url in memory_configs:
        try:
            payload, growth = asyncio.run(_idle_sessions(url, idle))
        except ServerConfigError as err:
            print(f"| {name} | skipped: {err.message} | |")
            continue
        shown = f"{growth:.0f}" if growth is not None else "-"
        print(f"| {name} | {payload:.0f} | {shown} |")


if __name__ == "__main__":
    raise SystemExit(main())
