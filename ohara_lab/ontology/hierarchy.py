"""Walks over the SUMO subclass graph ``{child: [parents]}`` (first parent = primary).

SUMO has multiple inheritance and, in its OWL translation, the odd cycle, so every
walk here remembers what it has visited.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

Parents = Mapping[str, Sequence[str]]


def primary_chain(tag: str, parents: Parents) -> list[str]:
    """``[tag, primary parent, its primary parent, …, root]``, stopping before a repeat."""
    chain = [tag]
    seen = {tag}
    node = tag
    while True:
        plist = parents.get(node)
        if not plist or plist[0] in seen:
            return chain
        node = plist[0]
        chain.append(node)
        seen.add(node)


def depth(tag: str, parents: Parents) -> int:
    """Edges on the primary-parent chain from `tag` up to its root (the root ``Entity`` is 0)."""
    return len(primary_chain(tag, parents)) - 1


def ancestors(tag: str, parents: Parents, max_depth: int) -> dict[str, int]:
    """Every ancestor within `max_depth` hops over *all* parents → its hop distance (BFS, shortest).

    Spec §3.3: SUMO expansion walks ``sumo_hierarchy`` breadth-first from each hint
    up to ``OHARA_SUMO_HIERARCHY_DEPTH`` hops; 0 means no expansion. The tag itself
    is never its own ancestor. Insertion order is BFS order, so it is deterministic.
    """
    found: dict[str, int] = {}
    if max_depth <= 0:
        return found
    queue: deque[tuple[str, int]] = deque([(tag, 0)])
    seen = {tag}
    while queue:
        node, dist = queue.popleft()
        if dist == max_depth:
            continue
        for parent in parents.get(node, ()):
            if parent not in seen:
                seen.add(parent)
                found[parent] = dist + 1
                queue.append((parent, dist + 1))
    return found


def all_ancestors(tag: str, parents: Parents) -> set[str]:
    """Every ancestor over all parents, at any distance."""
    return set(ancestors(tag, parents, max_depth=1 << 30))


def children_of(parents: Parents) -> dict[str, list[str]]:
    """Invert ``{child: [parents]}`` into ``{parent: [children]}`` (children sorted)."""
    kids: dict[str, list[str]] = {}
    for child, plist in parents.items():
        for parent in plist:
            kids.setdefault(parent, []).append(child)
    return {p: sorted(c) for p, c in kids.items()}


def subtree_sizes(nodes: Iterable[str], parents: Parents) -> dict[str, int]:
    """Number of distinct descendants of each node (over all parents; the node itself excluded)."""
    sizes = dict.fromkeys(nodes, 0)
    for node in list(sizes):
        for anc in all_ancestors(node, parents):
            if anc in sizes:
                sizes[anc] += 1
    return sizes


def main_root(classes: list[str], sizes: dict[str, int]) -> str:
    """The class with the largest subtree (SUMO's ``Entity``); ties by name."""
    return max(classes, key=lambda c: (sizes[c], c))
