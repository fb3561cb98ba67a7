"""Phase 0a without an LLM: SUMO hints from the lexicon, entity hints from the
atlas's own entity names and aliases (query n-grams matched by norm_key)."""
from __future__ import annotations

from typing import Any

from ..ids import norm_key
from ..store.protocol import GraphStore
from .query import ProcessedQuery, ngrams

MAX_ENTITY_HINTS = 8
MAX_SUMO_HINTS = 6


def offline_fingerprint(q: ProcessedQuery, store: GraphStore, ontology: Any) -> None:
    q.sumo_hints = list(ontology.query_hints(q.raw, k=MAX_SUMO_HINTS)) if q.raw.strip() else []
    q.entity_hints = entity_hints(q.raw, store)


def entity_hints(text: str, store: GraphStore) -> list[dict[str, str]]:
    """Longest n-grams first; a word already inside a matched n-gram does not match again.

    Single words must look like names (capitalised, an acronym, or containing a
    digit) unless the whole query is lower-case, so "work" in "proof of work"
    does not pull in every entity called Work.
    """
    grams = ngrams(text)
    keys = {g: norm_key(g) for g in grams}
    found = store.entities_by_names(sorted(set(keys.values())))
    lowercase_query = text == text.lower()
    used: list[str] = []
    hits: list[str] = []
    for gram in grams:
        slugs = found.get(keys[gram])
        if not slugs or any(_inside(gram, u) for u in used):
            continue
        if " " not in gram and not (lowercase_query or _name_like(gram)):
            continue
        used.append(gram)
        hits += [s for s in slugs if s not in hits]
    types = store.entity_types(hits)
    return [{"slug": s, "type": types.get(s, "CONCEPT"), "name": s} for s in hits[:MAX_ENTITY_HINTS]]


def _inside(gram: str, longer: str) -> bool:
    return f" {gram.lower()} " in f" {longer.lower()} "


def _name_like(word: str) -> bool:
    return word[:1].isupper() or word.isupper() or any(c.isdigit() for c in word)
