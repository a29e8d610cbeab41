"""Is the user's message a confirmation? (docs/engine.md#auto-confirm-and-inline-confirm)

The word sets are the original platform's, completed with the common short confirmations a demanding user
would expect ("yes please", "that is correct", "go ahead", "yea", "ya", ...). Matching is on lower-cased text
with the punctuation ``.,;:!?"'`` stripped from every word ("Yes, that's correct." == "yes thats correct"), so
each phrase is listed in its stripped form.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

__all__ = [
    "AFFIRMATIVES",
    "CORRECTION_SIGNALS",
    "MAX_AFFIRMATIVE_WORDS",
    "is_affirmative",
    "starts_affirmative",
]

AFFIRMATIVES: Final = frozenset(
    {
        # single words (the spec's, then completions)
        "yes", "yeah", "yep", "yup", "correct", "right", "sure", "ok", "okay", "perfect", "great",
        "exactly", "confirmed", "absolutely", "yea", "ya", "yah", "affirmative", "definitely",
        "certainly", "indeed", "fine", "good", "k", "kk", "alright", "aye", "uh-huh", "mhm", "confirm",
        "precisely", "totally", "excellent", "wonderful", "cool",
        # phrases (stripped form)
        "sounds good", "thats right", "thats correct", "looks right", "looks good", "yes please",
        "yes thats right", "yes thats correct", "that is correct", "that is right", "thats it",
        "sounds great", "sounds right", "yes it is", "it is", "all good", "go ahead", "please do",
        "all correct", "yes correct", "yes exactly", "of course", "you got it", "you bet", "thats fine",
        "that works", "works for me", "spot on", "all right", "yes sir", "yes maam",
    }
)  # fmt: skip

CORRECTION_SIGNALS: Final = frozenset(
    {
        "but", "actually", "wait", "change", "not", "no", "nope", "wrong", "instead", "different",
        "however", "except", "although", "though", "hold", "incorrect", "isnt", "wasnt", "dont",
        "didnt", "never", "rather", "update", "fix", "mistake", "sorry", "nah", "cancel",
    }
)  # fmt: skip

MAX_AFFIRMATIVE_WORDS: Final = 5
_STRIP_PUNCT: Final = MappingProxyType(str.maketrans("", "", ".,;:!?\"'"))


def _words(text: str) -> list[str]:
    return [w for w in (w.translate(_STRIP_PUNCT) for w in text.lower().split()) if w]


def is_affirmative(text: str) -> bool:
    """A short, pure confirmation: the whole message is an affirmative phrase, or it has at most five words,
    starts with an affirmative and carries no correction signal ("Yes, but make it 6" is not one)."""
    words = _words(text)
    if not words:
        return False
    if " ".join(words) in AFFIRMATIVES:
        return True
    if len(words) <= MAX_AFFIRMATIVE_WORDS and words[0] in AFFIRMATIVES:
        return not any(w in CORRECTION_SIGNALS for w in words[1:])
    return False


def starts_affirmative(text: str) -> bool:
    """Starts with an affirmative word and has no correction signal in the next three words (any length).

    "Yea, also my wife has a shellfish allergy" starts affirmative; "Yes but not Friday" does not.
    """
    words = _words(text)
    if not words or words[0] not in AFFIRMATIVES:
        return False
    return not any(w in CORRECTION_SIGNALS for w in words[1:4])
