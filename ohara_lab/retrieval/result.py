"""`RetrievalResult`: ranked hits, tiers and timings, readable by people and tools.

`to_dict()` is a contract other tools parse: `results[]` (id, collection,
document_id, document_title, content, score, contributions[] with phase, score,
raw_score), `tiers` (principal[], integrity[] with provenance[], explorer[] with
document_id, edge_verb, edge_summary, score, and stopped_reason) and
`timings_ms` keep their names.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..ids import split_id
from .answerability import Answerability
from .hits import Fused
from .query import ProcessedQuery
from .tiers import IntegrityItem, Tiers


@dataclass
class NodeView:
    """What a person needs to judge a hit: its text, where it sits, what it is about."""

    id: str
    collection: str
    document_id: str
    document_title: str
    content: str
    node_type: str
    section_path: list[str] = field(default_factory=list)
    page: int | None = None
    sumo_tags: list[str] = field(default_factory=list)
    entity_slugs: list[str] = field(default_factory=list)
    published_date: str | None = None


@dataclass
class AsOf:
    """What an "as of" query saw: its date, how many later documents it left out, the undated it kept."""

    date: str
    excluded_documents: int
    undated_documents: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RetrievalResult:
    query: ProcessedQuery
    weights: dict[str, float]
    fused: list[Fused]  # every node any phase reached, best first
    limit: int
    tiers: Tiers
    views: dict[str, NodeView]
    timings_ms: dict[str, float]
    skipped: dict[str, str]
    settings: dict[str, Any] = field(default_factory=dict)
    answerability: Answerability | None = None
    as_of: AsOf | None = None
    community_context: list[dict[str, Any]] = field(default_factory=list)  # the query entities' communities

    @property
    def results(self) -> list[Fused]:
        return self.fused[: self.limit]

    @property
    def steps(self) -> list[str]:
        """Every step that ran, in the order it ran (the keys of `timings_ms` but the total)."""
        return [k for k in self.timings_ms if k != "total"]

    @property
    def principal(self) -> list[Fused]:
        return self.tiers.principal

    @property
    def abstained(self) -> bool:
        """True when the Principal tier is empty: the engine says "not enough evidence"."""
        return not self.tiers.principal

    @property
    def abstain_reason(self) -> str | None:
        """Why the engine abstained, in words (None when it did not)."""
        if not self.abstained:
            return None
        if self.answerability is not None and self.answerability.reason:
            return self.answerability.reason
        return "no node is corroborated by enough signal families above the score floor"

    # ------------------------------------------------------------------ dict / frame
    def hit_dict(self, f: Fused) -> dict[str, Any]:
        view = self.views.get(f.id)
        base: dict[str, Any] = asdict(view) if view else {"id": f.id, "collection": split_id(f.id)[0],
                                          "document_id": f.document_id, "document_title": "", "content": ""}
        base.update({
            "score": round(f.score, 6),
            "sources": f.sources,
            "families": sorted(f.families),
            "contributions": [{"phase": c.phase, "score": round(c.score, 6), "raw_score": round(c.raw_score, 6),
                               "normalised": round(c.normalised, 6), "weight": round(c.weight, 6),
                               "document_id": c.document_id, **_jsonable(c.via)} for c in f.contributions],
            "temporal": round(f.temporal, 6),
            **({"undated": True} if self.as_of and f.document_id in self.as_of.undated_documents else {}),
            **{k: v for k, v in f.edge().items() if v is not None},
        })
        return base

    def to_dict(self) -> dict[str, Any]:
        t = self.tiers
        return {
            "query": self.query.to_dict(),
            "weights": self.weights,
            "results": [self.hit_dict(f) for f in self.results],
            "tiers": {
                "principal": [self.hit_dict(f) for f in t.principal],
                "integrity": [self._integrity_dict(i) for i in t.integrity],
                "explorer": [{**asdict(x), "document_title": self._title(x.document_id)} for x in t.explorer],
                "stopped_reason": t.stopped_reason,
                "knowledge_gaps": t.knowledge_gaps,
                "unexpected_connections": t.unexpected_connections,
                "score_floor": t.floor,
            },
            "abstained": self.abstained,
            "abstain_reason": self.abstain_reason,
            **({"answerability": self.answerability.to_dict()} if self.answerability is not None else {}),
            **({"as_of": self.as_of.to_dict()} if self.as_of is not None else {}),
            **({"community_context": self.community_context} if self.community_context else {}),
            "skipped_phases": self.skipped,
            "steps": self.steps,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }

    def _integrity_dict(self, item: IntegrityItem) -> dict[str, Any]:
        view = self.views.get(item.id)
        extra = {"content": view.content, "document_title": view.document_title,
                 "document_id": view.document_id} if view else {}
        return {**extra, **_jsonable(item.to_dict())}

    def _title(self, doc_id: str) -> str:
        view = self.views.get(doc_id)
        return view.document_title if view else ""

    def to_frame(self) -> Any:
        """Results as a pandas DataFrame: one row per hit, one column per phase contribution."""
        import pandas as pd  # noqa: PLC0415

        principal = {f.id for f in self.tiers.principal}
        rows = []
        for rank, f in enumerate(self.results, start=1):
            view = self.views.get(f.id)
            row: dict[str, Any] = {"rank": rank, "id": f.id, "score": f.score, "principal": f.id in principal,
                   "families": len(f.families), "document": view.document_title if view else f.document_id,
                   "section": " › ".join(view.section_path) if view else "",
                   "text": (view.content[:120] if view else "")}
            for c in f.contributions:
                row[c.phase] = row.get(c.phase, 0.0) + c.score
            row["temporal"] = f.temporal
            rows.append(row)
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ explain
    def explain(self, hit_id: str) -> str:
        """Why this node was found: phases, raw and normalised scores, weights, edges followed."""
        f = next((x for x in self.fused if x.id == hit_id), None)
        if f is None:
            return f"{hit_id} was not reached by any phase for {self.query.raw!r}"
        view = self.views.get(hit_id)
        rank = self.fused.index(f) + 1
        lines = [f"{hit_id} — rank {rank}, score {f.score:.4f}"]
        if view:
            where = " › ".join([view.document_title, *view.section_path])
            lines.append(f"  in {where}" + (f" (p. {view.page})" if view.page else ""))
        for c in f.contributions:
            why = _why(c.phase, c.via)
            lines.append(f"  + {c.score:.4f}  {c.phase}: raw {c.raw_score:.4f} / phase max → {c.normalised:.3f}"
                         f" × weight {c.weight:.3f}{why}")
        if f.temporal:
            lines.append(f"  + {f.temporal:.4f}  temporal prior ({self.query.temporal_intent})")
        elif f.temporal_reason:
            lines.append(f"  (temporal prior withheld: {f.temporal_reason})")
        families = sorted(f.families)
        verdict = "Principal" if f in self.tiers.principal else (
            f"not Principal: {len(families)} signal family" if len(families) < 2 else
            f"not Principal: below the score floor {self.tiers.floor:.4f} or past the limit")
        lines.append(f"  families: {', '.join(families) or 'none'} → {verdict}")
        if self.community_context:
            lines.append("  communities of the query's entities: " + "; ".join(
                f"{c['label'] or c['id']} ({c['member_count']} entities)" for c in self.community_context))
        lines.append(f"  steps run: {', '.join(self.steps)}")
        if self.skipped:
            lines.append("  skipped: " + "; ".join(f"{p} ({why})" for p, why in sorted(self.skipped.items())))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"RetrievalResult({self.query.raw!r}: {len(self.fused)} nodes, "
                f"{len(self.tiers.principal)} principal, abstained={self.abstained})")


def _why(phase: str, via: dict[str, Any]) -> str:
    """What `explain()` adds after a contribution of `phase`: the evidence its hit carries."""
    says = WHY.get(phase)
    return says(via) if says else ""


def _entity_pivot_why(via: dict[str, Any]) -> str:
    aa = via.get("adamic_adar")
    return (f"; mentions {', '.join(via.get('shared_entities', []))}"
            + (f" (communities {', '.join(map(str, via['communities']))})" if via.get("communities") else "")
            + (f"; Adamic–Adar +{aa['boost']:.4f}: {aa['entity']} ~ {aa['query_entity']} ({aa['score']:.2f})"
               if aa else ""))


# The phases (`phase_table` names) whose hits carry evidence `explain()` spells out.
WHY: dict[str, Callable[[dict[str, Any]], str]] = {
    "cross_doc": lambda via: (f"; via SIMILAR_TO '{via.get('edge_verb')}' from {via.get('seed_document')} "
                              f"({via.get('hops')} hop)"),
    "structural": lambda via: f"; {via.get('hops')} hop(s) from {via.get('from')} over {via.get('relation')}",
    "sumo": lambda via: f"; tags {', '.join(via.get('matched_tags', []))}",
    "entity_pivot": _entity_pivot_why,
    "cluster": lambda via: f"; cluster {via.get('cluster')} ({', '.join(via.get('cluster_terms', []))})",
}


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if isinstance(v, (str, int, float, bool, list, dict, type(None)))}
