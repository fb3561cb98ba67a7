"""What ingest reads: files found under the given paths, or documents given as text."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
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


@dataclass(frozen=True)
class Source:
    """A file to ingest and the folder the file it opens must lie in (None: wherever it points)."""

    path: Path
    root: Path | None = None
    single_name: bool = False  # refuse hard links (the MCP server's ingest roots)


def expand_paths(paths: Iterable[str | Path], *, follow_links: bool = False) -> tuple[list[Path], list[FileOutcome]]:
    """Files to ingest (directories recurse, sorted) and outcomes for paths that cannot be (see `expand_sources`)."""
    sources, problems = expand_sources(paths, follow_links=follow_links)
    return [s.path for s in sources], problems


def expand_sources(paths: Iterable[str | Path], *, follow_links: bool = False,
                   roots: Sequence[Path] = ()) -> tuple[list[Source], list[FileOutcome]]:
    """Files to ingest (directories recurse, sorted), each with its confining folder, and outcomes for
    paths that cannot be.

    A symbolic link inside a directory that resolves outside it (`notes/passwd.md ->
    /etc/passwd`) is skipped, with the reason, unless `follow_links`: pointing ingest
    at a downloaded folder must not read the rest of the machine. The check is made
    again on the file opened (`parse.source.read_checked`), so a file swapped for a
    link after this listing is refused too. Paths named directly are read wherever
    they point, unless `roots` (resolved folders) is given: then every file must lie,
    when opened, under the root it was found in, follow_links or not, and hard links
    are refused.
    """
    files: list[Path] = []
    confined: dict[Path, Path | None] = {}
    problems: list[FileOutcome] = []
    for raw in paths:
        p = Path(raw)
        if not p.is_dir():
            files.append(p)  # missing or unsupported files fail with their reason in ingest_file
            confined.setdefault(p, _root_of(p, roots) if roots else None)
            continue
        found = _found(p)
        if not found:
            problems.append(_empty(p))
        root = _root_of(p, roots) if roots else p.resolve()
        for f in found:
            if (follow_links and not roots) or f.resolve().is_relative_to(root):
                files.append(f)
                confined.setdefault(f, None if follow_links and not roots else root)
            else:
                hint = "" if roots else " (ingest with --follow-links to read it)"
                problems.append(FileOutcome(str(f), "skipped", None,
                                            f"symbolic link to {f.resolve()}, outside {root if roots else p}{hint}"))
    return [Source(f, confined.get(f), bool(roots)) for f in dict.fromkeys(files)], problems


def _root_of(p: Path, roots: Sequence[Path]) -> Path:
    """The ingest root `p` lies in (the first, when none: the read then refuses it, naming that root)."""
    resolved = p.resolve()
    return next((r for r in roots if resolved.is_relative_to(r)), roots[0])


def _found(p: Path) -> list[Path]:
    return sorted(f for f in p.rglob("*") if f.is_file() and is_supported(f) and not _hidden(f, p))


def _empty(p: Path) -> FileOutcome:
    return FileOutcome(str(p), "failed", None, f"no supported files in directory ({', '.join(SUPPORTED_EXTENSIONS)})")


def _hidden(f: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in f.relative_to(root).parts)
