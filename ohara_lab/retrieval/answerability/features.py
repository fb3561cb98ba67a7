"""Answerability features: retrieval-only signals of whether the atlas holds an answer.

Each feature is a ratio, a share or a cosine — never a raw BM25 or PageRank value — so a
model fitted on one corpus can be read on another of a different size. Sources: query
performance prediction (Shtok et al., "Predicting query performance by query-drift
estimation", TOIS 2012, for NQC; Cronen-Townsend et al., SIGIR 2002, for clarity-style
agreement), score-vector abstention (Gisserot-Boukhlef et al., TMLR 2024), and
sufficient-context analysis (Joren et al., ICLR 2025: an unanswerable multi-hop query
usually lacks one hop — the relation for the bridge entity — not the topic).

`FEATURES` names them in model order; `FEATURE_VERSION` changes whenever a feature's
definition does, so a model fitted on other definitions is refused.
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from functools import lru_cache

from ...store.protocol import GraphStore
from ...text import QUERY_STOPWORDS, tokenize
from ..hits import Fused
from ..state import QueryState

FEATURE_VERSION = 1
EVIDENCE = 5  # top fused passages read as the evidence
LINKED_ENTITIES = 3  # evidence entities whose own passages hop completeness reads
PASSAGES_PER_ENTITY = 5
BM25_K1 = 1.2
NOT_RELATIONS = frozenset("who whom whose what which when where why how many much did does do was were is are "
                          "the name named".split())  # question words: neither a name nor the relation asked for
_SUFFIX = re.compile(r"(ies|ied|ing|ed|es|s|e)$")
_NAME = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:of|the|de|von|van|and|&|la|le|du)?\s*[A-Z][\w'&.-]*)*")


@dataclass
class Evidence:
    """What the features read: the top passages' texts and entities, and the query's names and relation words."""

    texts: list[str]
    entities: list[tuple[str, str]]  # (slug, name) mentioned by the evidence, best passage first
    names: list[str]  # name-like spans of the query
    relation_words: list[str]  # content words of the query outside its names
    linked_texts: dict[str, list[str]] = field(default_factory=dict)  # entity slug -> texts of its passages
    missing: tuple[str, str] | None = None  # (relation word, entity name) hop completeness could not find


def _words(text: str) -> set[str]:
    return {stem(t) for t in tokenize(text)}


@lru_cache(maxsize=1 << 16)  # the evidence of every query stems hundreds of words, mostly the same ones
def stem(word: str) -> str:
    """The features' suffix stem ("married"/"marries" meet). Not `text.stem`: the shipped model was fitted on
    this one, and changing it is a new FEATURE_VERSION with a refit."""
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def query_names(text: str) -> list[str]:
    """Capitalised spans of the query, its first word not counted when it is a question word."""
    names = []
    for m in _NAME.finditer(text):
        span = m.group(0).strip()
        first, _, rest = span.partition(" ")
        if m.start() == 0 and first.lower() in NOT_RELATIONS | QUERY_STOPWORDS:
            span = rest.strip()
        if len(span) >= 3 and span.lower() not in NOT_RELATIONS:
            names.append(span)
    return list(dict.fromkeys(names))


def relation_words(text: str, names: list[str]) -> list[str]:
    inside = {t for n in names for t in tokenize(n)}
    return [t for t in dict.fromkeys(tokenize(text)) if t not in inside and t not in NOT_RELATIONS]


# ---------------------------------------------------------------------- the features


def dense_top1(state: QueryState) -> float:
    """Cosine of the best dense candidate (0 without vectors): how close the atlas comes to the question at all."""
    return max(state.dense.values(), default=0.0)


def dense_gap(state: QueryState) -> float:
    """Top-1 minus top-5 dense cosine: a clear winner means a passage is about this question, not the topic."""
    scores = sorted(state.dense.values(), reverse=True)
    return scores[0] - scores[min(4, len(scores) - 1)] if scores else 0.0


def fused_spread(fused: list[Fused]) -> float:
    """NQC-style spread: standard deviation of the top-10 fused scores over their mean (Shtok et al. 2012)."""
    top = [f.score for f in fused[:10]]
    if len(top) < 2 or statistics.fmean(top) <= 0:
        return 0.0
    return statistics.pstdev(top) / statistics.fmean(top)


def bm25_relative(state: QueryState, store: GraphStore) -> float:
    """BM25 top-1 over the query's highest attainable score Σ idf·(k1+1): the share of the query one row matches."""
    hits = state.hits.get("fulltext") or []
    ceiling = store.bm25_max_score(state.query.keywords) if hits else 0.0
    return min(1.0, hits[0].score / ceiling) if hits and ceiling > 0 else 0.0


def family_agreement(state: QueryState, fused: list[Fused]) -> float:
    """Share of the families that ran whose top 5 holds the document of the fused top-1."""
    if not fused:
        return 0.0
    doc = fused[0].document_id
    ran = [hits for hits in state.hits.values() if hits]
    if not ran:
        return 0.0
    agree = sum(1 for hits in ran if doc in {h.document_id for h in sorted(hits, key=lambda h: -h.score)[:5]})
    return agree / len(ran)


def term_coverage(state: QueryState, ev: Evidence) -> float:
    """Share of the query's content words found in the evidence (1 when the query has none)."""
    words = {stem(t) for t in state.query.keywords}
    if not words:
        return 1.0
    found = set().union(*(_words(t) for t in ev.texts)) if ev.texts else set()
    return len(words & found) / len(words)


def entity_coverage(ev: Evidence) -> float:
    """Share of the query's names found (case-insensitively) in the evidence (1 when the query names nothing)."""
    if not ev.names:
        return 1.0
    text = " ".join(ev.texts).lower()
    return sum(1 for n in ev.names if n.lower() in text) / len(ev.names)


def hop_completeness(ev: Evidence) -> float:
    """Best share of the query's relation words ("born", "spouse") found in the evidence together with the
    passages of one entity the evidence links to: is the next hop there, not just the first one?"""
    if not ev.relation_words:
        return 1.0
    wanted = {stem(w) for w in ev.relation_words}
    base = set().union(*(_words(t) for t in ev.texts)) if ev.texts else set()
    best, best_missing = len(wanted & base) / len(wanted), wanted - base
    for slug, _name in ev.entities[:LINKED_ENTITIES]:
        found = base.union(*(_words(t) for t in ev.linked_texts.get(slug, [])))
        share = len(wanted & found) / len(wanted)
        if share > best:
            best, best_missing = share, wanted - found
    if best_missing:
        word = next(w for w in ev.relation_words if stem(w) in best_missing)
        ev.missing = (word, ev.entities[0][1] if ev.entities else "")
    return best


def ppr_concentration(state: QueryState) -> float:
    """Share of the walk's mass (over its returned passages) held by its top 5; 0 when the walk did not run."""
    hits = sorted((h.score for h in state.hits.get("ppr") or []), reverse=True)
    total = math.fsum(hits)
    return math.fsum(hits[:5]) / total if total > 0 else 0.0


FEATURES = ("dense_top1", "dense_gap", "fused_spread", "bm25_relative", "family_agreement",
            "term_coverage", "entity_coverage", "hop_completeness", "ppr_concentration")
# Without vectors the dense features are 0 for every query; a lexical model is fitted without them.
DENSE_FEATURES = ("dense_top1", "dense_gap")
LEXICAL_FEATURES = tuple(f for f in FEATURES if f not in DENSE_FEATURES)


def evidence(state: QueryState, fused: list[Fused], store: GraphStore) -> Evidence:
    """The top passages with their entities, and the passages of the entities they link to."""
    top = [f.id for f in fused if not f.id.startswith("documents/")][:EVIDENCE]
    nodes = store.get_nodes(top)
    texts = [str(nodes[i].get("content") or nodes[i].get("title") or "") for i in top if i in nodes]
    named = set(state.query.hint_slugs)
    slugs = list(dict.fromkeys(s for i in top if i in nodes for s in nodes[i].get("entity_slugs") or []
                               if s not in named))
    ents = {e.slug: e for e in store.get_entities(slugs)}
    linked = [(s, ents[s].name) for s in slugs if s in ents and ents[s].type not in ("DATE", "AMOUNT")]
    names = query_names(state.query.raw)
    ev = Evidence(texts, linked, names, relation_words(state.query.raw, names))
    for slug, _ in linked[:LINKED_ENTITIES]:
        rows = [r.id for r in store.entity_pivot([slug], PASSAGES_PER_ENTITY)]
        found = store.get_nodes(rows)
        ev.linked_texts[slug] = [str(found[r].get("content") or "") for r in rows if r in found]
    return ev


def features(state: QueryState, fused: list[Fused], store: GraphStore) -> tuple[dict[str, float], Evidence]:
    """Every feature of `FEATURES` for one query, and the evidence they read."""
    ev = evidence(state, fused, store)
    values = {
        "dense_top1": dense_top1(state), "dense_gap": dense_gap(state), "fused_spread": fused_spread(fused),
        "bm25_relative": bm25_relative(state, store), "family_agreement": family_agreement(state, fused),
        "term_coverage": term_coverage(state, ev), "entity_coverage": entity_coverage(ev),
        "hop_completeness": hop_completeness(ev), "ppr_concentration": ppr_concentration(state),
    }
    return {k: round(float(values[k]), 6) for k in FEATURES}, ev
