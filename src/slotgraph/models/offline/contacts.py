"""Phone numbers (``phonenumbers``) and email addresses (``email-validator``), plus reference codes.

Phones are found with ``PhoneNumberMatcher`` at POSSIBLE leniency (so 555 numbers count) in the configured
default region and written in E.164 unless the parameter's description asks for digits only. Emails are
found by pattern — spoken ones too ("anna at gmail dot com") — and normalised by ``email-validator``
(domain lower-cased, local part kept). Identifiers ("policy number AB-123456") are letter/digit codes; when
the schema has a ``pattern``, the spelling that matches it is chosen ("kx 445102" → "KX-445102").
"""

from __future__ import annotations

import re

import phonenumbers
from email_validator import EmailNotValidError, validate_email

from slotgraph.models.offline.spans import Found

__all__ = ["find_emails", "find_identifiers", "find_phones"]

_EMAIL_RE = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")
_SPOKEN_EMAIL_RE = re.compile(
    r"\b([a-z0-9._\-]+(?:\s+(?:dot|underscore|dash|hyphen)\s+[a-z0-9_\-]+)*)\s+at\s+"
    r"([a-z0-9\-]+(?:\s+(?:dot|dash|hyphen)\s+[a-z0-9\-]+)+)\b",
    re.I,
)
_CODE_RE = re.compile(r"(?<!['’])\b([A-Za-z]{1,4})[\s\-]?(\d{3,12})\b|\b([A-Za-z0-9]*\d[A-Za-z0-9\-]{3,})\b")
# A code read out digit by digit: "4 4 1 9 0 2 7", "7-7-3-0".
_SPACED_DIGITS_RE = re.compile(r"(?<![\w\-])\d(?:[ \-]\d){3,}(?![\w\-])")


def find_phones(text: str, *, region: str = "US", digits_only: bool = False) -> list[Found]:
    """Phone numbers in ``text`` as E.164 strings (or bare digits when ``digits_only``)."""
    found: list[Found] = []
    for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.POSSIBLE):
        number = match.number
        value = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
        if digits_only:
            value = re.sub(r"\D", "", value)
        found.append(Found(value, match.start, match.end))
    return found


def _normalise_email(candidate: str) -> str | None:
    try:
        return validate_email(candidate, check_deliverability=False).normalized
    except EmailNotValidError:
        return None


def _spoken_symbols(part: str) -> str:
    """ "jo dot kim" → "jo.kim", "dan underscore wright" → "dan_wright", "a dash b" → "a-b"."""
    symbols = {"dot": ".", "underscore": "_", "dash": "-", "hyphen": "-"}
    return re.sub(
        r"\s+(dot|underscore|dash|hyphen)\s+", lambda m: symbols[m.group(1).lower()], part, flags=re.I
    )


def find_emails(text: str) -> list[Found]:
    """Email addresses in ``text``, written or spoken ("jo dot kim at example dot com")."""
    found: list[Found] = []
    for m in _EMAIL_RE.finditer(text):
        value = _normalise_email(m.group(0).rstrip("."))
        if value:
            found.append(Found(value, m.start(), m.end()))
    if found:
        return found
    for m in _SPOKEN_EMAIL_RE.finditer(text):
        local, domain = _spoken_symbols(m.group(1)), _spoken_symbols(m.group(2))
        value = _normalise_email(f"{local}@{domain}")
        if value:
            found.append(Found(value, m.start(), m.end()))
    return found


def _spellings(letters: str, digits: str) -> list[str]:
    letters = letters.upper()
    return [f"{letters}-{digits}", f"{letters}{digits}", f"{letters} {digits}"]


def find_identifiers(text: str, *, pattern: str | None = None) -> list[Found]:
    """Letter/digit codes; with a schema ``pattern``, only spellings that match it (upper-cased)."""
    compiled = re.compile(pattern) if pattern else None
    found: list[Found] = []
    for m in _SPACED_DIGITS_RE.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if compiled is None or compiled.fullmatch(digits):
            found.append(Found(digits, m.start(), m.end()))
    if found:
        return found
    for m in _CODE_RE.finditer(text):
        candidates = _spellings(m.group(1), m.group(2)) if m.group(1) else [m.group(3).upper()]
        if m.group(1):
            candidates.append(m.group(2))  # "code 4471" may be the digits alone
        if compiled is None:
            found.append(Found(candidates[0], m.start(), m.end()))
            continue
        for candidate in candidates:
            if compiled.fullmatch(candidate):
                found.append(Found(candidate, m.start(), m.end()))
                break
    return found
