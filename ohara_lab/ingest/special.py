"""Special sections found before chunking (spec §2.4): the table of contents,
which is cut out of the body, and the glossary, whose entries are collected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

TOC_HEADING = re.compile(r"^\s{0,3}#{1,4}\s+(table\s+of\s+contents?|contents?|toc)\s*#*\s*$", re.I)
GLOSSARY_HEADING = re.compile(
    r"^\s{0,3}(#{1,4})\s+.*\b(glossary|terms\s*(?:&|and)?\s*definitions?|abbreviations|key\s+terms)\b.*$", re.I)
ANY_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# "Chapter 1: Introduction | 2", "History of Bitcoin | 3", "xii | Preface": running heads of PDF pages.
RUNNING_HEAD = re.compile(r"^(\d+|[ivxlcdm]+)\s*\|\s*\S.*$|^\S.*\|\s*(\d+|[ivxlcdm]+)$", re.I)
LINK_ENTRY = re.compile(r"^\s*(?:[-*+]\s+|\d+\.\s+)?\[([^\]]+)\]\(#[^)]*\)")
NUMBERED_BOLD = re.compile(r"^\s*(?:\d+\.\s+)?\*\*(.+?)\*\*\s*$")
# Leaders are "[ \t]*." repeated: each repetition owns its spaces, so no catastrophic backtracking.
DOTTED = re.compile(r"^\s*[-*+]?\s*(.+?)(?:[ \t]*\.){3,}[ \t]*(\d+)\s*$")
PAGE_LINE = re.compile(r"^\s*\*\*([\divxlc\s]+)\*\*\s*$", re.I)
MAX_TITLE = 150  # longer "entries" are several run together by PDF conversion
LEADER_TAIL = re.compile(r"(?:[ \t]*\.){2,}[ \t]*(\d+)?[ \t]*$")


@dataclass
class TocEntry:
    title: str
    level: int = 1
    page: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "level": self.level, "page": self.page}


@dataclass
class Specials:
    markdown: str  # the body with the TOC cut out
    toc: list[TocEntry] = field(default_factory=list)
    toc_source: str | None = None
    glossary: list[dict[str, str]] = field(default_factory=list)


def is_running_head(title: str) -> bool:
    """A page header/footer turned into a heading by PDF conversion."""
    return bool(RUNNING_HEAD.match(title.strip()))


def extract_specials(markdown: str) -> Specials:
    body, toc = cut_toc(markdown)
    return Specials(markdown=body, toc=toc, toc_source="explicit" if toc else None,
                    glossary=find_glossary(body))


def cut_toc(markdown: str) -> tuple[str, list[TocEntry]]:
    """Remove a `# Contents`-style section and parse its entries."""
    lines = markdown.splitlines()
    start = next((i for i, line in enumerate(lines) if TOC_HEADING.match(line)), None)
    if start is None:
        return markdown, []
    end, blanks = len(lines), 0
    for i in range(start + 1, len(lines)):
        line = lines[i]
        heading = ANY_HEADING.match(line)
        if heading and not is_running_head(heading.group(2)):
            end = i
            break
        blanks = blanks + 1 if not line.strip() else 0
        if blanks > 2:
            end = i
            break
    entries = parse_toc_lines(lines[start + 1:end])
    if not entries:
        return markdown, []
    return "\n".join(lines[:start] + lines[end:]), entries


def parse_toc_lines(lines: list[str]) -> list[TocEntry]:
    entries: list[TocEntry] = []
    page_tokens: list[str] = []
    for line in lines:
        if ANY_HEADING.match(line):
            continue
        if m := PAGE_LINE.match(line):
            page_tokens += m.group(1).split()
        elif m := LINK_ENTRY.match(line):
            entries.append(TocEntry(_clean(m.group(1)), 1))
        elif m := NUMBERED_BOLD.match(line):
            title = _clean(m.group(1))
            if title and not title.replace(" ", "").isdigit() and not is_running_head(title):
                entries.append(TocEntry(title, 1))
        elif m := DOTTED.match(line):
            entries.append(TocEntry(_clean(m.group(1)), 2, int(m.group(2))))
    # Bold page lines list the level-1 pages in order ("**ix 1**" = Preface ix, Introduction 1).
    level1 = [e for e in entries if e.level == 1 and e.page is None]
    for entry, token in zip(level1, page_tokens):
        entry.page = int(token) if token.isdigit() else None
    return [e for e in entries if e.title and len(e.title) <= MAX_TITLE]


def _clean(title: str) -> str:
    title = re.sub(r"[*_`]", "", title)
    title = LEADER_TAIL.sub("", title)
    return re.sub(r"\s+", " ", title).strip(" .")


def find_glossary(markdown: str) -> list[dict[str, str]]:
    """Entries of a glossary section: `**term** - def`, `term: def`, or 2-column table rows."""
    lines = markdown.splitlines()
    out: list[dict[str, str]] = []
    i = 0
    while i < len(lines):
        m = GLOSSARY_HEADING.match(lines[i])
        if not m:
            i += 1
            continue
        depth = len(m.group(1))
        i += 1
        while i < len(lines):
            h = ANY_HEADING.match(lines[i])
            if h and len(h.group(1)) <= depth and not is_running_head(h.group(2)):
                break
            if entry := _glossary_entry(lines[i]):
                out.append(entry)
            i += 1
    return out


_BOLD_DEF = re.compile(r"^\s*[-*+]?\s*\*\*(.+?)\*\*\s*[-–—:]\s*(.+)$")
_COLON_DEF = re.compile(r"^\s*[-*+]?\s*([A-Za-z][\w .()/-]{0,60}?)\s*:\s+(.{3,})$")
_ROW_DEF = re.compile(r"^\s*\|([^|]+)\|([^|]+)\|\s*$")


def _glossary_entry(line: str) -> dict[str, str] | None:
    for pattern in (_BOLD_DEF, _COLON_DEF, _ROW_DEF):
        m = pattern.match(line)
        if m:
            term, definition = m.group(1).strip(" *"), m.group(2).strip()
            if term and definition and not set(term) <= set("-: ") and not set(definition) <= set("-: "):
                return {"term": term, "definition": definition}
    return None
