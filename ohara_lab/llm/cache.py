"""Content-hash cache of validated LLM replies (and embedding vectors).

Key = SHA-256 over the JSON array ``[prompt name, prompt version, model, variables]``
with the variables in canonical JSON (sorted keys, no whitespace). Bumping a prompt's
version or changing the model therefore misses the cache, while re-ingesting the same
chunk hits it — which is what makes replays free and tests deterministic.

Files live at ``<cache_dir>/<key[:2]>/<key>.json`` and are written atomically
(temp file in the same directory, then ``os.replace``), so a crash or two writers
racing on the same key leave either no entry or a whole one.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..settings import Settings


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(prompt: str, version: str, model: str, variables: dict[str, Any]) -> str:
    """SHA-256 hex of (prompt name, prompt version, model, canonical variables)."""
    payload = canonical_json([prompt, str(version), model, variables])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_cache_dir(settings: Settings) -> Path:
    """`settings.llm_cache_dir`, else `<atlas>/llm_cache` for a directory atlas, else ./.ohara_llm_cache."""
    if settings.llm_cache_dir:
        return Path(settings.llm_cache_dir)
    if "://" in settings.atlas:  # a database URL has no directory to put files in
        return Path(".ohara_llm_cache")
    return Path(settings.atlas) / "llm_cache"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so readers see the old file or the whole new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class ReplyCache:
    """Validated replies on disk, one JSON file per key."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, check: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any] | None:
        """The stored reply data, or None when absent, unreadable or rejected by `check`.

        `check` re-validates against the current schema: an entry written before a schema
        change without a version bump is treated as a miss rather than served.
        """
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
            data = entry["data"]
            if check is not None:
                check(data)
            return data
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, *, prompt: str, version: str, model: str, data: dict[str, Any], usage: dict[str, Any]) -> None:
        entry = {
            "key": key,
            "prompt": prompt,
            "version": version,
            "model": model,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "usage": usage,  # what the reply originally cost, for audits
            "data": data,
        }
        atomic_write_bytes(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1).encode("utf-8"))

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("??/*.json")) if self.directory.is_dir() else 0
