"""Secrets never reach output: credentials in URLs and known secret values become `***`.

Applied where text leaves the program - every `OharaError` message, `Settings`'
repr and `to_dict`, the CLI's error and report lines - so a password typed into
`--atlas arangodb://root:pw@host/db` or an API key in the environment cannot be
printed, logged by a notebook, or written into a results file.

What is masked:
* the password of `scheme://user:password@host` (the user name stays, so the
  message still says who tried to log in),
* the value of credential-like query parameters (`?key=`, `&token=`, ...),
* any exact secret value passed in (an API key from the environment).
"""
from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"

# userinfo runs up to the last "@" before the first "/": passwords may hold a raw "@".
_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://)(?P<userinfo>[^\s/@]*(?:@[^\s/@]*)*)@")
_QUERY_SECRET = re.compile(
    r"(?P<name>[?&;](?:key|api_?key|apikey|token|access_token|auth|password|passwd|pwd|secret)=)[^&;#\s'\"]+",
    re.IGNORECASE,
)
MIN_SECRET_CHARS = 4  # shorter "secrets" would mask ordinary words


def _mask_userinfo(m: re.Match[str]) -> str:
    user, colon, _password = m.group("userinfo").partition(":")
    return f"{m.group('scheme')}{user}{':' + MASK if colon else ''}@"


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with URL passwords, credential query parameters and each of `secrets` masked."""
    if not text:
        return text
    text = _USERINFO.sub(_mask_userinfo, text)
    text = _QUERY_SECRET.sub(lambda m: m.group("name") + MASK, text)
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
