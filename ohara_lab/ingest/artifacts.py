"""Layout-artifact filters (spec §2.9): page furniture that parsing leaves behind."""
from __future__ import annotations

import re

from .special import is_running_head

_FUNCTION_WORDS = re.compile(r"\b(is|are|was|were|has|have|of|and|the|in|for|with|by|on|at|an|a)\b", re.I)
_VENUE = re.compile(r"journal|review|proceedings|transactions|conference|bulletin|annals|quarterly|gazette|press"
                    r"|publications?", re.I)
_NUM_TITLE = re.compile(r"^\d+\s+[A-Z][A-Za-z\s&]+$")
_AFFILIATION = re.compile(r"university|institute|school|department|college|faculty", re.I)
_RECEIPT = re.compile(r"^(date of (receipt|delivery|revision|approval)|received:|accepted:|published online:)", re.I)


def is_artifact_section(title: str) -> bool:
    """Running heads, venue lines and other headings that are not the document's structure."""
    t = title.strip()
    if len(t) <= 3 and not t.isalnum():
        return True
    if not t or is_running_head(t) or _NUM_TITLE.match(t):
        return True
    return (len(t) <= 60 and t[:1].isupper() and re.fullmatch(r"[A-Za-z\s&:,\-.]+", t) is not None
            and not _FUNCTION_WORDS.search(t) and _VENUE.search(t) is not None)


_THREE_LETTERS = re.compile(r"(?:[^A-Za-z]*[A-Za-z]){3}")  # stops at the third ASCII letter


def is_artifact_paragraph(text: str) -> bool:
    """Rules of spec §2.9 for paragraphs that are layout, not content."""
    t = text.strip()
    if not t or re.fullmatch(r"[-=|#*_~`\s]+", t) or re.fullmatch(r"\[[.…]+\]", t):
        return True
    if "##" in t and re.search(r"[-|]{2,}", t):
        return True
    if t.startswith("### ") or not _THREE_LETTERS.match(t):
        return True
    if re.match(r"^[*†‡\d]\s+[A-Z]", t) and ("@" in t or _AFFILIATION.search(t)):
        return True
    if _RECEIPT.match(t) or (re.match(r"^(Source|Note): ", t) and len(t) < 200):
        return True
    return bool(_NUM_TITLE.match(t) or re.fullmatch(r"-{3,}", t))
