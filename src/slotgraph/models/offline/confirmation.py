"""Yes and no, for readback (``confirm_pending`` / ``reject_pending``) and boolean parameters.

The word lists extend the original platform's ``_AFFIRMATIVES`` / ``_CORRECTION_SIGNALS``
(docs/engine.md#auto-confirm-and-inline-confirm). Only the beginning of the reply decides: "yes, that's right"
is a yes, "no, thankfully" a no, "that's not right" a no.
"""

from __future__ import annotations

import re

__all__ = ["confirms_part", "is_affirmative", "is_agreeing", "is_declining", "is_negative"]

_YES_RE = re.compile(
    r"^(?:yes|yeah|yea|yep|yup|ya|correct|right|sure|sounds good|sounds great|ok|okay|perfect|great|exactly|"
    r"confirmed|confirm|absolutely|definitely|that's right|that is right|that's correct|that is correct|"
    r"looks good|looks right|all good|that works|works for me|good|fine|affirmative|indeed|of course|"
    r"uh-huh|mhm|yes please|please do|go ahead|do it|why not|you got it|you have it"
    r"|you(?:'re| are) (?:right|correct)|sounds (?:perfect|right|fine|nice|wonderful|excellent|awesome)"
    r"|that(?:'ll| will) work|"
    r"(?:that|this|it)(?:'s| is| sounds| looks| would be) "
    r"(?:perfect|great|good|fine|correct|right|excellent|wonderful)|(?:i|we) confirm|i agree|agreed"
    r"|(?:that|this|it)(?:'ll| will| would|'d) be (?:perfect|great|good|fine|ok|okay)|got it"
    r"|(?:that|this|it)(?:'s| is|'s is) (?:all )?(?:correct|right|good|great|fine)"
    r"|sounds (?:fantastic|lovely|ideal|super|amazing|good|great)"
    r"|(?:that|this)(?:'s| is) (?:what|exactly what) (?:i|we) (?:want|need|asked for)"
    r"|(?:that|this)(?:'s| is) (?:the one|it))\b",
    re.I,
)
_NO_RE = re.compile(
    r"^(?:no|nope|nah|negative|wrong|incorrect|not (?:right|correct|quite|really)|"
    r"that's (?:not|wrong|incorrect)|that is (?:not|wrong|incorrect)|nobody|no one|none|neither|never)\b",
    re.I,
)
_NEGATED_YES_RE = re.compile(r"\b(?:not|isn't|wasn't|n't)\b", re.I)
_WHY_NOT_RE = re.compile(r"\bwhy not\b", re.I)


# A "no" said without a no-word at the start, for yes/no questions: "luckily not", "I'd rather not",
# "we won't need one", "I don't think so", "fortunately everyone's fine" (to "was anyone hurt?").
_DECLINE_RE = re.compile(
    r"^(?:(?:luckily|fortunately|thankfully|happily|sadly|unfortunately|actually|honestly|probably|"
    r"definitely|certainly|absolutely|hopefully)[\s,]+)?not\b(?!\s+(?:sure|certain)\b)"
    r"|\b(?:i'd|i would|we'd|we would) (?:prefer|rather)(?: to)? not\b"
    r"|\b(?:i'd|we'd) rather (?:stick|keep|go)\b"
    r"|\b(?:won't|will not|don't|do not|doesn't|does not|shouldn't|wouldn't) (?:need|want|require)\b"
    r"|\bno need\b|\bnot (?:needed|necessary|required)\b|\b(?:i|we) don't think so\b"
    r"|^(?:luckily|fortunately|thankfully|happily)[\s,]+(?:every(?:one|body)|we|all of us)"
    r"(?:'s|'re| is| are| was| were)\s+(?:all\s+)?(?:ok|okay|fine|alright|all right|safe|unhurt|good)\b",
    re.I,
)


def is_declining(text: str) -> bool:
    """True for a no without a leading no-word ("luckily not", "I'd prefer not to", "we won't need one")."""
    return bool(_DECLINE_RE.search(_lead(text)))


def _lead(text: str) -> str:
    return re.sub(
        r"^[\s,.!]*(?:(?:oh|um+|uh+|well|hmm+|thanks|thank you)(?: (?:so|very) much)?\b[\s,.!]*)+",
        "",
        text.strip(),
        flags=re.I,
    )  # "Thank you, that's perfect." opens with its yes


def is_affirmative(text: str) -> bool:
    """True when the reply starts with a yes and is not a negated one ("right" but not "not right")."""
    lead = _lead(text)
    unnegated = _WHY_NOT_RE.sub("", lead[:20])  # "sure, why not" agrees
    return bool(_YES_RE.match(lead)) and not _NO_RE.match(lead) and not _NEGATED_YES_RE.search(unnegated)


# A yes to a yes/no question said without a yes-word: "I don't mind", "I'm fine with that", "I'd like
# that", "that would be nice", "please do".
_AGREE_RE = re.compile(
    r"\b(?:i|we) (?:don't|do not|wouldn't|would not) mind\b|\bno problem\b"
    r"|\b(?:i'm|i am|we're|we are) (?:fine|ok|okay|good|happy|alright|all right) (?:with|to)\b"
    r"|\b(?:i'd|i would|we'd|we would) (?:like|love|prefer|enjoy) (?:that|it|one|to)\b"
    r"|^(?:that|it) (?:would|'d|will|'ll) be (?:nice|good|great|fine|ok|okay|perfect)\b"
    r"|^(?:please|i'd like that|let's do (?:that|it))\b",
    re.I,
)


def is_agreeing(text: str) -> bool:
    """A yes to a yes/no question: :func:`is_affirmative`, or an agreement said without a yes-word ("I
    don't mind", "I'm fine with that", "that would be nice")."""
    return is_affirmative(text) or bool(_AGREE_RE.search(_lead(text)))


def is_negative(text: str) -> bool:
    """True when the reply starts with a no ("no", "nope", "that's wrong", "nobody was hurt")."""
    return bool(_NO_RE.match(_lead(text)))


# "the date is right but make it 6 people": part of a readback is confirmed while another part is corrected.
_PART_YES_RE = re.compile(
    r"\b(?:is|are|'s|'re)\s+(?:right|correct|fine|good|perfect|ok|okay)\b"
    r"|\b(?:keep|leave)\s+the\s+\w+(?:\s+\w+)?\s+(?:as\s+it\s+is|as\s+is|the\s+same)\b",
    re.I,
)


def confirms_part(text: str) -> bool:
    """True when the reply confirms some of what was read back ("the date is right", "keep the name as is")
    — said together with a correction of the rest."""
    return bool(_PART_YES_RE.search(text))
