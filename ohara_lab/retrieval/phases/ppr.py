"""The graph walk: dense-seeded Personalized PageRank over the passage–entity graph
(HippoRAG 2, Gutiérrez et al., "From RAG to Memory", ICML 2025, arXiv 2502.14802, §3.2;
PageRank with restart, Haveliwala, WWW 2002), with offline entities instead of an LLM's triples.

    x ← (1 − d)·r + d·Pᵀx          power iteration from x = r until ‖Δx‖₁ < 1e-8 (at most 50 steps)

    r ∝ Σ_{e ∈ seeds} w_e · spec(e) · 1_e  +  ρ · Σ_{p ∈ first pass} n(s_p) · 1_p

Seeds e: the entities the query names (w = 1) and the entities of the best first-pass
passage (w = its normalised score, 1) — the offline stand-in for HippoRAG 2's
query-to-triple match; spec(e) = 1 / |passages mentioning e|. For a comparison query
(`comparison.comparison_form`: "Who was born first, A or B?", "Are A and B both ...?") the entities of
each option's best first-pass passage seed it too (w = 1, `ppr_option_seeds`): its gold evidence is one
passage per option (HotpotQA, Yang et al. 2018, §2; 2WikiMultiHopQA, Ho et al. 2020, §3), and seeded from
the single best passage — about one option — the walk's mass follows that option and the other's
passage drops out of the top. An option's best passage is the best candidate about it
(`comparison.about`: titled with it or naming it), one not naming the other option first. Every
candidate p (the dense top `ppr_candidates`, or BM25's when the atlas has no vectors; with
`ppr_first_pass_bm25` = β > 0 the union of both, scored (1 − β)·n(dense) + β·n(BM25))
gets the reset ρ·n(s_p), n = min–max over the candidates, ρ = `ppr_passage_reset`
(HippoRAG 2 found 0.05 best); d = `ppr_damping` (0.5 there). Passages are ranked by
their mass; a candidate outside the graph (it mentions no entity) keeps its reset
share (1 − d)·r_p. No Python loop touches an edge: one sparse product per step.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...comparison import Sentence, about, comparison_form, mentions
from ...ids import SECTIONS, in_collection
from ...settings import Settings
from ...store.protocol import GraphStore
from ..graph import PassageGraph
from ..hits import Hit
from ..normalise import minmax_norm
from ..state import QueryState

try:  # scipy's CSR kernel, called without the per-call overhead of `@` (one call per PageRank step)
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
except ImportError:  # pragma: no cover - a scipy that moved it: `@` it is
    _csr_matvec = None

TOLERANCE = 1e-8
MAX_STEPS = 50
SHOWN_SEEDS = 5


def first_pass(state: QueryState, settings: Settings) -> tuple[dict[str, float], str]:
    """Candidate passages with their first-pass scores, and which signal they come from."""
    bm25 = [h for h in state.hits.get("bm25", []) if not in_collection(h.id, SECTIONS)]
    lexical = {h.id: h.score for h in bm25[: settings.ppr_candidates]}
    if not state.dense:
        return lexical, "bm25"
    dense = dict(list(state.dense.items())[: settings.ppr_candidates])
    beta = settings.ppr_first_pass_bm25
    if beta <= 0 or not lexical:
        return dense, "vector"
    return convex(dense, lexical, beta), "vector+bm25"


def convex(dense: dict[str, float], lexical: dict[str, float], beta: float) -> dict[str, float]:
    """(1 − β)·minmax(dense) + β·minmax(BM25) over the union (Bruch et al., TOIS 2023); absent = 0."""
    nd = dict(zip(dense, minmax_norm(list(dense.values()))))
    nl = dict(zip(lexical, minmax_norm(list(lexical.values()))))
    union = sorted(set(nd) | set(nl))
    return {p: (1 - beta) * nd.get(p, 0.0) + beta * nl.get(p, 0.0) for p in union}


def seeds(state: QueryState, graph: PassageGraph, candidates: dict[str, float], settings: Settings
          ) -> dict[str, tuple[float, str]]:
    """slug -> (seed weight before specificity, where it came from: "query" or a passage id)."""
    out: dict[str, tuple[float, str]] = {}
    for slug in state.query.hint_slugs:
        if graph.row(slug) is not None:
            out[slug] = (1.0, "query")
    ranked = sorted(candidates.items(), key=lambda kv: (-kv[1], kv[0]))[: settings.ppr_seed_passages]
    norm = dict(zip(candidates, minmax_norm(list(candidates.values()))))
    for pid, _ in ranked:
        for slug in graph.passage_entities.get(pid, []):
            if slug not in out or out[slug][0] < norm[pid]:
                out[slug] = (norm[pid], pid)
    return out


def option_passages(state: QueryState, store: GraphStore, candidates: dict[str, float]) -> dict[str, str]:
    """For a comparison query, option -> its best first-pass passage (see the module docstring); {} otherwise.

    The form is read from the query alone first, so any other query costs no store read; the candidates'
    titles then give the options their fuller names ("Pride and Prejudice" where the question split at "and")."""
    if comparison_form(state.query.raw) is None:
        return {}
    ranked = [p for p, _ in sorted(candidates.items(), key=lambda kv: (-kv[1], kv[0]))]
    nodes = store.get_nodes(ranked)
    docs = store.get_nodes({d for n in nodes.values() if (d := n.get("document_id"))})
    rows = []
    for p in ranked:
        node = nodes.get(p, {})
        rows.append((p, Sentence(0, 0, _text(node), docs.get(node.get("document_id", ""), {}).get("title", ""))))
    form = comparison_form(state.query.raw, sorted({r.title for _, r in rows if r.title}))
    if form is None:
        return {}
    out: dict[str, str] = {}
    for option, other in (form.options, form.options[::-1]):
        its = [(p, r) for p, r in rows if about(r, option)]
        own = [p for p, r in its if not mentions(r.text, other)]
        if its:
            out[option] = (own or [its[0][0]])[0]
    return out


def _text(node: dict[str, Any]) -> str:
    return str(node.get("content") or node.get("markdown_representation") or node.get("title") or "")


def personalized_pagerank(graph: PassageGraph, reset: np.ndarray, damping: float,
                          open_rows: np.ndarray | None = None) -> np.ndarray:
    """x = (1 − d)·r + d·Pᵀx by power iteration; `reset` sums to 1. Mass that reaches a closed row
    (`open_rows` = 0: a passage an "as of" query must not read) is dropped there."""
    x: np.ndarray = reset.copy()
    restart = (1.0 - damping) * reset
    t = graph.transpose
    nxt, diff = np.empty_like(x), np.empty_like(x)  # three buffers for every step: no array allocated per step
    for _ in range(MAX_STEPS):
        _matvec(t, x, nxt)  # then d·(Pᵀx) + (1 − d)·r in place: the same floats as `t @ x`
        nxt *= damping
        nxt += restart
        if open_rows is not None:
            nxt *= open_rows
        np.subtract(nxt, x, out=diff)
        if np.abs(diff, out=diff).sum() < TOLERANCE:
            return nxt
        x, nxt = nxt, x
    return x


def _matvec(t: Any, x: np.ndarray, out: np.ndarray) -> None:
    """out = t @ x for a CSR matrix, into `out`: scipy's own kernel (the one `t @ x` runs, on a zeroed
    output), without its per-call checks and allocation; `t @ x` when that kernel is not where it was."""
    if _csr_matvec is None or t.format != "csr" or t.dtype != np.float64 or x.dtype != np.float64:
        out[:] = t @ x
        return
    out.fill(0.0)
    _csr_matvec(t.shape[0], t.shape[1], t.indptr, t.indices, t.data, x, out)


def ppr(state: QueryState, store: GraphStore, settings: Settings, graph: PassageGraph) -> list[Hit]:
    candidates, source = first_pass(state, settings)
    found = seeds(state, graph, candidates, settings)
    options = option_passages(state, store, candidates) if settings.ppr_option_seeds and candidates else {}
    for pid in options.values():  # each option's best passage seeds as the best passage does (w = 1)
        for slug in graph.passage_entities.get(pid, []):
            if slug not in found or found[slug][0] < 1.0:
                found[slug] = (1.0, pid)
    if not found and not candidates:
        state.skipped["ppr"] = "no seed entities and no first-pass candidates"
        return []
    if not graph.entities:
        state.skipped["ppr"] = f"the atlas has no entities to walk over: the first pass ({source}) stands in"
        return _first_pass_hits(state, store, candidates, source)
    reset = np.zeros(graph.size)
    outside: dict[str, float] = {}
    for pid, n in zip(candidates, minmax_norm(list(candidates.values()))):
        row = graph.row(pid)
        if row is None:
            outside[pid] = settings.ppr_passage_reset * n
        else:
            reset[row] += settings.ppr_passage_reset * n
    for slug, (w, _) in found.items():
        reset[graph.row(slug)] += w * graph.specificity[slug]
    total = float(reset.sum()) + sum(outside.values())  # a plain float: scores reach JSON
    if total <= 0:
        state.skipped["ppr"] = "no seed entities and every first-pass score is 0"
        return []
    if not graph.synonyms_linked:
        state.skipped["synonymy"] = "no SYNONYM_OF edges in this atlas: run `ohara embed` to link entity names"
    mass = personalized_pagerank(graph, reset / total, settings.ppr_damping, graph.blocked(state.excluded))
    scores = dict(top_passages(graph, mass, 2 * state.limit))
    scores.update({p: (1.0 - settings.ppr_damping) * r / total for p, r in outside.items() if r > 0})
    top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: 2 * state.limit]
    shown = sorted(found.items(), key=lambda kv: (-kv[1][0] * graph.specificity[kv[0]], kv[0]))[:SHOWN_SEEDS]
    via_seeds = [{"entity": s, "weight": round(w * graph.specificity[s], 6), "from": src} for s, (w, src) in shown]
    seed_set = set(found)
    docs = {p: graph.passage_documents[p] for p, _ in top if p in graph.passage_documents}
    rest = [p for p, _ in top if p not in docs]  # candidates outside the graph
    docs.update({nid: row.get("document_id", "") for nid, row in store.get_nodes(rest).items()} if rest else {})
    why: dict[str, Any] = {"seeded_from": "each option's best first-pass passage", "options": options} if options else {}
    return [Hit(pid, docs.get(pid, ""), "ppr", score,
                {"mass": score, "resets_from": source, "seeds": via_seeds, **why,
                 "linked_by": [e for e in graph.passage_entities.get(pid, []) if e in seed_set]})
            for pid, score in top]


def top_passages(graph: PassageGraph, mass: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The k passages of most mass (> 0), ties by id — passages are sorted, so by row — without a Python
    loop over every passage: the k-th largest mass bounds the candidates, ties at the bound included."""
    head = mass[: len(graph.passages)]
    rows = np.flatnonzero(head > 0)
    if rows.size > k:
        bound = np.partition(head[rows], rows.size - k)[rows.size - k]
        rows = rows[head[rows] >= bound]
    rows = rows[np.lexsort((rows, -head[rows]))][:k]
    return [(graph.passages[i], float(head[i])) for i in rows]


def _first_pass_hits(state: QueryState, store: GraphStore, candidates: dict[str, float], source: str) -> list[Hit]:
    """Without a graph the walk is its own reset: the first-pass order, so a walk-only engine still ranks."""
    top = sorted(candidates.items(), key=lambda kv: (-kv[1], kv[0]))[: 2 * state.limit]
    docs = {nid: row.get("document_id", "") for nid, row in store.get_nodes([p for p, _ in top]).items()}
    return [Hit(pid, docs.get(pid, ""), "ppr", score, {"resets_from": source, "fallback": "no graph to walk"})
            for pid, score in top if score > 0]


def describe(graph: PassageGraph) -> dict[str, Any]:
    """Size figures for benchmarks and `explain`."""
    return {"passages": len(graph.passages), "entities": len(graph.entities),
            "edges": int(graph.transpose.nnz), "synonym_edges": graph.synonym_edges, "bytes": graph.nbytes()}
