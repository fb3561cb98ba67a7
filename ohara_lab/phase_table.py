"""The engine's phases, declared once: what `hits`, `engine`, `fusion`, the `original` profile, `explain()`,
the widgets and the docs read (issue 29.3).

One row per phase (one signal family each: corroboration counts distinct phase names), in fusion order,
which is the order fusion sums a node's terms in (so moving a row moves scores in the last float bits).
A phase's `name` is its one name everywhere: `Hit.phase`, the key of `RetrievalResult.weights` and of
`skipped`, the step in `timings_ms`, the contribution's `phase` in JSON and in `explain()`. Its settings
keep their public names (`OHARA_BM25_WEIGHT`, `OHARA_STRUCT_WEIGHT`, ...): `weight` names the field.

The engine decides the run order (`retrieval/engine.py`: bm25 first, it seeds the rest; structural last,
after TOC guidance); `tests/retrieval/test_retrieval_phase_table.py` fails when a phase is declared here
and not there, or there and not here, or its weight field, default or `original` value disagrees.

This module imports nothing from the package: `settings` (the `original` profile) reads it, and
`settings` sits below `retrieval/`.
"""
from __future__ import annotations

from dataclasses import dataclass

MODES = ("factoid", "synthesis", "exploratory")  # the query modes of the spec's multiplier rows (§3.8)


@dataclass(frozen=True)
class PhaseSpec:
    """One phase of the engine.

    `weight`: the `Settings` field of its fusion weight; `default_weight` that field's default (the `default`
    profile's value); `original_weight` what the `original` profile sets it to (None: the profile leaves it
    alone). `gate`: a boolean setting without which its weight is 0. `modes`: its multipliers for the
    query modes of `MODES` (adaptive weights). `feeds`: later phases that read what it leaves in the
    query state (it runs for them even at weight 0). `spec`: its number in the spec (§3; "" beyond the
    paper). `label`: the short name a badge shows (`badge`: the name when none is given).
    """

    name: str
    spec: str
    what: str
    weight: str
    default_weight: float
    original_weight: float | None
    modes: tuple[float, float, float]
    gate: str | None = None
    feeds: tuple[str, ...] = ()
    label: str = ""

    @property
    def badge(self) -> str:
        return self.label or self.name


# The original's phases (spec §3.8), then the graph walk and the bridge hop, then cluster retrieval
# (1f; last, so that a query without it sums its terms in the same order as before).
PHASE_TABLE: tuple[PhaseSpec, ...] = (
    PhaseSpec("bm25", "1", "BM25 full text; always runs: it seeds the rest", "bm25_weight", 0.0, 1.0,
              (1.0, 0.6, 0.7), label="BM25"),
    PhaseSpec("sumo", "1b", "SUMO expansion with ancestor weights", "sumo_weight", 0.0, 0.4,
              (0.8, 1.0, 0.9), label="SUMO"),
    PhaseSpec("entity_pivot", "2", "entity pivot (+ the Adamic–Adar boost)", "entity_pivot_weight", 0.0, 0.6,
              (0.7, 0.8, 1.2), label="entity"),
    PhaseSpec("cross_doc", "1c", "cross-document SIMILAR_TO expansion", "cross_doc_weight", 0.0, 0.4,
              (0.5, 0.8, 1.2), label="cross-doc"),
    PhaseSpec("structural", "3", "structural neighbours of the top BM25 node and the TOC's sections",
              "struct_weight", 0.0, 0.3, (0.6, 0.4, 0.5), label="structure"),
    PhaseSpec("vector", "1d", "dense k-NN", "vector_weight", 0.0, 0.5, (0.8, 1.0, 0.9), feeds=("ppr",),
              label="vector"),
    PhaseSpec("answers_same", "1e", "paragraphs answering the same LLM question (ANSWERS_SAME)",
              "answers_same_weight", 0.5, None, (0.4, 0.8, 1.0), gate="answers_same"),
    # Not in the spec: the graph walk and the bridge hop follow their seed, the vector phase, in each mode.
    PhaseSpec("ppr", "", "the graph walk: dense-seeded Personalized PageRank", "ppr_weight", 1.0, 0.0,
              (0.8, 1.0, 0.9)),
    PhaseSpec("bridge", "", "the bridge hop: the best passages' entities as a second query", "bridge_weight",
              0.0, 0.0, (0.8, 1.0, 0.9)),
    PhaseSpec("cluster", "1f", "paragraphs nearest the centroids of the clusters the query names",
              "cluster_weight", 0.6, None, (0.2, 1.2, 0.8), gate="cluster_retrieval"),
)

PHASE: dict[str, PhaseSpec] = {p.name: p for p in PHASE_TABLE}
PHASE_NAMES: tuple[str, ...] = tuple(PHASE)
