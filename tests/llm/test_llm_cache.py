"""The content-hash reply cache."""
from __future__ import annotations

import hashlib
import json

from ohara_lab.llm.cache import ReplyCache, cache_key, default_cache_dir
from ohara_lab.settings import Settings


def test_key_is_sha256_of_name_version_model_and_canonical_variables():
    key = cache_key("answer", "1", "gemini-2.5-flash-lite", {"b": 1, "a": "x"})
    expected = hashlib.sha256('["answer","1","gemini-2.5-flash-lite",{"a":"x","b":1}]'.encode()).hexdigest()
    assert key == expected
    assert key == cache_key("answer", "1", "gemini-2.5-flash-lite", {"a": "x", "b": 1})  # order-free
    assert key != cache_key("answer", "2", "gemini-2.5-flash-lite", {"a": "x", "b": 1})
    assert key != cache_key("answer", "1", "gemini-2.5-flash", {"a": "x", "b": 1})
    assert key != cache_key("answer", "1", "gemini-2.5-flash-lite", {"a": "y", "b": 1})


def test_put_get_layout_and_atomicity(tmp_path):
    cache = ReplyCache(tmp_path)
    key = cache_key("p", "1", "m", {})
    assert cache.get(key) is None
    cache.put(key, prompt="p", version="1", model="m", data={"x": 1}, usage={"calls": 1})
    path = tmp_path / key[:2] / f"{key}.json"
    assert path.is_file()
    assert json.loads(path.read_text())["data"] == {"x": 1}
    assert cache.get(key) == {"x": 1}
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp files left behind
    assert len(cache) == 1


def test_corrupt_or_rejected_entries_are_misses(tmp_path):
    cache = ReplyCache(tmp_path)
    key = cache_key("p", "1", "m", {})
    cache.put(key, prompt="p", version="1", model="m", data={"x": 1}, usage={})
    def reject(data):
        raise ValueError("stale schema")
    assert cache.get(key, check=reject) is None
    cache.path(key).write_text("{truncated")
    assert cache.get(key) is None


def test_default_dir_follows_settings(tmp_path):
    assert default_cache_dir(Settings(atlas=str(tmp_path))) == tmp_path / "llm_cache"
    assert default_cache_dir(Settings(llm_cache_dir=str(tmp_path / "c"))) == tmp_path / "c"
    assert str(default_cache_dir(Settings(atlas="arangodb://h:8529/db"))) == ".ohara_llm_cache"
