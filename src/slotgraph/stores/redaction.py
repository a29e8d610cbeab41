"""Store URLs as they may appear in messages and logs: without their password."""

from __future__ import annotations

__all__ = ["redact_url"]


def redact_url(url: str) -> str:
    """``url`` with the password (if any) replaced by ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return url
    authority, slash, tail = rest.partition("/")
    creds, _, host = authority.rpartition("@")
    user = creds.split(":", 1)[0]
    shown = f"{user}:***" if ":" in creds else user
    return f"{scheme}://{shown}@{host}{slash}{tail}"
