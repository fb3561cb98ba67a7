"""Zip containers (DOCX, EPUB): what the members would unpack to, checked before any is read.

A zip's central directory declares each member's uncompressed size, and Python's
`zipfile` (which mammoth and ebooklib read through) never inflates a member past
its declared size: it stops there and fails the CRC check. So the declared sizes
bound the memory and time of everything downstream, and a bomb is refused here,
before a byte of it is inflated, when

* the members declare more than `max_unpacked_mb` MiB in total, or
* one member declares more than `max_unpack_ratio` times its compressed size,
  once it is larger than `RATIO_GRACE` (a small member cannot hurt, whatever its ratio), or
* the archive lists more than `MAX_MEMBERS` members (each costs the readers ~1 KB of
  memory and a lookup; 200,000 empty members in 18 MB took ebooklib 10 s and 250 MB).

The ratio rule is Apache POI's `ZipSecureFile` (minimum inflate ratio 0.01, i.e. 100:1,
checked per entry past a grace size): ordinary Office and EPUB parts compress 3-30x,
a bomb 500-1000x.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ..errors import ParseError
from ..settings import Settings
from .source import MIB

RATIO_GRACE = MIB
MAX_MEMBERS = 10_000  # large EPUBs (comics, atlases) hold a few thousand files; a DOCX a few dozen


def _size(n: int) -> str:
    return f"{n / MIB:,.1f} MiB" if n >= MIB else f"{n:,} bytes"


def check_expansion(path: Path, data: bytes, max_unpacked_mb: float, max_ratio: float) -> None:
    """Refuse a zip whose members declare more than the limits allow (see the module docstring)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a readable zip: the format's sniff check says so in its own words
    if len(members) > MAX_MEMBERS:
        raise ParseError(path, f"zip archive lists {len(members):,} members, more than {MAX_MEMBERS:,}; refusing to read them")
    total = sum(m.file_size for m in members)
    if total > max_unpacked_mb * MIB:
        biggest = max(members, key=lambda m: m.file_size)
        raise ParseError(
            path,
            f"zip bomb? members would unpack to {_size(total)} (largest {biggest.filename!r}: "
            f"{_size(biggest.file_size)}), over the {max_unpacked_mb:g} MiB limit (max_unpacked_mb)",
        )
    for m in members:
        if m.file_size > RATIO_GRACE and m.file_size > max_ratio * max(m.compress_size, 1):
            raise ParseError(
                path,
                f"zip bomb? member {m.filename!r} would unpack {_size(m.compress_size)} to {_size(m.file_size)} "
                f"({m.file_size / max(m.compress_size, 1):,.0f}:1), over the {max_ratio:g}:1 limit (max_unpack_ratio)",
            )


def guard(path: Path, data: bytes, settings: Settings) -> None:
    """The registry's cost check for zip containers."""
    check_expansion(path, data, settings.max_unpacked_mb, settings.max_unpack_ratio)


def read_capped(path: Path, archive: zipfile.ZipFile, name: str, cap: int) -> bytes:
    """A member's bytes, refusing members larger than `cap` without inflating more than `cap` of them."""
    with archive.open(name) as member:
        data = member.read(cap + 1)
    if len(data) > cap:
        raise ParseError(path, f"zip member {name!r} is larger than {_size(cap)}; refusing to read it")
    return data
