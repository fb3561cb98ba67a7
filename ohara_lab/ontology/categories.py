"""Category classes for the 3D map's ontology plane (spec §1.4 ``sumo_tag_categories.json``, §6).

**Rule.** A class is a *category* when

1. its primary-parent chain ends at the main root (``Entity``),
2. its depth on that chain is 1 to 5 (``Physical`` = 1, ``Object`` = 2, …), and
3. it has at least 25 descendants (over all parents).

Shallow enough to be a broad topic, big enough to be worth a sector of the
sunburst; on SUMO.owl (2010) this picks 94 classes (the original system used 99).
Everything else follows from the hierarchy alone, so the file is corpus-independent:

* ``map``: tag → its nearest category (BFS up over all parents, the tag itself at
  distance 0, primary parents first on ties); tags with no category ancestor (the
  orphan subtrees of ``Law``, ``FinancialAccount``, …) are left out.
* ``cat_depth``: length of the category's primary-parent ancestor chain (= depth).
* ``cat_groups``: ``{L1, L2}`` = 2nd and 3rd elements of the chain read from the
  root (``Entity, Physical, Object, …``); ``Unknown`` for a missing L1, the
  category itself for a missing L2.
* ``cat_parent``: nearest category strictly above (same BFS), ``None`` = the
  sunburst's virtual root.
* ``tag_counts``: how many tags ``map`` sends to each category.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from .hierarchy import Parents, depth, main_root, primary_chain, subtree_sizes

MIN_CATEGORY_DEPTH = 1
MAX_CATEGORY_DEPTH = 5
MIN_CATEGORY_DESCENDANTS = 25


@dataclass
class CategoryTable:
    root: str
    categories: list[str]  # by (depth, -descendants, name): broad topics first
    map: dict[str, str]
    cat_depth: dict[str, int]
    cat_groups: dict[str, dict[str, str]]
    cat_parent: dict[str, str | None]
    tag_counts: dict[str, int]


def select_categories(classes: list[str], parents: Parents) -> tuple[str, list[str]]:
    """The main root and the category classes, by the rule in the module docstring."""
    sizes = subtree_sizes(classes, parents)
    root = main_root(classes, sizes)
    chosen = [
        c
        for c in classes
        if primary_chain(c, parents)[-1] == root
        and MIN_CATEGORY_DEPTH <= depth(c, parents) <= MAX_CATEGORY_DEPTH
        and sizes[c] >= MIN_CATEGORY_DESCENDANTS
    ]
    chosen.sort(key=lambda c: (depth(c, parents), -sizes[c], c))
    return root, chosen


def nearest_category(tag: str, parents: Parents, categories: set[str], include_self: bool = True) -> str | None:
    """Closest category reached breadth-first over all parents (primary parents first)."""
    if include_self and tag in categories:
        return tag
    queue = deque([tag])
    seen = {tag}
    while queue:
        node = queue.popleft()
        for parent in parents.get(node, ()):
            if parent in seen:
                continue
            if parent in categories:
                return parent
            seen.add(parent)
            queue.append(parent)
    return None


def build_categories(classes: list[str], parents: Parents) -> CategoryTable:
    root, cats = select_categories(classes, parents)
    catset = set(cats)
    mapping = {}
    for tag in classes:
        cat = nearest_category(tag, parents, catset)
        if cat is not None:
            mapping[tag] = cat
    groups = {}
    for cat in cats:
        from_root = list(reversed(primary_chain(cat, parents)))
        groups[cat] = {
            "L1": from_root[1] if len(from_root) > 1 else "Unknown",
            "L2": from_root[2] if len(from_root) > 2 else cat,
        }
    counts = Counter(mapping.values())
    return CategoryTable(
        root=root,
        categories=cats,
        map=mapping,
        cat_depth={c: depth(c, parents) for c in cats},
        cat_groups=groups,
        cat_parent={c: nearest_category(c, parents, catset, include_self=False) for c in cats},
        tag_counts={c: counts.get(c, 0) for c in cats},
    )
