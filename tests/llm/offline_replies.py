"""Answer Gemini stand-in requests from the prompt text, the way a model would see it.

`decode(request)` recovers which prompt a request carries (from the response schema
the client sent) and the variables rendered into it (by inverting the template:
the text between two of its literal parts is the placeholder between them). `OfflineResponder` then answers with the
offline behaviour of that prompt, or with a per-prompt function the test supplies,
as a real generateContent reply with token usage. The stand-in therefore sees only
what Gemini would see: the rendered prompt text.
"""
from __future__ import annotations

import json
import re
import string
import threading
from typing import Any, Callable

from gemini_stub import StubReply, StubRequest, error_reply, json_reply
from ohara_lab.llm import load_prompt, offline_behaviours, prompt_names
from ohara_lab.llm.prompts import NONE_TEXT, Prompt

Answer = Callable[[dict[str, Any], StubRequest], "dict | StubReply"]


def _undefuse(text: str) -> str:
    return text.replace("<< <", "<<<").replace("> >>", ">>>")


def _by_schema() -> dict[frozenset[str], str]:
    out = {}
    for name in prompt_names():
        keys = frozenset(load_prompt(name).schema.get("properties", {}))
        assert keys not in out, f"prompts {out.get(keys)} and {name} share a reply shape"
        out[keys] = name
    return out


def _segments(prompt: Prompt) -> tuple[list[str], list[str]]:
    """The template as literals around placeholders: literals[i] precedes names[i]."""
    literals, names, last = [], [], 0
    for m in string.Template.pattern.finditer(prompt.template):
        name = m.group("named") or m.group("braced")
        if not name:
            continue
        literals.append(prompt.template[last:m.start()])
        names.append(name)
        last = m.end()
    literals.append(prompt.template[last:])
    return literals, names


def _split(prompt: Prompt, text: str) -> dict[str, str] | None:
    """Each placeholder's rendered text: the span up to the next literal (found left to right, so
    linear time; values cannot contain the literals, which are block markers and field labels)."""
    literals, names = _segments(prompt)
    if not text.startswith(literals[0]):
        return None
    pos, out = len(literals[0]), {}
    for name, following in zip(names, literals[1:]):
        end = text.find(following, pos) if following else len(text)
        if end < 0:
            return None
        out[name] = text[pos:end]
        pos = end + len(following)
    return out


def _value(kind: str, optional: bool, raw: str) -> Any:
    if raw == NONE_TEXT and (optional or kind in ("numbered", "lines")):
        return None if optional else []
    if kind == "int":
        return int(raw)
    if kind == "bool":
        return raw == "true"
    if kind == "json":
        return json.loads(_undefuse(raw))
    if kind == "numbered":
        pieces = re.split(r"(?:^|\n\n)\[(\d+)\] ", raw)
        return [_undefuse(p) for p in pieces[2::2]]
    if kind == "lines":
        return [_undefuse(line) for line in raw.split("\n")]
    return _undefuse(raw)


def decode(request: StubRequest) -> tuple[str, dict[str, Any]]:
    """(prompt name, variables) of a generateContent request."""
    schema = request.generation_config.get("responseJsonSchema") or {}
    name = _by_schema()[frozenset(schema.get("properties", {}))]
    prompt = load_prompt(name)
    parts = _split(prompt, request.prompt_text)
    assert parts is not None, f"{name}: the request text does not follow its template"
    variables = {}
    for var in prompt.variables.values():
        value = _value(var.kind, var.optional, parts[var.name])
        if value is not None:
            variables[var.name] = value
    return name, variables


class OfflineResponder:
    """Stub responder: per-prompt answers, else the prompt's offline behaviour."""

    def __init__(self, answers: dict[str, Answer] | None = None):
        self.answers = dict(answers or {})
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def __call__(self, request: StubRequest) -> StubReply:
        name, variables = decode(request)
        with self._lock:
            self.seen.append((name, variables))
        if name in self.answers:
            data = self.answers[name](variables, request)
        else:
            data = offline_behaviours()[name](variables)
        return data if isinstance(data, StubReply) else json_reply(data, request=request)

    def prompts(self) -> list[str]:
        with self._lock:
            return [name for name, _ in self.seen]


def unavailable(_variables: dict[str, Any], _request: StubRequest) -> StubReply:
    """An answer that is always HTTP 503 (overloaded)."""
    return error_reply(503, "The model is overloaded. Please try again later.")
