"""A benchmark on real dialogues: Schema-Guided Dialogue (SGD) conversations replayed through Slotgraph.

The data is Google's Schema-Guided Dialogue dataset (Rastogi, Zang, Sunkara, Gupta, Khaitan, AAAI 2020),
licensed CC BY-SA 4.0. Modules: :mod:`.data` (reading it), :mod:`.convert` (a service schema → an agent),
:mod:`.backend` (a mock backend answering from the gold calls), :mod:`.oracle` (a model replaying the user
turns' gold acts), :mod:`.replay` (one dialogue through the runtime), :mod:`.metrics` (the figures).
"""

from .backend import Backend, BackendCall, Catalogue, GoldBackend
from .convert import ConvertedAgent, SetterRef, convert_service
from .data import Dialogue, ServiceSchema, UserTurn, load_dialogues, load_schemas
from .metrics import Summary, format_report, summarize
from .oracle import Desync, Op, OracleModel, plan_ops
from .replay import DialogueOutcome, replay_dialogue, replay_dialogues

__all__ = [
    "Backend",
    "BackendCall",
    "Catalogue",
    "ConvertedAgent",
    "Desync",
    "Dialogue",
    "DialogueOutcome",
    "GoldBackend",
    "Op",
    "OracleModel",
    "ServiceSchema",
    "SetterRef",
    "Summary",
    "UserTurn",
    "convert_service",
    "format_report",
    "load_dialogues",
    "load_schemas",
    "plan_ops",
    "replay_dialogue",
    "replay_dialogues",
    "summarize",
]
