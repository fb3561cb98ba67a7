"""Dataset records rendered to the Markdown that gets ingested (spec §5, "Preparation").

The MultiHop-RAG and QASPER renderings and file names reproduce doc_ohara's
`tests/eval/prepare_multihop.js` / `prepare_qasper.js` character for character, so an
atlas built here holds the same text the paper's numbers were measured on.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any


def js_slug(text: str | None, max_len: int = 60) -> str:
    """doc_ohara's `slugify`: lowercase, runs of non-[a-z0-9] -> '-', trim '-', cut to 60.

    Deliberately not `ohara_lab.ids.slugify`: the original drops accented letters instead
    of folding them and cuts at 60 characters, and the manifest file names depend on it.
    """
    s = (text or "untitled").lower()
    s = re.sub(r"[^a-z0-9]+", "-", s)
    s = re.sub(r"^-|-$", "", s)
    return s[:max_len]


def multihop_doc_id(index: int, title: str | None) -> str:
    """Doc id of the article at 0-based `index` of `corpus.json`: `mhrag_<iiii>_<slug>`."""
    return f"mhrag_{index + 1:04d}_{js_slug(title)}"


def multihop_markdown(article: Mapping[str, Any]) -> str:
    """`# title`, `Published:`, `Source: … — by author`, `Category:`, then the body."""
    source = article.get("source") or "unknown"
    author = article.get("author")
    lines = [
        f"# {article.get('title')}",
        "",
        f"Published: {article.get('published_at') or 'unknown'}",
        f"Source: {source}{f' — by {author}' if author else ''}",
        f"Category: {article.get('category') or 'news'}",
        "",
        article.get("body") or "",
    ]
    return "\n".join(lines)


def qasper_doc_id(paper_id: str) -> str:
    """`qasper_<paper id>` with characters other than [A-Za-z0-9.] replaced by '_'."""
    return "qasper_" + re.sub(r"[^a-zA-Z0-9.]", "_", paper_id)


def qasper_markdown(paper: Mapping[str, Any]) -> str:
    """`# title`, `## Abstract`, then `## <section_name>` + paragraphs per full-text section."""
    parts = [f"# {paper.get('title')}", "", "## Abstract", "", paper.get("abstract") or ""]
    for sec in paper.get("full_text") or []:
        paragraphs = sec.get("paragraphs") or []
        if not sec.get("section_name") and not paragraphs:
            continue
        parts += ["", f"## {sec.get('section_name') or 'Section'}", ""]
        parts.append("\n\n".join(paragraphs))
    return "\n".join(parts)


# A flattened L-Eval line is a heading when it is short, carries no sentence-final or
# clause punctuation, no maths, no citation or formula placeholder (QASPER's S2ORC text
# writes BIBREF3, TABREF2, INLINEFORM0, DISPLAYFORM0), and starts like a title. QASPER's
# nested names ("Method ::: Loss") are always headings.
_HEADING_MAX_CHARS = 90
_HEADING_MAX_WORDS = 12
_NOT_HEADING_END = tuple(".,;:?!)]\"'”")
_PLACEHOLDERS = ("BIBREF", "TABREF", "FIGREF", "INLINEFORM", "DISPLAYFORM", "SECREF")


def is_flat_heading(line: str) -> bool:
    """Whether a line of L-Eval's flattened paper text is a section name."""
    s = line.strip()
    if not s:
        return False
    if " ::: " in s:
        return True
    if len(s) > _HEADING_MAX_CHARS or len(s.split()) > _HEADING_MAX_WORDS:
        return False
    if s.endswith(_NOT_HEADING_END) or "$" in s or any(p in s for p in _PLACEHOLDERS):
        return False
    return s[0].isupper() or s[0].isdigit()


def flat_paper_markdown(title: str, flat_text: str) -> tuple[str, list[str]]:
    """L-Eval paper text (section names on their own lines) -> (`# title` + `##` Markdown, headings)."""
    parts = [f"# {title}"]
    headings: list[str] = []
    for raw in flat_text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        if is_flat_heading(line):
            headings.append(line)
            parts += ["", f"## {line}"]
        else:
            parts += ["", line]
    return "\n".join(parts) + "\n", headings


def titled_paragraphs_markdown(title: str, paragraphs: Iterable[str]) -> str:
    """`# title` then the paragraphs, blank-line separated (MuSiQue / generic documents)."""
    return "\n\n".join([f"# {title}", *paragraphs]) + "\n"
