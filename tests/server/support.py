"""Shared helpers of the server tests: a fixed clock, agents on disk, apps and clients."""

from __future__ import annotations

import datetime
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from slotgraph.models.offline import OfflineModel
from slotgraph.runtime import Model, SessionStore
from slotgraph.server import HostedAgent, ServerSettings, create_app, load_hosted_agents

ROOT = Path(__file__).resolve().parents[2]
BELLA = ROOT / "examples" / "bella_notte"
SECRET = "s3cr3t-db-password-42"
PROBLEM = "application/problem+json"


def clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 10, 12, 0)


def bella(model: Model | None = None) -> Sequence[HostedAgent]:
    return load_hosted_agents([BELLA], model=model if model is not None else OfflineModel())


def app_for(
    agents: Sequence[HostedAgent] | None = None,
    *,
    store: SessionStore | None = None,
    settings: ServerSettings | None = None,
) -> FastAPI:
    return create_app(
        agents if agents is not None else bella(), store=store, settings=settings, clock=clock, seed=0
    )


def client(app: FastAPI, **kwargs: Any) -> TestClient:
    return TestClient(app, **kwargs)


def new_session(c: TestClient, agent: str = "bella_notte", **body: Any) -> str:
    response = c.post("/v1/sessions", json={"agent": agent, **body})
    assert response.status_code == 201, response.text
    session_id = response.json()["session_id"]
    assert isinstance(session_id, str)
    return session_id


def say(c: TestClient, session_id: str, text: str) -> dict[str, Any]:
    response = c.post(f"/v1/sessions/{session_id}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def write_crashy_agent(root: Path, name: str = "crashy") -> Path:
    """A two-slot agent whose executor raises with a secret in the message; ``set_city`` raises too."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "agent.yaml").write_text(
        textwrap.dedent(f"""
        name: {name}
        description: An agent whose backend fails.
        instruction: You help people look things up.
        tools: tools.py
        dag:
          slots:
            - {{name: city, source: user, setter: set_city, ask: "Which city?", hint: "The city"}}
            - {{name: code, source: user, setter: set_code, ask: "Which code?", hint: "The code"}}
            - {{name: answer, source: "task:Lookup"}}
          tasks:
            - name: Lookup
              tool: lookup
              inputs: [code]
              outputs: {{answer: answer}}
              success_check: success
              then_say: "Found {{answer}}."
              on_failure:
                retry_say: "The lookup failed. Which code?"
                max_retries: 3
                clear_slots: [code]
        """),
        encoding="utf-8",
    )
    (folder / "tools.py").write_text(
        textwrap.dedent(f'''
        """Tools of the crashy agent."""


        def set_city(city: str) -> dict:
            """Store the city.

            Args:
                city: The city.
            """
            if city == "boom":
                raise RuntimeError("{SECRET} in set_city")
            return {{"city": city}}


        def set_code(code: str) -> dict:
            """Store the code.

            Args:
                code: The code.
            """
            return {{"code": code}}


        def lookup(code: str) -> dict:
            """Look the code up."""
            raise ValueError("connection to db failed with password {SECRET}")
        '''),
        encoding="utf-8",
    )
    return folder
