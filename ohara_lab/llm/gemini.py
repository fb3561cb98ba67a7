"""Gemini provider on google-genai: flex tier first, then standard; retries; validation; cache.

One `generate` is, at most, two *rounds* (the second only when the first reply is not
JSON of the prompt's schema; it carries the validation error so the model can fix it),
and each round walks the service tiers:

* ``flex`` — ``GenerateContentConfig(service_tier=ServiceTier.FLEX)``, which the SDK
  sends as the top-level request field ``"serviceTier": "flex"`` (half price,
  best-effort); up to ``settings.gemini_max_retries`` attempts on 429/5xx, while a
  timeout, or a 400 saying the tier is not available, moves on at once;
* ``standard`` — the field is omitted (the API's default tier); up to
  ``settings.gemini_max_retries`` attempts on 429/5xx and timeouts.

When flex is exhausted the provider also skips it for ``flex_cooldown_s`` so a long
ingest does not pay the flex retries on every chunk while flex is overloaded. Usage
from ``usageMetadata`` is recorded per HTTP reply, including replies that were then
rejected, because they were billed.
"""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from google.genai import errors as genai_errors
from google.genai import types

from ..errors import LLMError
from ..settings import Settings
from .cache import ReplyCache, default_cache_dir
from .gemini_transport import TRANSPORT_ERRORS, Backoff, call_with_retries, describe_error, is_transient, make_client
from .prompts import Prompt
from .provider import BaseProvider, Check, Produced
from .reply import ReplyInvalid, parse_and_validate
from .usage import FLEX, STANDARD, TokenUsage, UsageLedger

log = logging.getLogger(__name__)

RETRY_NOTE = (
    "\n\n## Your previous reply was rejected\n"
    "Problem: {error}\n"
    "Reply again with only one JSON object that satisfies the output schema above. "
    "No prose, no code fences."
)

# JSON Schema keywords sent to Gemini as responseJsonSchema. String bounds and patterns
# stay local (our validator enforces them): support for them server-side varies by
# model, and a keyword the API rejects would cost a 400 on every call.
_WIRE_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "enum", "items",
        "minItems", "maxItems", "minimum", "maximum", "anyOf", "$ref", "$defs", "description",
    }
)


def wire_schema(schema: Any) -> Any:
    """`schema` reduced to the keywords Gemini's structured output understands."""
    if isinstance(schema, list):
        return [wire_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _WIRE_KEYWORDS:
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: wire_schema(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf", "additionalProperties"):
            out[key] = wire_schema(value)
        else:
            out[key] = value
    return out


def usage_of(response: types.GenerateContentResponse) -> TokenUsage:
    meta = response.usage_metadata
    if meta is None:
        return TokenUsage(calls=1)
    return TokenUsage(
        prompt=meta.prompt_token_count or 0,
        output=meta.candidates_token_count or 0,
        cached=meta.cached_content_token_count or 0,
        thoughts=meta.thoughts_token_count or 0,
        calls=1,
    )


def reply_text(response: types.GenerateContentResponse) -> str:
    """The visible text of the first candidate; ReplyInvalid saying why there is none."""
    candidates = response.candidates or []
    if not candidates:
        feedback = response.prompt_feedback
        reason = getattr(feedback, "block_reason", None) if feedback else None
        raise ReplyInvalid(f"the reply had no candidates (block reason: {reason or 'none given'})")
    candidate = candidates[0]
    parts = (candidate.content.parts if candidate.content else None) or []
    text = "".join(p.text for p in parts if p.text and not p.thought)
    if not text.strip():
        raise ReplyInvalid(f"the reply had no text (finish reason: {candidate.finish_reason or 'none given'})")
    return text


def _mentions(exc: BaseException, *words: str) -> bool:
    text = str(exc).lower()
    return any(w in text for w in words)


class GeminiProvider(BaseProvider):
    """`LLMProvider` backed by the Gemini API (or anything speaking its REST shapes)."""

    def __init__(
        self,
        settings: Settings,
        cache_dir: str | Path | None = None,
        *,
        ledger: UsageLedger | None = None,
        backoff: Backoff | None = None,
        tiers: tuple[str, ...] = (FLEX, STANDARD),
        flex_cooldown_s: float = 300.0,
        send_schema: bool = True,
        thinking_budget: int | None = None,
        use_cache: bool = True,
        budget: Any = None,
    ):
        self.settings = settings
        self.model = settings.gemini_model
        self.name = f"gemini:{self.model}"
        cache = ReplyCache(cache_dir if cache_dir is not None else default_cache_dir(settings)) if use_cache else None
        super().__init__(cache=cache, ledger=ledger, concurrency=settings.ingest_concurrency, budget=budget)
        if not tiers or any(t not in (FLEX, STANDARD) for t in tiers):
            raise ValueError(f"tiers must be drawn from {FLEX!r}, {STANDARD!r}; got {tiers!r}")
        self.tiers = tuple(tiers)
        self.attempts = max(1, settings.gemini_max_retries)
        self.backoff = backoff or Backoff()
        self.flex_cooldown_s = flex_cooldown_s
        self.send_schema = send_schema
        self.thinking_budget = thinking_budget
        self._client = make_client(settings)
        self._lock = threading.Lock()
        self._flex_paused_until = 0.0
        self._schema_refused: set[str] = set()  # prompts whose schema the API answered 400 to

    # -- one generate ----------------------------------------------------------------
    def _produce(
        self, prompt: Prompt, text: str, variables: dict[str, Any], scope: str | None, check: Check | None = None
    ) -> Produced:
        spent = TokenUsage()
        attempt_text = text
        problem = ""
        for _round in range(2):
            response, usage, tier = self._call(prompt, attempt_text, scope)
            spent = spent + usage
            try:
                # An empty or blocked reply takes the same one-retry path as bad JSON.
                data = parse_and_validate(prompt, reply_text(response))
                if check is not None:
                    check(data)  # the caller's semantic check takes the same one-retry path
                return Produced(data, spent, tier)
            except ReplyInvalid as exc:
                problem = str(exc)
                log.info("gemini %s: reply rejected (%s)", prompt.name, problem)
                attempt_text = text + RETRY_NOTE.format(error=problem)
        raise LLMError(prompt.name, f"reply rejected twice; last problem: {problem}")

    def _call(
        self, prompt: Prompt, text: str, scope: str | None
    ) -> tuple[types.GenerateContentResponse, TokenUsage, str]:
        """One HTTP reply, walking the tiers; LLMError when every tier gives up."""
        tiers = self._tiers_now()
        last: BaseException | None = None
        for tier in tiers:
            try:
                response = self._send(prompt, text, tier)
            except (genai_errors.APIError, *TRANSPORT_ERRORS) as exc:
                if tier == FLEX and (is_transient(exc) or _flex_refused(exc)):
                    last = exc
                    self._pause_flex(forever=not is_transient(exc))
                    log.warning("gemini %s: flex tier failed (%s); trying %s", prompt.name, describe_error(exc, self.settings), STANDARD)
                    continue
                if is_transient(exc):
                    last = exc
                    continue
                raise LLMError(prompt.name, describe_error(exc, self.settings)) from exc
            usage = usage_of(response)
            self.ledger.record(usage, scope=scope, model=self.model, tier=tier)
            return response, usage, tier
        raise LLMError(
            prompt.name,
            f"gave up on {', '.join(tiers)} after up to {self.attempts} attempt(s) each: {describe_error(last, self.settings) if last else 'no tier'}",
        )

    def _send(self, prompt: Prompt, text: str, tier: str) -> types.GenerateContentResponse:
        def once() -> types.GenerateContentResponse:
            return self._client.models.generate_content(model=self.model, contents=text, config=self._config(prompt, tier))

        # Flex targets minutes of latency; a flex request that outlives our timeout is not
        # retried on flex (that would cost attempts x timeout) but moves on to standard.
        retry_transport = tier != FLEX
        try:
            return call_with_retries(self.attempts, self.backoff, once, retry_transport=retry_transport)
        except genai_errors.ClientError as exc:
            if exc.code == 400 and self._sends_schema(prompt) and _mentions(exc, "schema"):
                # The API refused our response schema: our own validation still guards the
                # reply, so fall back to plain JSON mode for this prompt.
                log.warning("gemini %s: response schema refused (%s); sending without it", prompt.name, describe_error(exc, self.settings))
                with self._lock:
                    self._schema_refused.add(prompt.name)
                return call_with_retries(self.attempts, self.backoff, once, retry_transport=retry_transport)
            raise

    def _config(self, prompt: Prompt, tier: str) -> types.GenerateContentConfig:
        return types.GenerateContentConfig(
            temperature=0.0,
            response_mime_type="application/json",
            response_json_schema=wire_schema(prompt.schema) if self._sends_schema(prompt) else None,
            service_tier=types.ServiceTier.FLEX if tier == FLEX else None,  # standard = field omitted
            thinking_config=(
                types.ThinkingConfig(thinking_budget=self.thinking_budget) if self.thinking_budget is not None else None
            ),
        )

    # -- state ------------------------------------------------------------------------
    def _sends_schema(self, prompt: Prompt) -> bool:
        with self._lock:
            return self.send_schema and prompt.name not in self._schema_refused

    def _tiers_now(self) -> tuple[str, ...]:
        with self._lock:
            paused = time.monotonic() < self._flex_paused_until
        tiers = tuple(t for t in self.tiers if not (paused and t == FLEX))
        return tiers or self.tiers

    def _pause_flex(self, forever: bool = False) -> None:
        with self._lock:
            self._flex_paused_until = float("inf") if forever else time.monotonic() + self.flex_cooldown_s

    def reset_tiers(self) -> None:
        """Forget a flex pause (tests, or a caller that knows flex has recovered)."""
        with self._lock:
            self._flex_paused_until = 0.0


def _flex_refused(exc: BaseException) -> bool:
    """A 400 saying the model/key cannot use the flex tier: standard will do."""
    return isinstance(exc, genai_errors.ClientError) and exc.code == 400 and _mentions(exc, "service tier", "service_tier", "servicetier", "flex")
