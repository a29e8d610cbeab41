"""``slotgraph serve PATH...``: host agents over HTTP (the API, SSE and the web playground) with uvicorn.

One process by default; ``--workers N`` (N > 1) starts N uvicorn worker processes that each build the app
from :data:`slotgraph.server.factory.APP_FACTORY`, with the settings handed over in the environment — they
share sessions only through a durable store, so ``memory://`` is refused with several workers. ``--reload``
builds the app the same way in a child process that uvicorn restarts whenever a file of the agents'
directories changes (YAML, Python, Markdown, JSON; watched with ``watchfiles``), so an agent can be edited
while the server runs; while an edit breaks an agent every request answers ``503 agent_config_broken``
with the problem, until the next save.
The API key comes from ``--api-key`` or ``SLOTGRAPH_API_KEY``. Needs the ``server`` extra (FastAPI,
uvicorn, watchfiles).

Exit codes: 0 after a clean shutdown, 1 an agent cannot be loaded, 2 usage error (options, store, extra).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import fail, stderr_console
from slotgraph.redaction import redact_url
from slotgraph.stores import DEFAULT_STORE_URL

__all__ = ["Runner", "serve", "serve_command"]

Runner = Callable[..., Any]
"""``uvicorn.run`` or a stand-in with its signature (tests)."""

_SERVER_HINT = "install the server extra: pip install 'slotgraph[server]'"
RELOAD_PATTERNS = ("*.yaml", "*.yml", "*.py", "*.json", "*.md")
"""The files whose change restarts a ``--reload`` server (in the agents' directories)."""


def watched_dirs(paths: Sequence[Path]) -> list[str]:
    """The directories ``--reload`` watches: each agent directory (or the folder of an agent file)."""
    return sorted({str((p if p.is_dir() else p.parent).resolve()) for p in paths})


def _hand_over(config: Any, key: str | None) -> None:
    """Put a :class:`~slotgraph.server.WorkerConfig` where the app factories read it (the environment)."""
    from slotgraph.server.settings import API_KEY_ENV

    os.environ.update(config.to_env())
    if key:
        os.environ[API_KEY_ENV] = key


def serve(
    paths: Sequence[Path],
    *,
    store: str = DEFAULT_STORE_URL,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    api_key: str | None = None,
    model: str | None = None,
    max_body_bytes: int | None = None,
    reload: bool = False,
    run: Runner | None = None,
    queue: str | None = None,
    base_url: str | None = None,
    allowed_hosts: Sequence[str] | None = None,
) -> int:
    """Load the agents and run the server until it is stopped; returns the exit code.

    ``allowed_hosts`` (the ``Host`` names answered) defaults by ``host``: on loopback only the loopback
    names, elsewhere any (:func:`slotgraph.server.settings.default_allowed_hosts`)."""
    try:
        import uvicorn

        from slotgraph.server import (
            ServerConfigError,
            ServerSettings,
            WorkerConfig,
            create_app,
            load_hosted_agents,
            open_session_store,
        )
        from slotgraph.server.factory import APP_FACTORY, EDITING_APP_FACTORY
        from slotgraph.server.http_protocol import HTTP_PROTOCOL
        from slotgraph.server.settings import (
            API_KEY_ENV,
            DEFAULT_MAX_BODY_BYTES,
            configure_logging,
            default_allowed_hosts,
        )
        from slotgraph.server.store_factory import is_memory_url
    except ImportError:
        return fail(
            stderr_console(),
            "the server needs FastAPI and uvicorn, which are not installed",
            ExitCode.USAGE,
            _SERVER_HINT,
        )
    runner: Runner = run if run is not None else uvicorn.run
    if run is None:  # the real server: its own log (plain lines, redacted), before any library sets one
        configure_logging()
    if workers < 1:
        return fail(stderr_console(), f"--workers must be at least 1, got {workers}", ExitCode.USAGE)
    if reload and workers > 1:
        return fail(
            stderr_console(),
            "--reload runs one worker that restarts on every change; it cannot be combined with --workers",
            ExitCode.USAGE,
            "drop --workers while editing, or drop --reload in production",
        )
    if reload and run is None:
        try:
            import watchfiles  # noqa: F401 - uvicorn's reloader watches YAML only through it
        except ImportError:
            return fail(
                stderr_console(),
                "--reload needs the watchfiles package, which is not installed",
                ExitCode.USAGE,
                _SERVER_HINT,
            )
    if workers > 1 and is_memory_url(store):
        return fail(
            stderr_console(),
            f"--workers {workers} cannot share the in-memory store: each process would have its own sessions",
            ExitCode.USAGE,
            "pass --store sqlite:///sessions.db (or a redis:// / postgresql:// URL), or use --workers 1",
        )
    key = api_key if api_key is not None else (os.environ.get(API_KEY_ENV) or None)
    limit = max_body_bytes if max_body_bytes is not None else DEFAULT_MAX_BODY_BYTES
    hosts = tuple(allowed_hosts) if allowed_hosts else default_allowed_hosts(host)
    try:
        settings = ServerSettings(api_key=key, max_body_bytes=limit, allowed_hosts=hosts)
    except ServerConfigError as err:
        return fail(stderr_console(), err.message, ExitCode.USAGE, err.fix)
    from slotgraph.cli.workflow_paths import is_workflow_file
    from slotgraph.server.runs import run_service

    workflow_paths = [p for p in paths if is_workflow_file(p)]  # workflow files host /v1/runs
    paths = [p for p in paths if p not in workflow_paths]
    try:
        # validated here, before any worker starts; a server of workflows only hosts no agent
        agents = load_hosted_agents(paths, model=model) if paths or not workflow_paths else []
    except ServerConfigError as err:
        return fail(stderr_console(), err.message, ExitCode.INVALID_CONFIG, err.fix)
    try:
        session_store = open_session_store(store)  # checked here too, before anything is announced
    except ServerConfigError as err:
        return fail(stderr_console(), err.message, ExitCode.USAGE, err.fix)
    try:
        runs = run_service(workflow_paths, store_url=store, model=model, base_url=base_url, queue_url=queue)
    except ServerConfigError as err:
        return fail(stderr_console(), err.message, ExitCode.INVALID_CONFIG, err.fix)
    names = ", ".join([*(a.name for a in agents), *runs.workflows])
    stderr_console().print(f"Serving {escape(names)} on http://{escape(host)}:{port}")
    shown = redact_url(store)
    stderr_console().print(f"  store {escape(shown)}, {workers} worker(s), API key {'on' if key else 'off'}")
    answered = "any" if "*" in hosts else ", ".join(hosts)
    stderr_console().print(f"  host names answered: {escape(answered)} (--allowed-hosts)")
    config = WorkerConfig(
        agent_paths=tuple(str(p) for p in paths),
        store_url=store,
        model=model,
        max_body_bytes=limit,
        workflow_paths=tuple(str(p) for p in workflow_paths),
        queue_url=queue,
        base_url=base_url,
        allowed_hosts=hosts,
    )
    if reload:
        dirs = watched_dirs([*paths, *workflow_paths])
        stderr_console().print(f"  reloading on changes in {escape(', '.join(dirs))}")
        _hand_over(config, key)
        runner(
            EDITING_APP_FACTORY,
            factory=True,
            host=host,
            port=port,
            reload=True,
            reload_dirs=dirs,
            reload_includes=list(RELOAD_PATTERNS),
            log_level="info",
            http=HTTP_PROTOCOL,
        )
        return int(ExitCode.OK)
    if workers == 1:
        app = create_app(agents, store=session_store, settings=settings, runs=runs)
        runner(app, host=host, port=port, log_level="info", http=HTTP_PROTOCOL)
        return int(ExitCode.OK)
    _hand_over(config, key)
    # HTTP_PROTOCOL turns Nagle's algorithm off on the workers' connections (uvicorn leaves it on: ~40 ms)
    runner(
        APP_FACTORY, factory=True, host=host, port=port, workers=workers, log_level="info", http=HTTP_PROTOCOL
    )
    return int(ExitCode.OK)


def serve_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Agent directories (or agent.yaml files) and workflow files to host.", metavar="PATH..."
        ),
    ],
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help=(
                "Session store URL: sqlite:// (default: .slotgraph/sessions.db), sqlite:///FILE, "
                "redis://..., postgresql://..., memory://"
            ),
        ),
    ] = DEFAULT_STORE_URL,
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", help="Worker processes (>1 needs a shared store: SQLite, Redis, PostgreSQL)."
        ),
    ] = 1,
    api_key: Annotated[
        str | None,
        typer.Option(
            "--api-key", help="Require this key on /v1 (Bearer or X-API-Key); default $SLOTGRAPH_API_KEY."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Model spec for every agent (default: each agent's own model)."),
    ] = None,
    max_body_bytes: Annotated[
        int | None, typer.Option("--max-body-bytes", help="Largest request body accepted (default 65536).")
    ] = None,
    queue: Annotated[
        str | None,
        typer.Option("--queue", help="Run workflows on `slotgraph worker` processes at this Redis URL."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Base URL of workflow HTTP stages with a relative url.")
    ] = None,
    reload: Annotated[
        bool,
        typer.Option(
            "--reload", help="Restart when a file in the agents' directories changes (for editing)."
        ),
    ] = False,
    allowed_hosts: Annotated[
        str | None,
        typer.Option(
            "--allowed-hosts",
            help="Host names answered, comma-separated ('*.example.com' for subdomains, '*' for any); others "
            "get 400. Default: the loopback names on 127.0.0.1, any name on another --host.",
        ),
    ] = None,
) -> None:
    """Serve agents over HTTP: the /v1 API, server-sent events and the web playground at /."""
    code = serve(
        paths,
        store=store,
        host=host,
        port=port,
        workers=workers,
        api_key=api_key,
        model=model,
        max_body_bytes=max_body_bytes,
        queue=queue,
        base_url=base_url,
        reload=reload,
        allowed_hosts=[h.strip() for h in allowed_hosts.split(",")] if allowed_hosts is not None else None,
    )
    if code:
        raise typer.Exit(code)
