"""Offline structuring: Markdown chunks -> DoCO nodes, no LLM.

Produces the same node dicts the `ingest_document` prompt asks an LLM for
(spec §7 "Node"), so both paths share one transform. Markdown is tokenised by
markdown-it-py; headings become Part/Chapter/Section/Subsection by level, blocks
become Paragraph / ListItem / Table / Figure / Code nodes, and the sections a
document names (Abstract, Preface, References, Index, Appendix, ...) give their
text its DoCO type and front/body/back-matter part.

Headings written at one Markdown depth whose labels say otherwise ("## 2." then
"## 2.1", "## Article I" then "## Section 1", common in converted PDFs and Word
files) are nested by their labels (`ohara_lab.parse.outline`): each Markdown depth
keeps its own outline, so a labelled heading sits as many levels below its depth as
its outline places it, and an unlabelled heading closes the outlines at and below it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..parse.outline import Outline, parse_label
from ..records import Chunk
from .special import is_running_head

_MD = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")

# Heading text -> DoCO type of the text below it, and its part of the document.
SPECIAL_SECTIONS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"^abstract$", re.I), "Abstract", "front_matter"),
    (re.compile(r"^(preface|about this book)$", re.I), "Preface", "front_matter"),
    (re.compile(r"^foreword$", re.I), "Foreword", "front_matter"),
    (re.compile(r"^(references|bibliography|works cited|literature cited|citations)$", re.I), "Bibliography",
     "back_matter"),
    (re.compile(r"^(index|subject index)$", re.I), "Index", "back_matter"),
    (re.compile(r"^(glossary|quick glossary|key terms|abbreviations)$", re.I), "Glossary", "back_matter"),
    (re.compile(r"^appendix\b.*", re.I), "Appendix", "back_matter"),
]
PART_HEADING = re.compile(r"^part\s+([ivxlcdm]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b", re.I)
LABEL_ONLY = re.compile(r"^(chapter|part|appendix)\s+([ivxlcdm]+|\d+|[a-z])\.?$", re.I)
NUMBERING = re.compile(r"^((?:\d+\.)*\d+\.?|[A-Z]\.|[ivxlcdm]+\.)\s+(?=\S)", re.I)
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


@dataclass
class HeadingPlan:
    """Document-wide heading facts the per-chunk structurer needs."""

    title: str | None = None  # a lone leading H1 is the document's title, not a chapter
    shift: int = 0  # subtracted from Markdown depth to get the DoCO level


def plan_headings(markdown: str) -> HeadingPlan:
    heads = [(len(m.group(1)), m.group(2).strip()) for m in _ATX.finditer(markdown)
             if not is_running_head(m.group(2))]
    h1 = [t for d, t in heads if d == 1]
    if len(h1) == 1 and heads and heads[0] == (1, h1[0]) and len(heads) > 1:
        return HeadingPlan(title=_plain(h1[0]), shift=1)
    return HeadingPlan()


@dataclass
class OfflineStructurer:
    """Turns chunks into DoCO node dicts; keeps the section context between chunks."""

    plan: HeadingPlan = field(default_factory=HeadingPlan)
    text_type: str = "Paragraph"
    part: str = "front_matter"
    seen_body_heading: bool = False
    pending_label: tuple[str, int] | None = None
    outlines: dict[int, Outline] = field(default_factory=dict)  # Markdown depth -> its labelled headings

    def structure(self, chunk: Chunk) -> list[dict[str, Any]]:
        tokens = _MD.parse(chunk.text)
        pages = chunk.line_pages or [chunk.start_page]
        nodes: list[dict[str, Any]] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            page = pages[min(tok.map[0], len(pages) - 1)] if tok.map else chunk.start_page
            if tok.type == "heading_open":
                followed_by_heading = i + 3 < len(tokens) and tokens[i + 3].type == "heading_open"
                node = self._heading(tok, tokens[i + 1], page, followed_by_heading)
                if node:
                    nodes.append(node)
                i += 3
            elif tok.type == "table_open":
                end = _close_index(tokens, i, "table_close")
                nodes.append(self._table(tokens[i:end + 1], page))
                i = end + 1
            elif tok.type in ("fence", "code_block"):
                if tok.content.strip():
                    nodes.append(self._text("Code", tok.content.rstrip(), page))
                i += 1
            elif tok.type == "html_block":
                text = _strip_html(tok.content)
                if text:
                    nodes.append(self._text(self.text_type, text, page))
                i += 1
            elif tok.type == "inline":
                node = self._inline(tok, tokens, i, page)
                if node:
                    nodes.append(node)
                i += 1
            else:
                i += 1
        return nodes

    # ------------------------------------------------------------------ blocks
    def _heading(self, open_tok: Token, inline: Token, page: int, followed_by_heading: bool) -> dict[str, Any] | None:
        title = _plain_inline(inline)
        depth = int(open_tok.tag[1])
        if not title or is_running_head(title):
            return None
        if self.plan.title and depth == 1 and title == self.plan.title:
            return {"type": "Title", "part": "front_matter", "title": title, "content": title,
                    "metadata": {"page": page}}
        level = max(1, depth - self.plan.shift) + self._label_depth(depth, title)
        if LABEL_ONLY.match(title) and followed_by_heading:
            # "CHAPTER 1" followed by "Introduction": keep the label, title comes next.
            self.pending_label = (title, level)
            return None
        label = None
        if self.pending_label:
            label, level = self.pending_label[0], min(level, self.pending_label[1])
            self.pending_label = None
        kind, part = _special(title)
        if kind:
            self.text_type, self.part = kind, part
        else:
            self.text_type = "Paragraph"
            if self.part == "front_matter" or (self.part == "back_matter" and level <= 1):
                self.part = "body_matter"
            self.seen_body_heading = True
        if PART_HEADING.match(title) or (label and label.lower().startswith("part")):
            node_type, level = "Part", 0
        else:
            node_type = {1: "Chapter", 2: "Section"}.get(level, "Subsection")
        node = {"type": node_type, "part": self.part, "title": title, "metadata": {"page": page, "level": level}}
        if label:
            node["label"] = label
        return node

    def _label_depth(self, depth: int, title: str) -> int:
        """How many levels below its Markdown depth the heading's label puts it (0 when unlabelled)."""
        for deeper in [d for d in self.outlines if d > depth]:
            del self.outlines[deeper]
        parsed = parse_label(title)
        outline = self.outlines.setdefault(depth, Outline())
        if parsed is None or any(r.family == "appendix" for r in parsed[0]):
            outline.reset()
            return 0
        return outline.place(parsed[0], force=True) or 0

    def _inline(self, tok: Token, tokens: list[Token], i: int, page: int) -> dict[str, Any] | None:
        parent = _enclosing(tokens, i)
        if parent in ("th_open", "td_open"):
            return None
        children = tok.children or []
        images = [c for c in children if c.type == "image"]
        text = _plain_inline(tok)
        if images and not text.replace(images[0].content, "").strip():
            img = images[0]
            return {"type": "Figure", "part": self.part, "caption": img.content or None,
                    "figure": {"description": img.content or "", "url": img.attrGet("src")},
                    "metadata": {"page": page}}
        if not text:
            return None
        if parent == "list_item_open":
            marker = "- " if _list_kind(tokens, i) == "bullet" else f"{_item_number(tokens, i)}. "
            kind = "ListItem" if self.text_type == "Paragraph" else self.text_type
            return self._text(kind, marker + text, page)
        return self._text(self.text_type, text, page)

    def _table(self, tokens: list[Token], page: int) -> dict[str, Any]:
        rows: list[list[str]] = []
        for tok in tokens:
            if tok.type == "tr_open":
                rows.append([])
            elif tok.type == "inline" and rows:
                rows[-1].append(_plain_inline(tok))
        return {"type": "Table", "part": self.part, "table": {"content_data": rows}, "metadata": {"page": page}}

    def _text(self, kind: str, content: str, page: int) -> dict[str, Any]:
        if not self.seen_body_heading and self.part == "front_matter" and kind == "Paragraph":
            return {"type": kind, "part": "front_matter", "content": content, "metadata": {"page": page}}
        return {"type": kind, "part": self.part, "content": content, "metadata": {"page": page}}


def structure_document(chunks: list[Chunk], markdown: str) -> list[list[dict[str, Any]]]:
    """Nodes per chunk for a whole document, sharing heading context across chunks."""
    structurer = OfflineStructurer(plan_headings(markdown))
    return [structurer.structure(c) for c in chunks]


# ---------------------------------------------------------------------- helpers


def _special(title: str) -> tuple[str | None, str]:
    bare = NUMBERING.sub("", title).strip().rstrip(":")
    for pattern, kind, part in SPECIAL_SECTIONS:
        if pattern.match(bare):
            return kind, part
    return None, "body_matter"


def _plain_inline(tok: Token) -> str:
    """Readable text of an inline token: markup dropped, link text and code kept."""
    out: list[str] = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            out.append(_strip_html(child.content) if child.type == "html_inline" else child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(child.content)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _plain(markdown_inline: str) -> str:
    tokens = _MD.parseInline(markdown_inline)
    return _plain_inline(tokens[0]) if tokens else markdown_inline.strip()


def _strip_html(html: str) -> str:
    text = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"\s+", " ", text).strip()


def _enclosing(tokens: list[Token], i: int) -> str | None:
    """Type of the nearest open container token before inline token `i` (skipping paragraph_open)."""
    level = tokens[i].level
    for j in range(i - 1, -1, -1):
        t = tokens[j]
        if t.nesting == 1 and t.level < level and t.type != "paragraph_open":
            return t.type
    return None


def _list_kind(tokens: list[Token], i: int) -> str:
    for j in range(i - 1, -1, -1):
        if tokens[j].type in ("bullet_list_open", "ordered_list_open") and tokens[j].level < tokens[i].level:
            return "bullet" if tokens[j].type == "bullet_list_open" else "ordered"
    return "bullet"


def _item_number(tokens: list[Token], i: int) -> str:
    for j in range(i - 1, -1, -1):
        if tokens[j].type == "list_item_open" and tokens[j].level < tokens[i].level:
            return tokens[j].info or "1"
    return "1"


def _close_index(tokens: list[Token], start: int, close_type: str) -> int:
    for j in range(start + 1, len(tokens)):
        if tokens[j].type == close_type and tokens[j].level == tokens[start].level:
            return j
    return len(tokens) - 1
