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

    `Settings` still declares each weight field with its own default; the phase-table test holds that
    default equal to `default_weight` (the field can read it from here once the settings regroup lands).
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
# fmt: off
PHASE_TABLE: tuple[PhaseSpec, ...] = (
    PhaseSpec("bm25", spec="1", what="BM25 full text; always runs: it seeds the rest",
              weight="bm25_weight", default_weight=0.0, original_weight=1.0, modes=(1.0, 0.6, 0.7), label="BM25"),
    PhaseSpec("sumo", spec="1b", what="SUMO expansion with ancestor weights",
              weight="sumo_weight", default_weight=0.0, original_weight=0.4, modes=(0.8, 1.0, 0.9), label="SUMO"),
    PhaseSpec("entity_pivot", spec="2", what="entity pivot (+ the Adamic–Adar boost)",
              weight="entity_pivot_weight", default_weight=0.0, original_weight=0.6, modes=(0.7, 0.8, 1.2),
              label="entity"),
    PhaseSpec("cross_doc", spec="1c", what="cross-document SIMILAR_TO expansion",
              weight="cross_doc_weight", default_weight=0.0, original_weight=0.4, modes=(0.5, 0.8, 1.2),
              label="cross-doc"),
    PhaseSpec("structural", spec="3", what="structural neighbours of the top BM25 node and the TOC's sections",
              weight="struct_weight", default_weight=0.0, original_weight=0.3, modes=(0.6, 0.4, 0.5),
              label="structure"),
    PhaseSpec("vector", spec="1d", what="dense k-NN",
              weight="vector_weight", default_weight=0.0, original_weight=0.5, modes=(0.8, 1.0, 0.9),
              feeds=("ppr",), label="vector"),
    PhaseSpec("answers_same", spec="1e", what="paragraphs answering the same LLM question (ANSWERS_SAME)",
              weight="answers_same_weight", default_weight=0.5, original_weight=None, modes=(0.4, 0.8, 1.0),
              gate="answers_same"),
    # Not in the spec: the graph walk and the bridge hop follow their seed, the vector phase, in each mode.
    PhaseSpec("ppr", spec="", what="the graph walk: dense-seeded Personalized PageRank",
              weight="ppr_weight", default_weight=1.0, original_weight=0.0, modes=(0.8, 1.0, 0.9)),
    PhaseSpec("bridge", spec="", what="the bridge hop: the best passages' entities as a second query",
              weight="bridge_weight", default_weight=0.0, original_weight=0.0, modes=(0.8, 1.0, 0.9)),
    PhaseSpec("cluster", spec="1f", what="paragraphs nearest the centroids of the clusters the query names",
              weight="cluster_weight", default_weight=0.6, original_weight=None, modes=(0.2, 1.2, 0.8),
              gate="cluster_retrieval"),
)
# fmt: on

PHASE: dict[str, PhaseSpec] = {p.name: p for p in PHASE_TABLE}
PHASE_NAMES: tuple[str, ...] = tuple(PHASE)
