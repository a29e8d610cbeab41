"""``offline-safety``: a deterministic stand-in for a Llama Guard classifier, for tests and demos.

It answers as Llama Guard does — ``safe``, or ``unsafe`` and a line of category codes (``unsafe\\nS1,S9``) —
about the last message of the request (the agent's text when there is one, else the person's), with no
network and no weights. It is **not a safety model**: a few phrases per category and an explicit marker
decide, so a test can say what the classifier will answer.

* A marker in the text decides first: ``[unsafe:S1,S10]`` answers ``unsafe`` with those codes,
  ``[safe]`` answers ``safe``, and ``[classifier:garbled]`` answers something that is neither (to test a
  failed check).
* Otherwise the phrases of :data:`PHRASES` (whole words, any case) flag their categories.

Use a real classifier in production: any OpenAI-compatible server with Llama Guard
(``openai-compatible:http://localhost:8000/v1#meta-llama/Llama-Guard-3-8B``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from slotgraph.models.protocol import AssistantText, ModelRequest, ModelResponse, Usage, UserMessage

__all__ = ["PHRASES", "OfflineSafetyModel"]

PHRASES: Final[Mapping[str, tuple[str, ...]]] = {
    "S1": ("kill him", "kill her", "kill them", "murder", "stab", "shoot him", "shoot her"),
    "S2": ("shoplift", "steal a car", "launder money", "forge a cheque", "forge a check"),
    "S7": ("social security number of", "home address of"),
    "S9": ("build a bomb", "make a bomb", "nerve agent", "bioweapon", "pipe bomb"),
    "S11": ("kill myself", "end my life", "hurt myself", "suicide"),
}
"""The phrases that flag each Llama Guard category (a handful: enough for tests, not a classifier)."""

_MARKER: Final = re.compile(r"\[(?:unsafe:(?P<codes>[A-Za-z0-9, ]+)|(?P<safe>safe)|classifier:garbled)\]")


def _verdict(text: str) -> str:
    marker = _MARKER.search(text)
    if marker is not None:
        if marker.group("codes"):
            codes = [c.strip().upper() for c in marker.group("codes").split(",") if c.strip()]
            return "unsafe\n" + ",".join(codes)
        return "safe" if marker.group("safe") else "I am not sure."
    lowered = text.lower()
    flagged = [
        code
        for code, phrases in PHRASES.items()
        if any(re.search(rf"\b{re.escape(phrase)}\b", lowered) for phrase in phrases)
    ]
    return "unsafe\n" + ",".join(flagged) if flagged else "safe"


class OfflineSafetyModel:
    """The stand-in classifier (see the module docstring)."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        text = ""
        for message in reversed(request.messages):
            if isinstance(message, AssistantText | UserMessage) and message.text:
                text = message.text
                break
        answer = _verdict(text)
        return ModelResponse(text=answer, usage=Usage(len(text.split()), len(answer.split())))
