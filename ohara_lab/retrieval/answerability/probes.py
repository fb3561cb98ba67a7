"""Probe questions an atlas asks of itself: answerable ones from its own passages, and their unanswerable twins.

A probe is a question made from one sentence of one passage. Asked of the atlas it is answerable (its
source is there); asked with its source document left out of retrieval — as an "as of" query leaves
later documents out — it is an unanswerable twin, the way MuSiQue makes its unanswerable questions
(Trivedi et al., TACL 2022: the supporting paragraph is removed, the topic and its bridges stay). What
the answerability features read on both is the atlas's own scale: how close its best passage comes
to an in-domain question when the answer is there and when it is not (`profile.py`), and the labelled
rows `ohara calibrate --auto` fits on.

Offline, a sentence makes a probe when it names an entity the atlas knows and holds a relation word
besides: one span of an answerable type (a date, an amount or number, a place, a person, an organisation —
`answer_type.typed_spans`: the entity layer's names, then date and number patterns) becomes the question's gap, asked with the
matching question word, e.g. "The GNU Lesser General Public License version 2.1 was published in
February 1999." → "When the GNU Lesser General Public License version 2.1 was published?". The
grammar is rough on purpose: the features read words, names and cosines, not syntax.

Deterministic: documents and sentences are taken in the order of a keyed hash of their ids (blake2b,
`seed`), so the same atlas always asks the same probes, whatever order it was ingested in.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...answer_type import typed_spans
from ...store.protocol import GraphStore
from ...text import sentences, tokenize

MIN_WORDS, MAX_WORDS = 6, 30  # sentences shorter say too little to ask about; longer ones are lists or run-ons
MIN_RELATION_WORDS = 2  # content words besides the names and the gap
# The entity types a gap may have, each with the question word that asks for it (order = preference).
QUESTION_WORDS: dict[str, str] = {"DATE": "When", "AMOUNT": "How much", "NUMBER": "How many", "LOCATION": "Where",
                                  "PERSON": "Who", "ORG": "Which organisation", "EVENT": "Which event"}
_DANGLING = re.compile(r"(?:^|\s+)(in|on|at|by|of|from|to|since|during|for|the|a|an)\s*$", re.I)


@dataclass(frozen=True)
class Probe:
    """One self-made question: its text, the passage and document it came from, and the gap it asks for."""

    question: str
    node_id: str
    document_id: str
    answer: str
    answer_type: str


def _order(key: str, seed: int) -> bytes:
    return hashlib.blake2b(f"{seed}:{key}".encode(), digest_size=8).digest()


def make_probes(store: GraphStore, n: int, seed: int = 0) -> list[Probe]:
    """At most `n` probes: one per document in hash order, then a second per document and so on, so an atlas
    of a few long documents still asks `n` (a twin leaves its whole source document out)."""
    docs = sorted((d.id for d in store.list_documents()), key=lambda d: _order(d, seed))
    out: list[Probe] = []
    live = {d: _document_probes(store, d, seed) for d in docs}
    while live and len(out) < n:
        for doc_id in list(live):
            probe = next(live[doc_id], None)
            if probe is None:
                del live[doc_id]
            else:
                out.append(probe)
                if len(out) >= n:
                    break
    return out


def _document_probes(store: GraphStore, document_id: str, seed: int) -> Iterator[Probe]:
    paragraphs = store.document_nodes(document_id).get("paragraphs", [])
    for node in sorted(paragraphs, key=lambda p: _order(p["id"], seed)):
        slugs = node.get("entity_slugs") or []
        if not slugs:
            continue
        entities = [e for e in store.get_entities(slugs) if len(e.name) >= 3]
        for sentence in sentences(str(node.get("content") or "")):
            probe = probe_from_sentence(sentence, [(e.name, e.type) for e in entities])
            if probe is not None:
                yield Probe(probe[0], node["id"], document_id, probe[1], probe[2])


def probe_from_sentence(sentence: str, entities: list[tuple[str, str]]) -> tuple[str, str, str] | None:
    """(question, answer span, answer type) from one sentence and the (name, type) entities of its passage,
    or None when the sentence names no other entity or has too few words of its own to ask about."""
    if not MIN_WORDS <= len(sentence.split()) <= MAX_WORDS or "|" in sentence:
        return None
    lower = sentence.lower()
    present = [(name, kind) for name, kind in entities if name.lower() in lower]
    names = {t for name, _ in present for t in tokenize(name)}
    preference = list(QUESTION_WORDS)
    spans = {(sp.text, sp.type) for sp in typed_spans(sentence, present) if sp.type in QUESTION_WORDS}
    for answer, kind in sorted(spans, key=lambda p: (preference.index(p[1]), p[0])):
        if not any(answer.lower() not in name.lower() for name, _ in present if name != answer):
            continue  # the gap must leave a name to ask about
        start = lower.index(answer.lower())
        before = _DANGLING.sub("", sentence[:start].rstrip(" ,;:"))
        body = " ".join(f"{before} {sentence[start + len(answer):]}".split())
        body = re.sub(r"\s+([,;:.])", r"\1", body).strip(" ,;:.")
        if len([t for t in tokenize(body) if t not in names]) < MIN_RELATION_WORDS:
            continue
        first, _, rest = body.partition(" ")
        if first.lower() in _COMMON_STARTS:
            body = f"{first.lower()} {rest}"
        return f"{QUESTION_WORDS[kind]} {body}?", answer, kind
    return None


_COMMON_STARTS = frozenset("the a an in on at it this that these those he she they his her its their there "
                           "after before during when while as by from for with".split())
