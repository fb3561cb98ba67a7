"""What ingest reads: files found under the given paths, or documents given as text."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..parse import SUPPORTED_EXTENSIONS, is_supported
from ..records import FileOutcome


@dataclass
class TextItem:
    """A document given as text: what `ingest_texts` takes (evaluation corpora, notebooks)."""

    text: str
    title: str
    source_id: str  # plays the role of the file path: same id + same text = same document
    metadata: dict[str, Any] = field(default_factory=dict)


def expand_paths(paths: Iterable[str | Path], *, follow_links: bool = False) -> tuple[list[Path], list[FileOutcome]]:
    """Files to ingest (directories recurse, sorted) and outcomes for paths that cannot be.

    A symbolic link inside a directory that resolves outside it (`notes/passwd.md ->
    /etc/passwd`) is skipped, with the reason, unless `follow_links`: pointing ingest
    at a downloaded folder must not read the rest of the machine. Paths named
    directly are read wherever they point.
    """
    files: list[Path] = []
    problems: list[FileOutcome] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and is_supported(f) and not _hidden(f, p))
            if not found:
                problems.append(FileOutcome(str(p), "failed", None,
                                            f"no supported files in directory ({', '.join(SUPPORTED_EXTENSIONS)})"))
            root = p.resolve()
            for f in found:
                if follow_links or f.resolve().is_relative_to(root):
                    files.append(f)
                else:
                    problems.append(FileOutcome(str(f), "skipped", None, f"symbolic link to {f.resolve()}, outside "
                                                f"{p} (ingest with --follow-links to read it)"))
        else:
            files.append(p)  # missing or unsupported files fail with their reason in ingest_file
    return list(dict.fromkeys(files)), problems


def _hidden(f: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in f.relative_to(root).parts)
