"""Tolerant JSON extraction and strict schema validation of model replies."""
from __future__ import annotations

import pytest

from ohara_lab.llm import load_prompt
from ohara_lab.llm.reply import ReplyInvalid, extract_json, parse_and_validate, validate


@pytest.mark.parametrize(
    "text",
    [
        '{"responsive": true, "reason": "ok"}',
        '```json\n{"responsive": true, "reason": "ok"}\n```',
        'Sure! Here it is:\n{"responsive": true, "reason": "ok"}\nHope that helps.',
        '{"responsive": true, "reason": "ok",}',
    ],
)
def test_extracts_json_from_common_wrappings(text):
    assert extract_json(text) == {"responsive": True, "reason": "ok"}


def test_invalid_backslash_escapes_are_repaired():
    assert extract_json(r'{"reason": "a \alpha and \( x \)"}') == {"reason": r"a \alpha and \( x \)"}


@pytest.mark.parametrize("text", ["", "   ", None, "no json here", "{broken"])
def test_non_json_is_rejected_with_a_reason(text):
    with pytest.raises(ReplyInvalid):
        extract_json(text)


def test_schema_violation_names_the_path():
    prompt = load_prompt("self_rag_verify")
    with pytest.raises(ReplyInvalid, match="reason"):
        validate(prompt, {"responsive": True, "reason": "x" * 101})
    with pytest.raises(ReplyInvalid, match="must be a JSON object"):
        validate(prompt, [1, 2])
    assert parse_and_validate(prompt, '{"responsive": false, "reason": "r"}') == {"responsive": False, "reason": "r"}
