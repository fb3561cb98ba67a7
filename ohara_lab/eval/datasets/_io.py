"""File helpers shared by the loaders: locate a dataset folder, read JSON with clear errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..dataset import DatasetError


def resolve_dir(data_dir: str | Path, subdir: str, markers: tuple[str, ...]) -> Path:
    """`data_dir` itself if it holds any of `markers`, else `data_dir/subdir` if that does.

    Lets callers pass either a dataset's own folder or a root holding
    `multihop/`, `qasper/`, `musique/` (the layout of the shared datasets folder).
    """
    base = Path(data_dir).expanduser()
    if not base.is_dir():
        raise DatasetError(base, "data directory does not exist")
    for candidate in (base, base / subdir):
        if candidate.is_dir() and any((candidate / m).exists() for m in markers):
            return candidate
    return base


def read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise DatasetError(path, "file not found") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None


def read_records(path: Path, keys: tuple[str, ...], noun: str) -> list[dict[str, Any]]:
    """A JSON list of objects that each hold every one of `keys`; errors name the file and the item."""
    return check_records(read_json(path), path, keys, noun)


def check_records(raw: Any, path: Path, keys: tuple[str, ...], noun: str) -> list[dict[str, Any]]:
    """`raw` (parsed from `path`) if it is a list of objects holding every one of `keys`."""
    expect(isinstance(raw, list), path, f"expected a JSON list of {noun}s")
    for i, item in enumerate(raw):
        expect(
            isinstance(item, dict) and all(k in item for k in keys), path, f"{noun} {i} lacks one of {', '.join(keys)}"
        )
    return raw


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(1-based line number, parsed object) for every non-blank line."""
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 - opened apart so only the open reads as "file not found"
    except FileNotFoundError:
        raise DatasetError(path, "file not found") from None
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=lineno) from None


def expect(cond: bool, path: Path, reason: str, line: int | None = None) -> None:
    """Raise a `DatasetError` naming the file (and line) unless `cond` holds."""
    if not cond:
        raise DatasetError(path, reason, line=line)
