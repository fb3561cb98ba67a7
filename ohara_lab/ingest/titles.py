"""A document's title and the TOC_REF links from its table of contents to its sections."""
from __future__ import annotations

import re
from pathlib import Path

from ..records import TOC_REF, Edge, ParsedDocument, Section
from ..text import first_h1
from .special import TocEntry
from .structure import plan_headings

_VERSION_LINE = re.compile(r"^\s*(version|edition|release)\s+([\w.]+)", re.I)


def document_title(parsed: ParsedDocument, markdown: str) -> str:
    """The parser's title, else a lone leading H1, else the first H1, else the file name; plus a version line."""
    plan = plan_headings(markdown)
    title = ((parsed.title or "").strip() or plan.title or first_h1(markdown)
             or Path(parsed.path).stem.replace("_", " ").replace("-", " ").strip().title() or parsed.path)
    return title + _version_suffix(markdown, title)


def _version_suffix(markdown: str, title: str) -> str:
    """', Version 3' when one of the first lines after the title names a version ("Version 3, 29 June 2007")."""
    lines = [line for line in markdown[:2000].splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if title in line), None)
    if start is None or re.search(r"\b(version|edition|release)\b", title, re.I):
        return ""
    for line in lines[start + 1:start + 3]:
        if m := _VERSION_LINE.match(line.strip("#*_ ")):
            return f", {m.group(1).title()} {m.group(2)}"
    return ""


def outline_toc(parsed: ParsedDocument) -> list[TocEntry]:
    """A TOC from the file's own outline (PDF bookmarks, EPUB navigation) when the parser found one."""
    out = []
    for e in parsed.metadata.get("toc") or []:
        if isinstance(e, dict) and e.get("title"):
            out.append(TocEntry(str(e["title"]), int(e.get("level") or 1), e.get("page")))
    return out


def toc_ref_edges(doc_id: str, toc: list[TocEntry], sections: list[Section]) -> list[Edge]:
    """TOC_REF per entry to the first section with the same normalised title, else the only one on its page."""
    edges, used = [], set()
    titles = [_norm_title(s.title) for s in sections]
    for entry in toc:
        wanted = _norm_title(entry.title)
        target = next((s for s, t in zip(sections, titles) if t == wanted and s.id not in used), None)
        if target is None and entry.page is not None:
            on_page = [s for s in sections if s.page == entry.page and s.id not in used]
            target = on_page[0] if len(on_page) == 1 else None
        if target is not None:
            used.add(target.id)
            edges.append(Edge(doc_id, target.id, TOC_REF,
                              {"toc_title": entry.title, "toc_page": entry.page, "toc_level": entry.level}))
    return edges


def _norm_title(title: str) -> str:
    t = re.sub(r"^(chapter|part|appendix)\s+\S+\s*[:.-]?\s*", "", title.strip(), flags=re.I)
    t = re.sub(r"^[\divxlc]+(\.\d+)*\.?\s+", "", t, flags=re.I)
    return re.sub(r"[^a-z0-9]+", " ", t.lower()).strip()
