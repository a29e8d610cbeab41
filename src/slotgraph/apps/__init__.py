"""Multi-agent apps: several agents in one conversation, with a root (``app.yaml``).

* :mod:`~slotgraph.apps.config` — the shape of ``app.yaml`` (:class:`AppConfig`).
* :mod:`~slotgraph.apps.loader` — :func:`load_app` (an app directory or file → the root
  :class:`~slotgraph.runtime.Agent`, carrying its :class:`~slotgraph.runtime.agent_team.AgentTeam`) and
  :func:`load_agent`, which loads either an app or a single agent, for the edges (server, CLI, evals);
  :func:`build_app` assembles an app of agents built in Python (:class:`Member`).

The runtime plays the conversation (:mod:`slotgraph.runtime.agent_team`); this package only reads the app
file, checks it, and equips each agent with its routing tools. See ``docs/agents.md``.
"""

from slotgraph.apps.config import APP_FILE, AppAgentEntry, AppConfig, RoutingConfig
from slotgraph.apps.loader import (
    Member,
    app_definitions,
    build_app,
    is_app,
    load_agent,
    load_app,
    read_app,
)

__all__ = [
    "APP_FILE",
    "AppAgentEntry",
    "AppConfig",
    "Member",
    "RoutingConfig",
    "app_definitions",
    "build_app",
    "is_app",
    "load_agent",
    "load_app",
    "read_app",
]
