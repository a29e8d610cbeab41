"""The examples and exit codes under every command's ``--help`` (rich markup; the root help's are plain).

Kept in one place so ``slotgraph COMMAND --help`` reads the same way everywhere; a test checks that every
registered command has an entry here with at least one example and its exit codes.
"""

from __future__ import annotations

__all__ = ["EPILOGS", "MAIN_EPILOG"]


def _epilog(examples: list[tuple[str, str]], exit_codes: str) -> str:
    # Typer's rich help joins single line breaks and turns a blank line into a line break.
    lines = [f"  [dim]# {comment}[/dim]\n\n  {command}" for command, comment in examples]
    return "[bold]Examples[/bold]\n\n" + "\n\n".join(lines) + f"\n\n[bold]Exit codes[/bold]: {exit_codes}"


def _plain_epilog(examples: list[tuple[str, str]], exit_codes: str) -> str:
    # The root help is drawn without rich (start-up time): the same content as plain aligned lines.
    width = max(len(command) for command, _ in examples)
    lines = [f"  {command:<{width}}  # {comment}" for command, comment in examples]
    return "Examples:\n" + "\n".join(lines) + f"\n\nExit codes: {exit_codes}"


MAIN_EPILOG = _plain_epilog(
    [
        ("slotgraph init my_agent", "scaffold an agent that passes validate and test"),
        ("slotgraph validate my_agent", "every problem with its location and a fix"),
        ("slotgraph chat my_agent --show-state", "talk to it; see what each turn did"),
        ("slotgraph test my_agent", "run its scenarios"),
        ("slotgraph serve my_agent", "HTTP API and web playground on http://127.0.0.1:8000"),
    ],
    "0 ok, 1 invalid config, 2 usage error (bad path or option); test also exits 1 when a case fails.",
)
"""The root help's examples, plain: ``slotgraph --help`` is drawn without rich (~100 ms to import)."""

EPILOGS: dict[str, str] = {
    "init": _epilog(
        [
            ("slotgraph init my_agent", "the 'basic' template: two slots, a readback, one task"),
            ("slotgraph init minimal callbacks", "the smallest agent: one slot, one task"),
            ("slotgraph init --list", "the templates"),
        ],
        "0 created, 2 usage error (unknown template, DIR not empty).",
    ),
    "validate": _epilog(
        [
            ("slotgraph validate examples/bella_notte", "an agent directory (tools checked too)"),
            ("slotgraph validate dag.yaml other/agent.yaml", "several paths at once"),
            ("slotgraph validate my_agent --json", "one machine-readable document"),
        ],
        "0 valid (warnings allowed), 1 a config is invalid, 2 a path is missing or has no agent.yaml.",
    ),
    "chat": _epilog(
        [
            ("slotgraph chat examples/bella_notte", "type turns; ↑/↓ history, /help, /quit"),
            ("slotgraph chat my_agent --show-state", "tool calls, refusals, slots asked and left"),
            ("slotgraph chat my_agent --today 2026-07-10", "pin the clock the tools see"),
            ("printf 'Hi\\nA table for 4\\n' | slotgraph chat my_agent", "one user turn per line"),
        ],
        "0 ok, 1 invalid agent or a failed turn, 2 usage error (bad path, model spec, date or --event-data).",
    ),
    "run": _epilog(
        [
            (
                'slotgraph run examples/purchase_refund/workflow.yaml --payload \'{"order": "A-1"}\'',
                "run a workflow once",
            ),
            ("slotgraph run workflow.yaml --resume RUN_ID", "continue a run from its last completed stage"),
            ("slotgraph run workflow.yaml --payload @goal.json --json", "the final run record as JSON"),
        ],
        "0 the run succeeded, 1 invalid workflow or a failed run, 2 usage error (path, payload, store).",
    ),
    "worker": _epilog(
        [
            ("slotgraph worker --queue redis://localhost:6379/0", "execute workflow runs sent to the queue"),
            ("slotgraph run workflow.yaml --queue redis://localhost:6379/0 --store URL", "send one"),
        ],
        "0 after a clean shutdown, 2 usage error (a bad queue URL, Celery not installed).",
    ),
    "import": _epilog(
        [
            ("slotgraph import platform_export/ agents/", "a platform app export into agent directories"),
            ("slotgraph import platform_export/ agents/ --strict", "exit 1 when something is not mapped"),
        ],
        "0 the import ran (--strict: 1 when anything could not be mapped), 2 not an app export.",
    ),
    "graph": _epilog(
        [
            ("slotgraph graph examples/bella_notte", "Mermaid flowchart on stdout"),
            ("slotgraph graph my_agent -f dot -o dag.dot", "Graphviz DOT into a file"),
        ],
        "0 ok, 1 invalid config, 2 usage error.",
    ),
    "schema": _epilog(
        [
            ("slotgraph schema > dag.schema.json", "JSON Schema of dag.yaml for editor completion"),
            ("slotgraph schema --agent -o agent.schema.json", "JSON Schema of agent.yaml"),
        ],
        "0 ok, 2 usage error.",
    ),
    "serve": _epilog(
        [
            ("slotgraph serve examples/bella_notte", "playground at /, API at /v1, docs at /docs"),
            ("slotgraph serve my_agent --reload", "restart when the agent's files change"),
            (
                "slotgraph serve a b --api-key s3cret --store redis://localhost:6379/0",
                "two agents, shared store",
            ),
        ],
        "0 after a clean shutdown, 1 an agent cannot be loaded, 2 usage error (options, store, extra).",
    ),
    "mcp": _epilog(
        [
            ("slotgraph mcp examples/bella_notte", "the agent as MCP tools on stdin/stdout"),
            ("slotgraph mcp my_agent --store sqlite:///sessions.db", "sessions kept across restarts"),
        ],
        "0 when the host closes the connection, 1 the agent cannot be loaded, 2 usage error.",
    ),
    "test": _epilog(
        [
            ("slotgraph test examples/", "every scenario and golden file under a directory"),
            ("slotgraph test my_agent -k readback", "only cases whose name, file or tags match"),
            ("slotgraph test my_agent --junit out.xml", "JUnit XML for CI"),
        ],
        "0 all passed, 1 a failure or malformed file, 2 usage error (missing path, nothing to run).",
    ),
    "version": _epilog(
        [("slotgraph version", "or: slotgraph --version")],
        "0.",
    ),
    "executions": _epilog(
        [
            ("slotgraph executions show s1:book_table:1", "pending (outcome unknown) or done, its result"),
            (
                "slotgraph executions settle s1:book_table:1 --result '{\"success\": true}'",
                "the backend did it: the next turn uses this result",
            ),
            (
                "slotgraph executions settle s1:book_table:1 --not-performed --store redis://localhost:6379/0",
                "it did not happen: the next turn runs it again",
            ),
        ],
        "0 ok, 1 no such key, already settled, or the store failed, 2 usage error (key, JSON, store URL).",
    ),
    "models": _epilog(
        [("slotgraph models list", "providers, example specs, whether installed and keyed")],
        "0 ok, 2 usage error.",
    ),
}
