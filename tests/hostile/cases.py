"""The hostile corpus: each case is an input, what `ohara ingest` must do with it, and its budget.

`expect` is the status of the one per-file line: "failed" (exit 1, the atlas
unchanged), "skipped" (exit 0, the atlas unchanged) or "ingested" (exit 0, the
atlas sound) for hostile-looking input that holds real text and is read within
bounds. `reason` must appear in that line. Budgets are CPU seconds and peak
resident MiB of the one `ohara ingest` process; they are several times what the
fixed code needs here, and far below what the unfixed code took (issue 12).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tests.hostile import builders as b

# What the XXE case tries to read; planted by the case, looked for in the atlas after.
XXE_SECRET = "PLANTED-XXE-SECRET-7f3a"
# A file name a shell would run; the case checks the command never ran.
SHELL_NAME = "$(touch PWNED); `touch PWNED2` | rm -rf x & 'q\"*?.md"


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path], Path]  # writes the input under the given folder, returns what to ingest
    expect: str  # failed | skipped | ingested
    reason: str  # text the per-file line must contain
    env: dict[str, str] = field(default_factory=dict)  # extra settings for this case
    cpu_s: float = 20.0
    peak_mib: float = 400.0
    slow: bool = False
    # After the run: extra checks given (input folder, atlas folder); raise AssertionError.
    verify: Callable[[Path, Path], None] | None = None


def _in(folder: Path, name: str, build: Callable[[Path], Path]) -> Path:
    return build(folder / name)


def _fifo(folder: Path) -> Path:
    path = folder / "pipe.md"
    os.mkfifo(path)
    return path


def _loop(folder: Path) -> Path:
    (folder / "a.md").symlink_to(folder / "b.md")
    (folder / "b.md").symlink_to(folder / "a.md")
    return folder / "a.md"


def _link_out(folder: Path) -> Path:
    """A downloaded folder holding `passwd.md -> <a private file outside it>` (issue 12, point 4)."""
    private = folder / "private.txt"
    private.write_text(f"# Private\n\nroot:x:0:0:{XXE_SECRET}:/root:/bin/bash\n")
    (folder / "downloaded").mkdir()
    (folder / "downloaded" / "passwd.md").symlink_to(private)
    return folder / "downloaded"


def _shell_name(folder: Path) -> Path:
    path = folder / SHELL_NAME
    path.write_bytes(b"# Title\n\ncaf\xe9 is not UTF-8\n")
    return path


def _no_shell_ran(folder: Path, atlas: Path) -> None:
    for where in (folder, atlas, Path.cwd()):
        assert not (where / "PWNED").exists() and not (where / "PWNED2").exists(), where


def _xxe(folder: Path) -> Path:
    secret = folder / "secret.txt"
    secret.write_text(XXE_SECRET + "\n")
    return b.epub_xxe(folder / "xxe.epub", str(secret))


def _secret_not_read(folder: Path, atlas: Path) -> None:
    db = atlas / "atlas.db"
    for path in [db, *atlas.glob("atlas.db-*")]:
        assert XXE_SECRET.encode() not in path.read_bytes(), path


def _deep_html(folder: Path) -> Path:
    path = folder / "deep.html"
    path.write_text(b.deep_html(5000), encoding="utf-8")
    return path


CASES: tuple[Case, ...] = (
    # 1. zip bombs
    Case("epub_member_32mib", lambda d: b.epub_bomb(d / "bomb.epub", 32), "failed", "max_unpack_ratio"),
    Case("epub_member_1gib", lambda d: b.epub_bomb(d / "bomb.epub", 1024), "failed", "max_unpacked_mb", slow=True),
    Case("docx_text_32mib", lambda d: b.docx_text_bomb(d / "text.docx", 32), "failed", "max_unpack_ratio"),
    Case("docx_text_256mib", lambda d: b.docx_text_bomb(d / "text.docx", 256), "failed", "zip bomb?", slow=True),
    Case("docx_content_types_64mib", lambda d: b.docx_content_types_bomb(d / "types.docx", 64), "failed",
         "'[Content_Types].xml' is larger than"),
    Case("docx_content_types_1gib", lambda d: b.docx_content_types_bomb(d / "types.docx", 1024), "failed",
         "'[Content_Types].xml' is larger than", slow=True),
    Case("docx_understated_size", lambda d: b.docx_understated(d / "liar.docx", 64), "failed", "Bad CRC-32"),
    # 2. one huge paragraph
    Case("markdown_line_256kb_rules", lambda d: b.markdown_one_line(d / "line.md", 256 * 1024), "ingested",
         "1 paragraphs", env={"OHARA_NER": "rules"}),
    Case("markdown_token_1mb", lambda d: b.markdown_one_token(d / "blob.md", 1 << 20), "ingested", "paragraphs",
         env={"OHARA_NER": "rules"}),
    Case("markdown_line_1mb_spacy", lambda d: b.markdown_one_line(d / "line.md", 1 << 20), "ingested",
         "1 paragraphs", env={"OHARA_NER": "spacy"}, cpu_s=300, peak_mib=1200, slow=True),
    # 3. PDF page amplification
    Case("pdf_one_page_100k_times", lambda d: b.pdf_repeated_page(d / "pages.pdf", 100_000), "failed",
         "more than the 10,000 limit (max_pdf_pages)"),
    Case("pdf_one_page_5k_times", lambda d: b.pdf_repeated_page(d / "pages.pdf", 5000), "failed",
         "repeats page objects"),
    Case("pdf_over_page_cap", lambda d: b.pdf_pages(d / "long.pdf", 60), "failed", "max_pdf_pages",
         env={"OHARA_MAX_PDF_PAGES": "50"}),
    # 10. deep HTML
    Case("html_5000_deep", _deep_html, "ingested", "paragraphs"),
    # already refused or harmless before issue 12; kept so they stay that way
    Case("epub_billion_laughs", lambda d: b.epub_billion_laughs(d / "laughs.epub"), "ingested", "paragraphs"),
    Case("epub_xxe", _xxe, "ingested", "paragraphs", verify=_secret_not_read),
    Case("docx_billion_laughs_core", lambda d: b.docx_billion_laughs_core(d / "laughs.docx"), "failed",
         "amplification"),
    Case("shell_metacharacters", _shell_name, "failed", "not UTF-8 text", verify=_no_shell_ran),
    Case("fifo", _fifo, "failed", "not a regular file"),
    Case("symlink_loop", _loop, "failed", "no such file"),
    # 4. links out of an ingested folder
    Case("symlink_out_of_folder", _link_out, "skipped", "outside", verify=_secret_not_read),
)


def by_name(name: str) -> Case:
    return next(c for c in CASES if c.name == name)
