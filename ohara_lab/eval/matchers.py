"""Matchers: does a retrieved item hit the gold of a query, and which gold item (spec §5).

A matcher maps a ranked item to a gold id, or `None` for a miss. `hit_ranks` turns a
ranked list into the 0-based ranks where a gold id is matched for the first time:
the input of every rank metric in `ohara_lab.eval.metrics`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .dataset import EvalQuery, MatcherKind

# Spec §5: only gold snippets longer than this take part in paragraph matching.
MIN_EVIDENCE_CHARS = 40
# Prefix lengths of the original's containment test and of its gold id.
MATCH_PREFIX_CHARS = 200
GOLD_ID_CHARS = 60


@dataclass(frozen=True)
class RankedItem:
    """One retrieved node, reduced to what scoring needs.

    `doc_id` is the *dataset* document id (map the store's document back through
    `Dataset.write_markdown_corpus`'s table); `text` is the node's content (or a
    table's Markdown), used by the paragraph matcher.
    """

    doc_id: str
    text: str = ""
    node_id: str = ""  # the atlas node, for readers that need more than its text (its entities)
    title: str = ""  # its document's title, which an answer reader sees above the passage
    score: float | None = None  # the engine's fused score, written to TREC runs; scoring reads ranks only


class Matcher(Protocol):
    gold_count: int

    def __call__(self, item: RankedItem) -> str | None: ...


def normalize_text(text: str | None) -> str:
    """The original's `normText`: lowercase, runs of whitespace -> one space, trimmed."""
    return " ".join((text or "").lower().split())


class DocMatcher:
    """Doc-level (MultiHop-RAG, MuSiQue): hit iff the item's doc id is gold; gold id = doc id.

    `gold_count` = number of gold documents (spec: #gold titles; the loaders map each
    distinct gold title to exactly one doc id).
    """

    def __init__(self, gold_doc_ids: Iterable[str]):
        self.gold = frozenset(gold_doc_ids)
        self.gold_count = len(self.gold)

    def __call__(self, item: RankedItem) -> str | None:
        return item.doc_id if item.doc_id in self.gold else None


class ParagraphMatcher:
    """Paragraph-level (QASPER): containment between item text and a gold evidence snippet.

    Gold snippets are normalised and only those longer than 40 characters are kept.
    An item with normalised text `t` hits the first snippet `e` (in gold order) with
    `e[:200] ⊆ t` or `t[:200] ⊆ e`; the gold id is `e[:60]`. An item with empty text
    never hits. `gold_count` counts *all* evidence strings, short ones included, as the
    original's MAP/recall denominators do.

    Note (kept for parity, spec §5): the second test lets a short item — a heading
    such as "results" — hit any snippet that contains it.
    """

    def __init__(self, gold_evidence: Sequence[str]):
        self.snippets = [e for e in (normalize_text(s) for s in gold_evidence) if len(e) > MIN_EVIDENCE_CHARS]
        self.gold_count = len(gold_evidence)

    def __call__(self, item: RankedItem) -> str | None:
        text = normalize_text(item.text)
        if not text:
            return None
        head = text[:MATCH_PREFIX_CHARS]
        for e in self.snippets:
            if e[:MATCH_PREFIX_CHARS] in text or head in e:
                return e[:GOLD_ID_CHARS]
        return None


def matcher_for(query: EvalQuery, kind: MatcherKind) -> Matcher:
    """The matcher a dataset of matcher kind `kind` uses for `query`."""
    if kind == "doc":
        return DocMatcher(query.gold_doc_ids)
    if kind == "paragraph":
        return ParagraphMatcher(query.gold_evidence)
    raise ValueError(f"unknown matcher kind {kind!r}; expected 'doc' or 'paragraph'")


def gold_hits(items: Sequence[RankedItem], matcher: Matcher) -> list[tuple[int, str]]:
    """(0-based rank, gold id) wherever a not-yet-matched gold id is matched, ascending by rank.

    Later items matching an already-found gold id are not hits: a document that
    returns five paragraphs counts once, at its best rank.
    """
    seen: set[str] = set()
    hits: list[tuple[int, str]] = []
    for rank, item in enumerate(items):
        gold = matcher(item)
        if gold is not None and gold not in seen:
            seen.add(gold)
            hits.append((rank, gold))
    return hits


def hit_ranks(items: Sequence[RankedItem], matcher: Matcher) -> list[int]:
    """0-based ranks at which a not-yet-matched gold id is matched (ascending); see `gold_hits`."""
    return [rank for rank, _ in gold_hits(items, matcher)]


def first_per_document(items: Sequence[RankedItem]) -> list[RankedItem]:
    """Each document once, at its best rank (MaxP): the ranking a TREC run and BEIR's numbers are about.

    Items of unknown documents (doc id '') are kept apart from each other: they hold a rank but match nothing.
    """
    seen: set[str] = set()
    out: list[RankedItem] = []
    for item in items:
        if item.doc_id and item.doc_id in seen:
            continue
        seen.add(item.doc_id)
        out.append(item)
    return out
