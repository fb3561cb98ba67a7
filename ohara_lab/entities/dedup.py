"""Entity dedup plan (spec §2.12): which same-`norm_key` entity survives, what it absorbs.

Pure: it reads `Entity` records and returns `MergePlan`s; the store applies a plan
(re-points the duplicates' edges to the survivor, deletes the duplicates) inside
one transaction.

Survivor = highest `mention_count`, then earliest `first_seen` (ISO strings
compare in time order; an empty `first_seen` counts as latest), then smallest
slug so the choice never depends on input order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..ids import norm_key
from ..records import Entity


@dataclass(frozen=True)
class MergePlan:
    """Merge `merged` entities into `survivor`, giving it the listed totals."""

    norm_key: str
    survivor: str  # slug
    merged: list[str] = field(default_factory=list)  # slugs to fold in and delete
    aliases: list[str] = field(default_factory=list)  # survivor's new alias list
    document_ids: list[str] = field(default_factory=list)  # union, survivor's first
    mention_count: int = 0  # sum over the group


def _rank(e: Entity) -> tuple[int, int, str, str]:
    # Missing first_seen sorts after every real timestamp.
    return (-e.mention_count, 0 if e.first_seen else 1, e.first_seen, e.slug)


def merge_plan(group: Sequence[Entity]) -> MergePlan | None:
    """The plan for one group sharing a norm_key; None when there is nothing to merge."""
    if len(group) < 2:
        return None
    ordered = sorted(group, key=_rank)
    survivor, rest = ordered[0], ordered[1:]
    aliases: list[str] = []
    for name in [*survivor.aliases, *(n for e in rest for n in (e.name, *e.aliases))]:
        if name and name != survivor.name and name not in aliases:
            aliases.append(name)
    docs: list[str] = []
    for e in ordered:
        docs += [d for d in e.document_ids if d not in docs]
    return MergePlan(
        norm_key=survivor.norm_key or norm_key(survivor.name),
        survivor=survivor.slug,
        merged=[e.slug for e in rest],
        aliases=aliases,
        document_ids=docs,
        mention_count=sum(e.mention_count for e in group),
    )


def plan_dedup(entities: Iterable[Entity]) -> list[MergePlan]:
    """Group entities by norm_key and plan every merge, in norm_key order."""
    groups: dict[str, list[Entity]] = {}
    for e in entities:
        groups.setdefault(e.norm_key or norm_key(e.name), []).append(e)
    plans = (merge_plan(groups[k]) for k in sorted(groups))
    return [p for p in plans if p is not None]
