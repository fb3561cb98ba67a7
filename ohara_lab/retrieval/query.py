"""Phase 0: parse a query offline (spec §3.1).

Tokens, input type, query mode, temporal intent and date range follow the
original's heuristics. Two additions: an `ordering` intent for "which came
first / before or after" questions (the paper found the recency prior hurts them,
so no decay is applied), and an offline fingerprint — SUMO hints from the
lexicon and entity hints from the atlas's own entity names — so 1b, 1c and 2
get seeds without an LLM.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..text import QUERY_STOPWORDS as STOPWORDS
from ..text import tokenize

INTENTS = ("current_state", "historical_fact", "influence_chain", "ordering", "none")

_SYNTHESIS = re.compile(
    r"\b(summari[sz]e|overview|compare|comparison|differences?|similarities|types of|kinds of|list all|explain all"
    r"|what are (all|the different)|how does .{0,30} relate|survey|landscape|categories|taxonomy|outline)\b", re.I)
_EXPLORATORY = re.compile(
    r"\b(explore|discover|what else|tell me (more|everything) about|what do you know about"
    r"|give me an? (overview|summary|introduction))\b", re.I)
_CURRENT = re.compile(r"\b(latest|current|now|today|recent|modern|contemporary)\b", re.I)
_HISTORICAL = re.compile(r"\b(history|historical|era|ancient|medieval|century)\b", re.I)
_YEAR_1500 = re.compile(r"\b1[5-9]\d\d\b")
_ORDERING = re.compile(
    r"\b((which|what|who)\b.{0,60}\b(first|earlier|later|earliest)\b"
    r"|before or after|after or before|earlier than|later than|prior to|preceded?|followed|in what order"
    r"|which came first|happened first|shortly after|(a|the) later (report|article|story)"
    r"|(published|reported|released|posted|dated)\b.{0,40}\b(before|after|earlier|later|prior)\b"
    r"|\b(before|after)\b.{0,80}\b(published|reported|released|posted)\b"
    r"|between the\b.{0,250}\band the\b)", re.I)
_INFLUENCE = re.compile(r"\b(influenc\w*|led to|caused|evolv\w*|lineage|inspired|derived from|builds? on)\b", re.I)
_BEFORE = re.compile(r"\bbefore\s+((?:19|20)\d\d)\b", re.I)
_AFTER = re.compile(r"\b(?:after|since)\s+((?:19|20)\d\d)\b", re.I)
_DECADE = re.compile(r"\b((?:19|20)\d0)s\b", re.I)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")


@dataclass
class ProcessedQuery:
    """What phase 0 learnt about a query (the original's `processedQuery`)."""

    raw: str
    keywords: list[str]
    input_type: str  # keyword | phrase | paragraph
    mode: str  # factoid | synthesis | exploratory
    temporal_intent: str = "none"
    date_range: dict[str, str | None] = field(default_factory=dict)  # {"from": YYYY-MM-DD, "to": ...}
    sumo_hints: list[str] = field(default_factory=list)
    entity_hints: list[dict[str, str]] = field(default_factory=list)  # [{slug, type, name}]
    fingerprint_source: str = "offline"
    reduced_from_words: int = 0  # words of the query before `query_reduce` shortened it (0: not reduced)

    @property
    def hint_slugs(self) -> list[str]:
        return [e["slug"] for e in self.entity_hints]

    @property
    def hint_types(self) -> list[str]:
        return sorted({e["type"] for e in self.entity_hints if e.get("type")})

    def to_dict(self) -> dict[str, Any]:
        return {"raw": self.raw, "keywords": self.keywords, "input_type": self.input_type, "mode": self.mode,
                "temporal_intent": self.temporal_intent, "date_range": self.date_range,
                "sumo_hints": self.sumo_hints, "entity_hints": self.entity_hints,
                "fingerprint_source": self.fingerprint_source,
                **({"reduced_from_words": self.reduced_from_words} if self.reduced_from_words else {})}


def input_type(keywords: list[str]) -> str:
    n = len(keywords)
    return "keyword" if n <= 3 else "phrase" if n <= 30 else "paragraph"


def query_mode(text: str) -> str:
    if _SYNTHESIS.search(text):
        return "synthesis"
    if _EXPLORATORY.search(text):
        return "exploratory"
    return "factoid"


def temporal_intent(text: str, kind: str) -> str:
    """ordering > current_state > historical_fact > influence_chain; keyword queries stay `none`."""
    if kind == "keyword":
        return "none"
    if _ORDERING.search(text):
        return "ordering"
    if _CURRENT.search(text):
        return "current_state"
    if _YEAR_1500.search(text) or _HISTORICAL.search(text):
        return "historical_fact"
    if _INFLUENCE.search(text):
        return "influence_chain"
    return "none"


def date_range(text: str, intent: str) -> dict[str, str | None]:
    """Heuristic range from 'before Y', 'after Y', 'the 1990s' or a bare year (historical only)."""
    if m := _BEFORE.search(text):
        return {"from": None, "to": f"{int(m.group(1)) - 1}-12-31"}
    if m := _AFTER.search(text):
        return {"from": f"{m.group(1)}-01-01", "to": None}
    if m := _DECADE.search(text):
        y = int(m.group(1))
        return {"from": f"{y}-01-01", "to": f"{y + 9}-12-31"}
    if intent == "historical_fact" and (m := _YEAR.search(text)):
        y = int(m.group(1))
        return {"from": f"{y - 2}-01-01", "to": f"{y + 2}-12-31"}
    return {}


def ngrams(text: str, max_n: int = 4) -> list[str]:
    """Word n-grams of the raw query (original case), longest first, for entity matching."""
    words = re.findall(r"[\w][\w.&'-]*", text)
    words = [w.strip(".'-") for w in words]
    out = []
    for n in range(max_n, 0, -1):
        for i in range(len(words) - n + 1):
            gram = words[i:i + n]
            if n == 1 and (gram[0].lower() in STOPWORDS or len(gram[0]) < 3):
                continue
            if all(w.lower() in STOPWORDS for w in gram):
                continue
            out.append(" ".join(gram))
    return out


def parse_query(text: str) -> ProcessedQuery:
    """Phase 0 without the fingerprint (which needs the ontology and the atlas)."""
    keywords = tokenize(text)
    kind = input_type(keywords)
    intent = temporal_intent(text, kind)
    return ProcessedQuery(raw=text, keywords=keywords, input_type=kind, mode=query_mode(text),
                          temporal_intent=intent, date_range=date_range(text, intent))
