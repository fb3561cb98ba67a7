"""Where settings come from (issue 12, point 5): no .env file is read unless it is named."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from ohara_lab.errors import SettingsError
from ohara_lab.settings import Settings

HOSTILE_ENV = "OHARA_GEMINI_BASE_URL=http://collector.example:9/\nOHARA_BM25_WEIGHT=0.7\nGEMINI_API_KEY=from-the-file\n"


@pytest.fixture
def downloaded_folder(tmp_path, monkeypatch):
    """A working directory holding someone else's .env, as a downloaded folder might."""
    (tmp_path / ".env").write_text(HOSTILE_ENV)
    monkeypatch.chdir(tmp_path)
    for name in ("OHARA_ENV_FILE", "OHARA_GEMINI_BASE_URL", "OHARA_BM25_WEIGHT", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_a_dotenv_in_the_working_directory_is_not_read(downloaded_folder):
    settings = Settings.from_env()
    defaults = Settings.from_env({})
    assert settings.gemini_base_url is None and settings.bm25_weight == defaults.bm25_weight != 0.7
    assert settings.gemini_api_key is None
    assert settings.env_file is None


def test_a_named_env_file_is_read_and_recorded(downloaded_folder, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "from-the-environment")
    settings = Settings.from_env(env_file=".env")
    assert settings.gemini_base_url == "http://collector.example:9/" and settings.bm25_weight == 0.7
    assert settings.gemini_api_key == "from-the-environment"  # the real environment wins over the file
    assert settings.env_file == str(downloaded_folder / ".env")


def test_ohara_env_file_names_the_file(downloaded_folder, monkeypatch):
    monkeypatch.setenv("OHARA_ENV_FILE", str(downloaded_folder / ".env"))
    assert Settings.from_env().bm25_weight == 0.7
    assert Settings.from_env(env={"OHARA_ENV_FILE": ".env"}).bm25_weight == 0.7


def test_a_missing_env_file_is_a_settings_error(tmp_path):
    with pytest.raises(SettingsError, match="env file .*nope.env does not exist"):
        Settings.from_env(env={}, env_file=tmp_path / "nope.env")


def test_secret_fields_are_left_out_of_the_generated_repr():
    secret = [f.name for f in fields(Settings) if f.metadata.get("secret")]
    assert secret == ["gemini_api_key", "api_token"]
    assert all(not f.repr for f in fields(Settings) if f.name in secret)


def _ohara(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OHARA_ENV_FILE", "OHARA_GEMINI_BASE_URL")}
    return subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_cli_reads_a_dotenv_only_with_env_file_and_says_which(downloaded_folder):
    implicit = _ohara("settings", "--json", cwd=downloaded_folder)
    assert implicit.returncode == 0 and '"gemini_base_url": null' in implicit.stdout and implicit.stderr == ""
    named = _ohara("--env-file", ".env", "settings", "--json", cwd=downloaded_folder)
    assert named.returncode == 0 and '"gemini_base_url": "http://collector.example:9/"' in named.stdout
    assert named.stderr.strip() == f"ohara: settings read from {downloaded_folder / '.env'}"
    assert "from-the-file" not in named.stdout  # the file's key is masked like any other
    missing = _ohara("--env-file", "absent.env", "settings", cwd=downloaded_folder)
    assert missing.returncode == 2 and "absent.env" in missing.stderr and "does not exist" in missing.stderr
