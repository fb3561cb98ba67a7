"""Phase 0 for long queries: a query past `OHARA_QUERY_MAX_WORDS` words is reduced before retrieval, so
its cost grows linearly with its length and its memory stays bounded (issue 30.4).

A query of W words, W > max_words (M), with content terms T (`text.tokenize`: lower-cased, stop words
and short tokens dropped):

    window   = its first M words, verbatim: the text the regex intents, the entity n-grams (at most
               4·M), the SUMO lexicon, the answerability features and the dense encoder read; M ≥ the
               encoder's own limit (MiniLM reads 256 word pieces, and every word is at least one), so
               the query vector is the one the whole text would get
    pool     = the 8·K distinct terms of T most frequent in the query (ties: first occurrence first)
    keywords = the K terms of the pool with the highest IDF, idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))
               (Robertson–Spärck Jones, as FTS5's BM25), terms absent from the atlas (df = 0) dropped,
               in order of first occurrence

K = `OHARA_QUERY_MAX_TERMS`. Work: one pass over the text (split, tokenize, count), at most 8·K
document-frequency look-ups, then retrieval over a query of at most M words and K keywords: O(W).
A query of at most M words is parsed as it always was (`parse_query`), so no ordinary query changes.
The shells (CLI, HTTP, MCP) refuse a query over `OHARA_QUERY_MAX_CHARS` characters before this runs.
"""
from __future__ import annotations

import math
from collections import Counter

from ..errors import UsageError
from ..settings import Settings
from ..store.protocol import GraphStore
from ..text import tokenize
from .query import ProcessedQuery, parse_query

POOL_FACTOR = 8  # document frequencies looked up per kept keyword, at most


def check_query_size(text: str, settings: Settings) -> None:
    """Refuse a query longer than `OHARA_QUERY_MAX_CHARS` with one line saying so."""
    if len(text) > settings.query_max_chars:
        raise UsageError(f"query of {len(text):,} characters is longer than OHARA_QUERY_MAX_CHARS="
                         f"{settings.query_max_chars:,}; shorten it or raise the limit")


def reduced_query(text: str, store: GraphStore, settings: Settings) -> ProcessedQuery:
    """`parse_query(text)`, or for a query over `query_max_words` words its reduction (module docstring)."""
    words = text.split()
    if len(words) <= settings.query_max_words:
        return parse_query(text)
    q = parse_query(" ".join(words[: settings.query_max_words]))
    q.keywords = idf_capped(tokenize(text), store, settings.query_max_terms)
    q.input_type = "paragraph"
    q.reduced_from_words = len(words)
    return q


def idf_capped(terms: list[str], store: GraphStore, k: int) -> list[str]:
    """The `k` distinct terms of the 8·k most frequent with the highest IDF in the atlas, first occurrence order."""
    counts = Counter(terms)
    first = {t: i for i, t in reversed(list(enumerate(terms)))}
    pool = sorted(counts, key=lambda t: (-counts[t], first[t]))[: POOL_FACTOR * k]
    df = store.term_document_counts(pool)
    n = max(int(store.corpus_stats().get("fts_rows", 0)), 1)
    known = [t for t in pool if df.get(t, 0) > 0]  # a term the atlas lacks matches nothing

    def idf(t: str) -> float:
        return math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))

    kept = set(sorted(known, key=lambda t: (-idf(t), first[t]))[:k])
    return [t for t in sorted(kept, key=first.__getitem__)]
