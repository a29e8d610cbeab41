"""``limits:`` in ``agent.yaml``: bounds on the work one turn may do, each with a default.

```yaml
limits:
  tool_timeout: 30            # seconds any tool call may take (a hang becomes a failed result)
  tool_timeouts: {book_table: 90}
  tool_threads: 32            # worker threads each sync tool may use at once (a hung call keeps its thread)
  tool_queue_timeout: 30      # seconds a call may wait for a thread of its tool (not in its timeout)
  tool_calls_per_response: 16 # tool calls run from one model response; more are refused
  tool_calls_per_turn: 48     # tool calls run in one turn (model and engine); more are refused
  history_messages: 400       # messages kept in the stored conversation; older whole turns are dropped
```

A tool that does not answer within its timeout fails like a tool that raised — except a task executor whose
attempt has an idempotency key: its outcome is *unconfirmed* (it may still happen), so it is neither failed
nor retried with a new key (:mod:`slotgraph.runtime.executions`). Another tool's failure is a result the
model reads. A call that waited ``tool_queue_timeout`` for a thread of its tool was never run and fails
(``Busy``). Calls over a cap are refused with a result the model reads (``call_limit``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat

__all__ = [
    "DEFAULT_HISTORY_MESSAGES",
    "DEFAULT_TOOL_CALLS_PER_RESPONSE",
    "DEFAULT_TOOL_CALLS_PER_TURN",
    "DEFAULT_TOOL_QUEUE_TIMEOUT",
    "DEFAULT_TOOL_THREADS",
    "DEFAULT_TOOL_TIMEOUT",
    "LimitsConfig",
]

DEFAULT_TOOL_TIMEOUT = 30.0
DEFAULT_TOOL_CALLS_PER_RESPONSE = 16
DEFAULT_TOOL_CALLS_PER_TURN = 48
DEFAULT_HISTORY_MESSAGES = 400
DEFAULT_TOOL_THREADS = 32
DEFAULT_TOOL_QUEUE_TIMEOUT = 30.0


class LimitsConfig(BaseModel):
    """Bounds on one turn's work (see the module docstring); every key is optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_timeout: float = Field(default=DEFAULT_TOOL_TIMEOUT, gt=0, le=3600)
    """Seconds any tool call may take before it counts as failed."""
    tool_timeouts: dict[str, PositiveFloat] = Field(default_factory=dict)
    """Per-tool timeouts in seconds (by tool name), overriding tool_timeout."""
    tool_threads: int = Field(default=DEFAULT_TOOL_THREADS, ge=1, le=1024)
    """Worker threads each synchronous tool may use at once; a call past its timeout keeps its thread until
    it returns, so a tool that hangs holds at most these."""
    tool_queue_timeout: float = Field(default=DEFAULT_TOOL_QUEUE_TIMEOUT, gt=0, le=3600)
    """Seconds a call may wait for one of its tool's threads; the wait is not counted in its timeout, and a
    call that got no thread in time was never run (``Busy``)."""
    tool_calls_per_response: int = Field(default=DEFAULT_TOOL_CALLS_PER_RESPONSE, ge=1, le=1000)
    """Tool calls run from one model response; the rest are refused (call_limit)."""
    tool_calls_per_turn: int = Field(default=DEFAULT_TOOL_CALLS_PER_TURN, ge=1, le=10000)
    """Tool calls run in one turn, model and engine calls together; the rest are refused (call_limit)."""
    history_messages: int = Field(default=DEFAULT_HISTORY_MESSAGES, ge=10, le=100000)
    """Messages kept in the stored conversation: older whole turns are dropped (the state keeps every
    slot value, so nothing the engine needs is lost)."""

    def timeout_for(self, tool: str) -> float:
        """The timeout of ``tool`` in seconds."""
        return self.tool_timeouts.get(tool, self.tool_timeout)
