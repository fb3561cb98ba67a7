"""Reading an input file, refusing what is not a readable regular file within the size limit."""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
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


# Opened once, checked on the descriptor, read from it (issue 28.1): a path checked and then opened
# again can be swapped for a link in between (TOCTOU). O_NOFOLLOW refuses a final link that appeared
# since the check; O_NONBLOCK keeps a FIFO swapped in from blocking the open (fstat then refuses it).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class ReadFile:
    """A file's bytes as read from one descriptor, with what `fstat` said of that descriptor."""

    data: bytes
    size: int
    real_path: str  # where the descriptor points (/proc/self/fd), links and '..' resolved


def read_checked(path: Path, max_file_mb: float, *, root: Path | None = None, single_name: bool = False,
                 after_check: Callable[[Path], None] | None = None) -> ReadFile:
    """`path`'s bytes, read through one descriptor that is checked, not the path.

    `root`: the file opened must lie under this folder (a folder ingest, the MCP server's
    ingest roots); links inside it are resolved once, before the open, and a link that
    appears afterwards is refused. `single_name`: a file with more than one hard link is
    refused (another name may lie outside the root, and no path check can see it).
    `after_check` runs between the path check and the open: the seam a test swaps the
    file in (nothing else sets it).
    """
    check_path(path)
    target = path.resolve() if root is not None else path
    if after_check is not None:
        after_check(path)
    try:
        fd = os.open(target, _OPEN_FLAGS if root is not None else _OPEN_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ParseError(path, "became a symbolic link after it was checked: refused") from exc
        raise ParseError(path, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ParseError(path, "not a regular file")
        real = _real_path(fd, target)
        if root is not None and not Path(real).is_relative_to(root):
            raise ParseError(path, f"the file opened is {real}, outside {root}: refused")
        if single_name and st.st_nlink > 1:
            raise ParseError(path, f"has {st.st_nlink} hard links; another name may lie outside {root}: refused "
                                   "(copy the file into the folder instead)")
        if st.st_size > max_file_mb * MIB:
            raise ParseError(path, f"file is {st.st_size / MIB:.1f} MiB, larger than the {max_file_mb:g} MiB limit "
                                   "(max_file_mb)")
        if os.get_blocking(fd) is False:
            os.set_blocking(fd, True)
        data = _read_all(fd, int(max_file_mb * MIB) + 1)
        if len(data) > max_file_mb * MIB:  # it grew after fstat
            raise ParseError(path, f"file grew past the {max_file_mb:g} MiB limit while it was read (max_file_mb)")
        return ReadFile(data, len(data), real)
    except OSError as exc:
        raise ParseError(path, f"cannot read file: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def _real_path(fd: int, opened: Path) -> str:
    """Where descriptor `fd` points: /proc/self/fd on Linux; elsewhere the opened path resolved."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return str(opened.resolve())


def _read_all(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes from `fd` (a file growing after fstat is cut, not read on without end)."""
    chunks: list[bytes] = []
    got = 0
    while got < limit:
        block = os.read(fd, min(1 << 20, limit - got))
        if not block:
            break
        chunks.append(block)
        got += len(block)
    return b"".join(chunks)
