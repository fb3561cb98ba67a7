"""Answerability features: retrieval-only signals of whether the atlas holds an answer.

Each feature is a ratio, a share or a cosine — never a raw BM25 or PageRank value — so a
model fitted on one corpus can be read on another of a different size; the score features are
also read relative to the atlas's own probes (`profile.py`, `RELATIVE`).

A feature that has nothing to measure is **undefined** (None), never a vacuous 1: a query that
names nothing has no entity coverage, a query of stopwords no term coverage, a query one family
answered no agreement. The model reads an undefined feature as its training mean, so it adds
nothing either way (`model.py`); what each feature does in each degenerate case:

    feature             undefined when
    dense_top1, _gap    the query ran without vectors (the lexical model does not read them)
    fused_spread        fewer than two fused candidates
    bm25_relative       the query has no content word (BM25 did not run)
    family_agreement    fewer than two families returned anything (agreement needs two)
    term_coverage       the query has no content word
    idf_coverage        the query has no content word the atlas knows
    entity_coverage     the query names nothing (no capitalised span)
    name_is_title       the query names nothing
    hop_completeness    the query has no relation word outside its names
    ppr_concentration   the walk did not run or found nothing
    answer_type_found   the question asks for no type of answer (`answer_type.expected_types`)

and an empty candidate list makes every evidence feature 0 (nothing was found), not undefined. Sources: query
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
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache

from ...answer_type import expected_types, in_question, typed_spans
from ...ids import DOCUMENTS, in_collection
from ...store.protocol import GraphStore
from ...text import QUERY_STOPWORDS, sentences, tokenize
from ..graph import VersionMemo
from ..hits import Fused
from ..state import QueryState

FEATURE_VERSION = 2
EVIDENCE = 5  # top fused passages read as the evidence
LINKED_ENTITIES = 3  # evidence entities whose own passages hop completeness reads
PASSAGES_PER_ENTITY = 5
NEAR_WORDS = 2  # content words of the query a sentence shares before its typed spans count as the answer's
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
    # per evidence passage, best first, up to the first holding one: the asked types among its new spans
    passage_types: list[set[str]] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)  # titles of the evidence's documents and sections
    missing: tuple[str, str] | None = None  # (relation word, entity name) hop completeness could not find
    words: frozenset[str] | None = None  # stemmed words of `texts` (`_evidence_words`)


@lru_cache(maxsize=1 << 12)  # the same passages and sentences are evidence for query after query
def _words(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in tokenize(text))


def _evidence_words(ev: Evidence) -> frozenset[str]:
    """The stemmed words of the evidence's texts, once per query (three features read them)."""
    if ev.words is None:
        ev.words = frozenset().union(*(_words(t) for t in ev.texts))
    return ev.words


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


def dense_top1(state: QueryState) -> float | None:
    """Cosine of the best dense candidate: how close the atlas comes to the question at all."""
    return max(state.dense.values(), default=0.0) if state.query_vector is not None else None


def dense_gap(state: QueryState) -> float | None:
    """Top-1 minus top-5 dense cosine: a clear winner means a passage is about this question, not the topic."""
    if state.query_vector is None:
        return None
    scores = sorted(state.dense.values(), reverse=True)
    return scores[0] - scores[min(4, len(scores) - 1)] if scores else 0.0


def fused_spread(fused: list[Fused]) -> float | None:
    """NQC-style spread: standard deviation of the top-10 fused scores over their mean (Shtok et al. 2012)."""
    top = [f.score for f in fused[:10]]
    if len(top) < 2 or statistics.fmean(top) <= 0:
        return None
    return statistics.pstdev(top) / statistics.fmean(top)


def bm25_relative(state: QueryState, store: GraphStore) -> float | None:
    """BM25 top-1 over the query's highest attainable score Σ idf·(k1+1): the share of the query one row matches."""
    if not state.query.keywords:
        return None
    hits = state.hits.get("bm25") or []
    ceiling = store.bm25_max_score(state.query.keywords) if hits else 0.0
    return min(1.0, hits[0].score / ceiling) if hits and ceiling > 0 else 0.0


def family_agreement(state: QueryState, fused: list[Fused]) -> float | None:
    """Share of the families that returned something whose top 5 holds the document of the fused top-1."""
    ran = [hits for hits in state.hits.values() if hits]
    if len(ran) < 2:
        return None
    if not fused:
        return 0.0
    doc = fused[0].document_id
    agree = sum(1 for hits in ran if doc in {h.document_id for h in sorted(hits, key=lambda h: -h.score)[:5]})
    return agree / len(ran)


def term_coverage(state: QueryState, ev: Evidence) -> float | None:
    """Share of the query's content words found in the evidence."""
    words = {stem(t) for t in state.query.keywords}
    if not words:
        return None
    found = _evidence_words(ev)
    return len(words & found) / len(words)


def idf_coverage(state: QueryState, ev: Evidence, store: GraphStore) -> float | None:
    """Share of the query's IDF mass Σ idf(t) (over its words the atlas has) found in the evidence: a rare
    name missing counts more than a common word missing (Robertson & Spärck Jones' idf, FTS5's form)."""
    counts = store.term_document_counts(state.query.keywords)
    rows = max(1.0, float(store.corpus_stats().get("fts_rows") or 1))
    idf = {t: math.log((rows - n + 0.5) / (n + 0.5)) for t, n in counts.items() if n}
    idf = {t: max(w, 1e-6) for t, w in idf.items()}
    if not idf:
        return None
    found = _evidence_words(ev)
    return math.fsum(w for t, w in idf.items() if stem(t) in found) / math.fsum(idf.values())


def entity_coverage(ev: Evidence) -> float | None:
    """Share of the query's names found (case-insensitively) in the evidence."""
    if not ev.names:
        return None
    text = " ".join(ev.texts).lower()
    return sum(1 for n in ev.names if n.lower() in text) / len(ev.names)


def _slug(text: str) -> str:
    return "-".join(t for t in re.findall(r"[a-z0-9]+", text.lower()) if t != "the")


def name_is_title(ev: Evidence) -> float | None:
    """Share of the query's names that title one of the evidence's documents or sections ("The Cup (1999 film)"
    for "the director of the film The Cup"): the atlas holds a text *about* what the question names, not one
    that only mentions it — the passage an unanswerable question usually lacks (MuSiQue, HotpotQA and 2Wiki
    remove exactly the paragraphs titled by the question's entities)."""
    if not ev.names:
        return None
    titles = {_slug(t) for t in ev.titles}
    titles |= {_slug(re.sub(r"\s*\([^)]*\)\s*$", "", t)) for t in ev.titles}
    found = 0
    for name in ev.names:
        key = _slug(name)
        found += bool(key) and any(t == key or t.startswith(key + "-") for t in titles)
    return found / len(ev.names)


def hop_completeness(ev: Evidence) -> float | None:
    """Best share of the query's relation words ("born", "spouse") found in the evidence together with the
    passages of one entity the evidence links to: is the next hop there, not just the first one?"""
    if not ev.relation_words:
        return None
    wanted = {stem(w) for w in ev.relation_words}
    base = _evidence_words(ev)
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


def ppr_concentration(state: QueryState) -> float | None:
    """Share of the walk's mass (over its returned passages) held by its top 5."""
    hits = sorted((h.score for h in state.hits.get("ppr") or []), reverse=True)
    total = math.fsum(hits)
    return math.fsum(hits[:5]) / total if total > 0 else None


def answer_type_found(state: QueryState, ev: Evidence) -> float | None:
    """Whether the top evidence holds a span of the type the question asks for (a date for "when", a place for
    "where", ... — `answer_type.py`) that the question does not already name, in a sentence sharing the
    question's words: 1 in the best passage, 0.5 in another of the top ones, 0 in none."""
    wanted = set(expected_types(state.query.raw).types)
    if not wanted:
        return None
    for rank, types in enumerate(ev.passage_types):
        if types & wanted:
            return 1.0 if rank == 0 else 0.5
    return 0.0


FEATURES = ("dense_top1", "dense_gap", "fused_spread", "bm25_relative", "family_agreement",
            "term_coverage", "idf_coverage", "entity_coverage", "name_is_title", "hop_completeness",
            "ppr_concentration", "answer_type_found")
RELATIVE_SUFFIX = "_rel"  # `dense_top1_rel`: dense_top1 read on the atlas's own probes (profile.relative)
# The score features, whose raw level depends on the corpus and the embedder, are also read relative to the
# atlas (`profile.py`); the shares and coverages are already on one scale everywhere and stay raw.
SCORE_FEATURES = ("dense_top1", "dense_gap", "fused_spread", "bm25_relative", "ppr_concentration")


def relative_name(feature: str) -> str:
    return feature + RELATIVE_SUFFIX


RELATIVE = tuple(relative_name(f) for f in SCORE_FEATURES)
KNOWN_FEATURES = FEATURES + RELATIVE
# Without vectors the dense features are undefined for every query; a lexical model is fitted without them.
DENSE_FEATURES = ("dense_top1", "dense_gap", *(relative_name(f) for f in ("dense_top1", "dense_gap")))
LEXICAL_FEATURES = tuple(f for f in KNOWN_FEATURES if f not in DENSE_FEATURES)


def evidence(state: QueryState, fused: list[Fused], store: GraphStore) -> Evidence:
    """The top passages with their entities, titles and typed spans, and the passages of the entities they link to."""
    top = [f.id for f in fused if not in_collection(f.id, DOCUMENTS)][:EVIDENCE]
    found = store.get_nodes(top)
    nodes = [found[i] for i in top if i in found]
    texts = [str(n.get("content") or n.get("title") or "") for n in nodes]
    mentioned = list(dict.fromkeys(s for n in nodes for s in n.get("entity_slugs") or []))
    known = ENTITY_NAMES.get_many(store, mentioned,
                                  lambda slugs: {e.slug: (e.name, e.type) for e in store.get_entities(slugs)})
    ents = {s: e for s, e in known.items() if e is not None}
    named = set(state.query.hint_slugs)
    linked = [(s, ents[s][0]) for s in mentioned if s in ents and s not in named
              and ents[s][1] not in ("DATE", "AMOUNT")]
    names = query_names(state.query.raw)
    ev = Evidence(texts, linked, names, relation_words(state.query.raw, names))
    ev.titles = _titles(nodes, store)
    wanted = {stem(t) for t in state.query.keywords}
    asked = frozenset(expected_types(state.query.raw).types)
    for n, text in zip(nodes, texts) if asked else ():  # no type asked: `answer_type_found` reads nothing
        pairs = [ents[s] for s in n.get("entity_slugs") or [] if s in ents]
        ev.passage_types.append(_types_near(text, pairs, wanted, state.query.raw, asked))
        if ev.passage_types[-1]:
            break  # the first passage holding an asked type decides `answer_type_found`; later ones are not read
    rows: dict[str, list[str]] = {}
    for slug, _ in linked[:LINKED_ENTITIES]:
        # a document the query may not see ("as of", a probe's twin) lends no passage to the next hop
        rows[slug] = [r.id for r in store.entity_pivot([slug], PASSAGES_PER_ENTITY + len(state.excluded))
                      if r.document_id not in state.excluded][:PASSAGES_PER_ENTITY]
    linked_nodes = store.get_nodes({r for ids in rows.values() for r in ids}) if rows else {}  # one read for all
    for slug, ids in rows.items():
        ev.linked_texts[slug] = [str(linked_nodes[r].get("content") or "") for r in ids if r in linked_nodes]
    return ev


# (name, type) per entity slug: read once per atlas version, not per query (an entity record carries its
# document list, long for the common entities, and the evidence of every query names dozens of them)
ENTITY_NAMES: VersionMemo = VersionMemo()


def _titles(nodes: list[dict[str, object]], store: GraphStore) -> list[str]:
    """Titles of the evidence's documents and sections: what the atlas says its passages are about."""
    ids = list(dict.fromkeys(str(i) for n in nodes for i in (n.get("document_id"), n.get("section_id")) if i))
    found = store.get_nodes(ids)
    return [str(found[i].get("title") or "") for i in ids if i in found and found[i].get("title")]


def _types_near(text: str, entities: list[tuple[str, str]], words: set[str], question: str,
                types: Collection[str] | None = None) -> set[str]:
    """Types (among `types`, all when None) of the spans the question does not name, in the sentences sharing
    NEAR_WORDS of its content words."""
    need = min(NEAR_WORDS, len(words))
    out: set[str] = set()
    for sentence in sentences(text):
        if need and len(words & _words(sentence)) < need:
            continue
        present = [e for e in entities if e[0].strip() in sentence]  # an absent name claims no span
        out |= {sp.type for sp in typed_spans(sentence, present, types) if not in_question(sp.text, question)}
    return out


def features(state: QueryState, fused: list[Fused], store: GraphStore) -> tuple[dict[str, float | None], Evidence]:
    """Every feature of `FEATURES` for one query (None: undefined, see the module docstring), and the evidence."""
    ev = evidence(state, fused, store)
    values: dict[str, float | None] = {
        "dense_top1": dense_top1(state), "dense_gap": dense_gap(state), "fused_spread": fused_spread(fused),
        "bm25_relative": bm25_relative(state, store), "family_agreement": family_agreement(state, fused),
        "term_coverage": term_coverage(state, ev), "idf_coverage": idf_coverage(state, ev, store),
        "entity_coverage": entity_coverage(ev), "name_is_title": name_is_title(ev),
        "hop_completeness": hop_completeness(ev),
        "ppr_concentration": ppr_concentration(state), "answer_type_found": answer_type_found(state, ev),
    }
    return {k: None if (v := values[k]) is None else round(float(v), 6) for k in FEATURES}, ev
