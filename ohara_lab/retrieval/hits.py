"""Hit records: one row per (phase, node), then one fused entry per node."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..phase_table import PHASE_NAMES

# Signal families in fusion order, one per phase of `phase_table.PHASE_TABLE`. Temporal is a prior, not a family.
PHASES = PHASE_NAMES


@dataclass
class Hit:
    """A node one phase reached, with the phase's raw score and why it reached it."""

    id: str
    document_id: str
    phase: str
    score: float
    via: dict[str, Any] = field(default_factory=dict)  # edge_verb, edge_summary, hops, matched tags/entities, seed...


@dataclass
class Contribution:
    phase: str
    score: float  # weight x normalised score: what this phase added to the fused score
    raw_score: float
    normalised: float
    weight: float
    document_id: str
    via: dict[str, Any] = field(default_factory=dict)


@dataclass
class Fused:
    """A node after fusion: its score and every phase contribution that made it."""

    id: str
    document_id: str
    score: float
    contributions: list[Contribution] = field(default_factory=list)
    temporal: float = 0.0
    temporal_reason: str | None = None

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(c.phase for c in self.contributions))

    @property
    def families(self) -> set[str]:
        """Distinct phases that actually added to the score (a zero-weight phase corroborates nothing)."""
        return {c.phase for c in self.contributions if c.score > 0}

    def best(self, phase: str) -> Contribution | None:
        found = [c for c in self.contributions if c.phase == phase]
        return max(found, key=lambda c: c.raw_score) if found else None

    def edge(self) -> dict[str, Any]:
        """Edge verb / summary / hops of the cross-document contribution, if any."""
        c = self.best("cross_doc")
        return {k: c.via.get(k) for k in ("edge_verb", "edge_summary", "hops")} if c else {}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "document_id": self.document_id, "score": self.score,
                "contributions": [asdict(c) for c in self.contributions], "temporal": self.temporal}
