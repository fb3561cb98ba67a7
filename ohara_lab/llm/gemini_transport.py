"""What the Gemini chat provider and the Gemini embedder share: client, error kinds, retries.

Importing this module needs the `gemini` extra (google-genai, tenacity); the rest of
`ohara_lab.llm` imports it only when a Gemini provider is actually built.

Retries are ours, not the SDK's: the client is built without ``retry_options`` so it
sends each request once, and tenacity retries 429/500/502/503/504 and transport
timeouts with exponential backoff. A 429 carrying a ``RetryInfo.retryDelay`` waits at
least that long (capped by the backoff maximum).
"""
from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import tenacity
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from ..errors import UsageError
from ..redact import redact
from ..settings import Settings

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})

TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (httpx.TimeoutException, httpx.TransportError)
try:  # google-genai uses the httpx2 fork when it is installed
    import httpx2  # type: ignore[import-not-found]

    TRANSPORT_ERRORS += (httpx2.TimeoutException, httpx2.TransportError)
except ImportError:  # pragma: no cover - depends on the environment
    pass


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff between attempts: initial * 2**n, capped, plus up to `initial` jitter.

    Tests pass a tiny `initial_s`/`max_s` so scripted 429s and 503s cost milliseconds, or a
    `sleep` that records the waits instead of taking them, so they assert on the delays chosen
    rather than on a wall clock.
    """

    initial_s: float = 1.0
    max_s: float = 30.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)


def make_client(settings: Settings, timeout_s: float | None = None) -> genai.Client:
    """A google-genai client for `settings` (API key, base URL, per-request timeout)."""
    if not settings.gemini_api_key:
        raise UsageError("Gemini needs an API key: set GEMINI_API_KEY (or use OHARA_LLM=offline)")
    seconds = settings.gemini_timeout_s if timeout_s is None else timeout_s
    options = types.HttpOptions(
        base_url=settings.gemini_base_url or None,
        timeout=max(1, int(round(seconds * 1000))),  # the SDK takes milliseconds
    )
    return genai.Client(api_key=settings.gemini_api_key, http_options=options)


def status_of(exc: BaseException) -> int | None:
    """HTTP status of a google-genai APIError, else None."""
    if isinstance(exc, genai_errors.APIError):
        return exc.code
    return None


def is_transport_error(exc: BaseException) -> bool:
    """Timeouts and connection failures: the request may never have reached the model."""
    return isinstance(exc, TRANSPORT_ERRORS)


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: overload/rate-limit statuses and transport failures."""
    return status_of(exc) in RETRYABLE_STATUS or is_transport_error(exc)


def describe_error(exc: BaseException, settings: Settings | None = None) -> str:
    """One line for an LLMError reason; `settings`' API key is masked should the server echo it."""
    if isinstance(exc, genai_errors.APIError):
        message = (exc.message or "").strip().splitlines()[0:1]
        text = f"HTTP {exc.code} {exc.status or ''}: {message[0] if message else ''}".strip()
    elif is_transport_error(exc):
        text = f"{type(exc).__name__}: {exc or 'no response before the timeout'}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return redact(text, settings.secrets() if settings else ())


_DELAY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)s\s*$")


def server_retry_delay(exc: BaseException) -> float | None:
    """Seconds a 429 asks us to wait (google.rpc.RetryInfo.retryDelay), if it says."""
    if not isinstance(exc, genai_errors.APIError) or not isinstance(exc.details, dict):
        return None
    details = (exc.details.get("error") or {}).get("details") or []
    for item in details if isinstance(details, list) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
            m = _DELAY.match(str(item.get("retryDelay", "")))
            if m:
                return float(m.group(1))
    return None


def _wait(backoff: Backoff):
    def wait(state: tenacity.RetryCallState) -> float:
        exp = min(backoff.max_s, backoff.initial_s * (2 ** (state.attempt_number - 1)))
        delay = exp + random.uniform(0, backoff.initial_s)
        exc = state.outcome.exception() if state.outcome else None
        asked = server_retry_delay(exc) if exc else None
        if asked is not None:
            delay = max(delay, min(asked, backoff.max_s))
        return delay

    return wait


def retrying(attempts: int, backoff: Backoff, *, retry_transport: bool = True) -> tenacity.Retrying:
    """Up to `attempts` tries of a call, retrying transient failures; the last error is re-raised.

    `retry_transport=False` retries only HTTP statuses, so a timeout ends the attempts at once.
    """
    def worth_retrying(exc: BaseException) -> bool:
        return status_of(exc) in RETRYABLE_STATUS or (retry_transport and is_transport_error(exc))

    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(max(1, attempts)),
        wait=_wait(backoff),
        retry=tenacity.retry_if_exception(worth_retrying),
        sleep=backoff.sleep,
        reraise=True,
    )


def call_with_retries(
    attempts: int, backoff: Backoff, fn: Any, *args: Any, retry_transport: bool = True, **kwargs: Any
) -> Any:
    """`fn(*args, **kwargs)` under `retrying(attempts, backoff, retry_transport=...)`."""
    return retrying(attempts, backoff, retry_transport=retry_transport)(fn, *args, **kwargs)
