"""Reading an input file, refusing what is not a readable regular file within the size limit."""
from __future__ import annotations

from pathlib import Path

from ..errors import ParseError

MIB = 1024 * 1024


def check_path(path: Path) -> None:
    """Fail unless `path` names an existing regular file."""
    if not path.exists():
        raise ParseError(path, "file does not exist")
    if path.is_dir():
        raise ParseError(path, "is a directory, not a file")
    if not path.is_file():
        # Devices and FIFOs report size 0 but may never end (/dev/zero).
        raise ParseError(path, "not a regular file")


def read_bytes(path: Path, max_file_mb: float) -> bytes:
    """The file's bytes, after checking its size against `max_file_mb` (MiB) without reading it."""
    try:
        size = path.stat().st_size
        if size > max_file_mb * MIB:
            raise ParseError(
                path,
                f"file is {size / MIB:.1f} MiB, larger than the {max_file_mb:g} MiB limit (max_file_mb)",
            )
        return path.read_bytes()
    except OSError as exc:
        raise ParseError(path, f"cannot read file: {exc.strerror or exc}") from exc
