"""Turn a model's raw text into schema-validated data, or say precisely why not.

Parsing is tolerant the way the original system's was (spec §2.7): try the text as
is, then without markdown code fences, then with invalid backslash escapes doubled,
then the outermost ``{...}`` without trailing commas. Validation is strict: the
prompt's JSON Schema decides, and its message goes back to the model on the one retry.
"""
from __future__ import annotations

import functools
import json
import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from .prompts import Prompt

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)\n?\s*```", re.DOTALL)
# A backslash not starting a valid JSON escape (\" \\ \/ \b \f \n \r \t \uXXXX).
_BAD_ESCAPE = re.compile(r'\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})')
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class ReplyInvalid(ValueError):
    """The reply is not JSON, or not JSON of the prompt's schema. The message is model-readable."""


def _candidates(text: str) -> list[str]:
    stripped = text.strip()
    out = [stripped]
    fenced = _FENCE.search(stripped)
    if fenced:
        out.append(fenced.group(1).strip())
    out.append(_BAD_ESCAPE.sub(r"\\\\", out[-1]))
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        outer = _TRAILING_COMMA.sub(r"\1", stripped[start : end + 1])
        out += [outer, _BAD_ESCAPE.sub(r"\\\\", outer)]
    return out


def extract_json(text: str | None) -> Any:
    """The JSON value in `text` (see module doc); ReplyInvalid when there is none."""
    if text is None or not text.strip():
        raise ReplyInvalid("the reply was empty; expected one JSON object")
    first_error = None
    for candidate in _candidates(text):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
    raise ReplyInvalid(f"the reply is not valid JSON ({first_error.msg} at line {first_error.lineno} column {first_error.colno})")


@functools.cache
def _validator(prompt_name: str, schema_json: str) -> Draft202012Validator:
    schema = json.loads(schema_json)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validator_for(prompt: Prompt) -> Draft202012Validator:
    return _validator(prompt.name, json.dumps(prompt.schema, sort_keys=True))


def validate(prompt: Prompt, data: Any) -> dict[str, Any]:
    """`data` if it satisfies the prompt's schema; ReplyInvalid naming the first violation."""
    if not isinstance(data, dict):
        raise ReplyInvalid(f"the reply must be a JSON object, got {type(data).__name__}")
    errors = list(validator_for(prompt).iter_errors(data))
    if errors:
        err = best_match(errors)
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        message = err.message if len(err.message) <= 300 else err.message[:297] + "..."
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise ReplyInvalid(f"schema violation at {where}: {message}{more}")
    return data


def parse_and_validate(prompt: Prompt, text: str | None) -> dict[str, Any]:
    """Raw model text -> validated reply data."""
    return validate(prompt, extract_json(text))
