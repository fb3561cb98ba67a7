"""Secrets never reach output (issue 12, point 6).

Unit cases for `ohara_lab.redact`, then the real `ohara` command driven down every
error path we know - unreachable and malformed ArangoDB URLs, bad input files, a
Gemini endpoint (a real local server) that echoes the API key back in its error,
`ohara settings` - with a password and keys planted, and all output grepped for them.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ohara_lab import Atlas, Settings
from ohara_lab.errors import IngestError, StoreError
from ohara_lab.redact import redact

from tests.llm.gemini_stub import EMBED, GENERATE, GeminiStub, error_reply
from tests.support import OFFLINE

KEY = "AIzaSyPLANTED-gemini-0001"
ARANGO_PASSWORD = "planted-arango-pw-0002"
URL_PASSWORD = "planted-url-pw-0003"
API_TOKEN = "planted-api-token-0004"
PLANTED = (KEY, ARANGO_PASSWORD, URL_PASSWORD, API_TOKEN)


@pytest.mark.parametrize("text, expected", [
    ("arangodb://root:S3cret@db:8529/ohara", "arangodb://root:***@db:8529/ohara"),
    ("'http://u:p@ss@h1:8529,h2:8529/db?x=1'", "'http://u:***@h1:8529,h2:8529/db?x=1'"),  # a raw "@" in the password
    ("arangodb://root@db/ohara", "arangodb://root@db/ohara"),  # no password, nothing to hide
    ("https://proxy/v1?key=AIzaX&alt=json", "https://proxy/v1?key=***&alt=json"),
    ("GET /x?access_token=abc123 failed", "GET /x?access_token=*** failed"),
    ("see http://host/p?u=a@b and write to a@b.c", "see http://host/p?u=a@b and write to a@b.c"),
])
def test_redact_masks_url_credentials(text, expected):
    assert redact(text) == expected
    assert redact(expected) == expected  # idempotent


def test_redact_masks_known_secret_values_but_not_short_words():
    assert redact(f"reply echoed {KEY} twice: {KEY}", [KEY, None, "", "ab"]) == "reply echoed *** twice: ***"
    assert redact("ab abc", ["ab"]) == "ab abc"


def test_errors_mask_credentials_in_message_args_and_reason():
    store = StoreError(f"cannot reach arangodb://root:{URL_PASSWORD}@db/ohara")
    ingest = IngestError("notes.md", f"fetched from http://u:{URL_PASSWORD}@host/x")
    for text in (str(store), repr(store), str(store.args), str(ingest), ingest.reason):
        assert URL_PASSWORD not in text and "***" in text


def test_settings_repr_and_dict_hide_the_key_and_url_passwords():
    settings = Settings(gemini_api_key=KEY, atlas=f"arangodb://root:{URL_PASSWORD}@db/ohara",
                        gemini_base_url=f"https://proxy.example/?key={KEY}")
    for text in (repr(settings), str(settings), str(settings.to_dict()), repr([settings])):
        assert KEY not in text and URL_PASSWORD not in text, text
    assert settings.to_dict()["gemini_api_key"] == "***" and settings.gemini_api_key == KEY
    assert settings.to_dict()["atlas"] == "arangodb://root:***@db/ohara"
    assert settings.secrets() == [KEY]
    assert Settings().to_dict()["gemini_api_key"] is None  # unset is not "***"


# --------------------------------------------------------------------------- every error path, through the CLI


def _ohara(*args: str, env: dict[str, str]) -> subprocess.Popen:
    """Start `ohara ARGS`; the runs go in parallel (an unreachable ArangoDB alone waits ~20 s in retries)."""
    return subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """An atlas, a broken input file, and an environment holding every planted secret."""
    root = tmp_path_factory.mktemp("secrets")
    (root / "notes.md").write_text("# Notes\n\nAlice Smith counted crabs in Brittany.\n")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 nothing else")
    with Atlas.open(root / "atlas", **OFFLINE, ner="rules") as atlas:
        assert atlas.ingest([root / "notes.md"], progress=False).ok
    env = {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}, "OHARA_NER": "rules",
           "GEMINI_API_KEY": KEY, "ARANGO_PASSWORD": ARANGO_PASSWORD, "OHARA_API_TOKEN": API_TOKEN,
           "OHARA_GEMINI_MAX_RETRIES": "1"}
    return root, env


def test_no_error_path_prints_a_planted_secret(planted):
    root, env = planted
    atlas = str(root / "atlas")
    url = f"arangodb://root:{URL_PASSWORD}@127.0.0.1:1/ohara"
    runs = {
        "unreachable ArangoDB": _ohara("stats", "--atlas", url, env=env),
        "URL with a query string": _ohara("stats", "--atlas", url + "?timeout=1", env=env),
        "URL without a host": _ohara("ls", "--atlas", f"http://root:{URL_PASSWORD}@/ohara", env=env),
        "URL with a path": _ohara("query", "crabs", "--atlas", f"{url}/extra", env=env),
        "ARANGO_URL from the environment": _ohara("check", env={**env, "ARANGO_URL": url}),
        "settings": _ohara("settings", env={**env, "OHARA_ATLAS": url}),
        "settings --json": _ohara("settings", "--json", env={**env, "OHARA_GEMINI_BASE_URL": f"http://u:{URL_PASSWORD}@p/"}),
        "bad input file": _ohara("ingest", str(root / "broken.pdf"), "--atlas", atlas, env=env),
        "query --json (settings inside)": _ohara("query", "crabs", "--json", "--atlas", atlas,
                                                 env={**env, "OHARA_GEMINI_BASE_URL": f"http://u:{URL_PASSWORD}@p/"}),
    }
    with GeminiStub() as stub:  # a Gemini endpoint that echoes the key it was sent in every error
        for kind in (GENERATE, EMBED):
            stub.respond_with(lambda request: error_reply(400, f"API key not valid: {request.api_key}"), kind=kind)
        gemini = {**env, "OHARA_LLM": "gemini", "OHARA_GEMINI_BASE_URL": stub.base_url}
        runs["Gemini answer"] = _ohara("answer", "Who counted crabs?", "--atlas", atlas, env=gemini)
        runs["Gemini ingest"] = _ohara("ingest", str(root / "notes.md"), "--force", "--atlas", atlas, env=gemini)
        runs["Gemini embed"] = _ohara("embed", "--embedder", "gemini", "--atlas", atlas, env=gemini)
        outputs = {name: (run.communicate(timeout=300), run.returncode) for name, run in runs.items()}
        assert any(r.api_key == KEY for r in stub.requests)  # the key did travel, and came back
    for name, ((stdout, stderr), _) in outputs.items():
        leaked = [s for s in PLANTED if s in stdout + stderr]
        assert not leaked, f"{name} printed {leaked}:\n{stdout}{stderr}"
    assert "root:***@" in outputs["unreachable ArangoDB"][0][1] + outputs["URL with a query string"][0][1]
    (_, embed_err), embed_status = outputs["Gemini embed"]
    assert embed_status == 1 and "API key not valid: ***" in embed_err
