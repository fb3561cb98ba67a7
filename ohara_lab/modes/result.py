"""`ModeResult`: a `RetrievalResult` from an advanced mode, with the mode's own fields.

Same contract as the standard result (`.results`, `.tiers`, `.views`, `.explain`,
`.to_dict()`), so renderers, answer synthesis and the evaluation code take either.
`to_dict()` adds ``mode``, the mode's extra fields (e.g. ``cor_iter_count``,
``agent_trace``) and, per result row, its tags (e.g. ``cor_iter``, ``agent_tools``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..retrieval.hits import Fused
from ..retrieval.result import RetrievalResult


@dataclass
class ModeResult(RetrievalResult):
    mode: str = "standard"
    row_tags: dict[str, dict[str, Any]] = field(default_factory=dict)  # node id -> fields added to its row
    extra: dict[str, Any] = field(default_factory=dict)  # mode fields added to to_dict()

    def hit_dict(self, f: Fused) -> dict[str, Any]:
        row = super().hit_dict(f)
        row.update(self.row_tags.get(f.id, {}))
        return row

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["mode"] = self.mode
        out.update(self.extra)
        return out

    def __repr__(self) -> str:
        return (f"ModeResult[{self.mode}]({self.query.raw!r}: {len(self.fused)} nodes, "
                f"{len(self.tiers.principal)} principal, abstained={self.abstained})")
