"""`ohara answer` and `ohara query --cor/--agent` through click's CliRunner, offline."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from ohara_lab.cli import main

QUESTION = "When was the GNU General Public License version 3 published?"


@pytest.fixture
def run(corpus_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stray .env
    env = {"OHARA_LLM": "offline", "OHARA_EMBEDDER": "none", "OHARA_NER": "rules", "GEMINI_API_KEY": ""}

    def invoke(*args):
        return CliRunner().invoke(main, [*args, "--atlas", str(corpus_path)], env=env, catch_exceptions=False)

    return invoke


def test_ohara_answer_prints_the_answer_and_its_citations(run):
    out = run("answer", QUESTION)
    assert out.exit_code == 0, out.output
    lines = out.output.strip().splitlines()
    cites = [line for line in lines[1:] if line.startswith("[")]
    assert cites and all("(documents/" in line and "score=" in line for line in cites)
    used = set(re.findall(r"\[(\d+)\]", lines[0]))
    listed = {re.match(r"\[(\d+)\]", line).group(1) for line in cites}
    assert "2007" in lines[0] and used and used <= listed  # every marker in the answer is a listed citation


def test_ohara_answer_json_and_modes(run):
    data = json.loads(run("answer", QUESTION, "--json").output)
    assert data["answer"] and data["citations"] and data["retrieval"]["tiers"]["principal"]
    assert json.loads(run("answer", QUESTION, "--agent", "--json").output)["mode"] == "agent"
    assert json.loads(run("answer", QUESTION, "--cor", "--json").output)["mode"] == "cor"


def test_ohara_answer_says_when_evidence_is_insufficient(run):
    out = run("answer", "What is the boiling point of mercury in kelvin?")
    assert out.exit_code == 0 and out.output.startswith("Insufficient evidence")
    assert len(out.output.strip().splitlines()) == 1  # no citation lines


def test_ohara_query_modes_emit_their_fields(run):
    cor = json.loads(run("query", QUESTION, "--cor", "--json").output)
    assert cor["mode"] == "cor" and cor["cor_iter_count"] >= 1
    agent = json.loads(run("query", QUESTION, "--agent", "--json").output)
    assert agent["agent_trace"] and agent["agent_tool_history"][0] == "bm25"
