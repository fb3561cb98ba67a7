"""Queries with nothing to look for: no content word, or none the atlas has ever seen.

A retrieval engine always returns its best candidates, so a query of stopwords, punctuation, emoji,
digits or keyboard mash still gets a top-5, and every score feature reads that top-5 as evidence.
Before any model is asked, two checks in words:

1. **no content word**: the query's words (Unicode letters and digits, two characters or more) minus
   the function words of `text.py` are none at all ("the of and", "???", two emoji, "a b c");
2. **no term of the query occurs in the atlas**: none of its content words is in the atlas's full-text
   vocabulary under the index's own analyser (`GraphStore.term_document_counts`: stemming, case and
   diacritics folded, so "licences" finds "license" only where the analyser says so) — unless the dense
   top-1 is unusually close for this atlas: closer than `DENSE_ESCAPE` of the atlas's own unanswerable
   probes (`profile.py`), which lets a misspelt or paraphrased on-topic word through on its meaning.

Either way the engine abstains and says which check failed and on which words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...store.protocol import GraphStore
from ...text import FUNCTION_WORDS, QUERY_STOPWORDS, QUESTION_WORDS

WORD = re.compile(r"[^\W_]{2,}")  # letters and digits of any script, two or more
NOT_CONTENT = FUNCTION_WORDS | QUERY_STOPWORDS | QUESTION_WORDS
DENSE_ESCAPE = 0.9  # rel(dense_top1) at or above which a query with no known word is still asked
SHOWN_WORDS = 3
EMPTY_ATLAS = "the atlas is empty: run `ohara ingest PATH...` to add documents"
CHUNK, MAX_CHECKED = 16, 256  # words looked up at a time, and at most: one known word is enough


@dataclass(frozen=True)
class Vacuity:
    """Why a query has nothing to look for (`reason`, in words), or None fields when it has something."""

    reason: str | None
    content_words: tuple[str, ...]
    known_words: tuple[str, ...]


def content_words(text: str) -> tuple[str, ...]:
    """The query's content words in order, lower-cased, once each."""
    return tuple(dict.fromkeys(w for w in WORD.findall(text.lower()) if w not in NOT_CONTENT))


def check(text: str, store: GraphStore, dense_rel: float | None) -> Vacuity:
    """The two checks of the module docstring; `dense_rel` is rel(dense_top1) on this atlas (None without)."""
    words = content_words(text)
    if not words:
        return Vacuity("the query has no content word to look for (only stopwords, punctuation or symbols)", (), ())
    known = known_words(words, store)
    if known or (dense_rel is not None and dense_rel >= DENSE_ESCAPE):
        return Vacuity(None, words, known)
    if is_empty(store):  # checked only here: an atlas that knows a word of the query is not empty
        return Vacuity(EMPTY_ATLAS, words, ())
    shown = ", ".join(repr(w) for w in words[:SHOWN_WORDS]) + (", …" if len(words) > SHOWN_WORDS else "")
    return Vacuity(f"no term of the query occurs in the atlas ({shown})", words, ())


def is_empty(store: GraphStore) -> bool:
    """No document was ever ingested (or every one was removed): the full-text index has no row."""
    return not store.corpus_stats().get("fts_rows")


def known_words(words: tuple[str, ...], store: GraphStore) -> tuple[str, ...]:
    """The first chunk of `words` that holds a word the atlas knows (its known words), else ()."""
    for start in range(0, min(len(words), MAX_CHECKED), CHUNK):
        chunk = list(words[start:start + CHUNK])
        counts = store.term_document_counts(chunk)
        known = tuple(w for w in chunk if counts.get(w))
        if known:
            return known
    return ()
