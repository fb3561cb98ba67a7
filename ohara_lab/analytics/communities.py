"""Entity communities on the RELATED_TO graph.

Leiden (Traag, Waltman, van Eck 2019, "From Louvain to Leiden: guaranteeing
well-connected communities", Sci. Rep. 9:5233) through leidenalg, the default:
measured against networkx's Louvain (Blondel, Guillaume, Lambiotte, Lefebvre
2008, J. Stat. Mech. P10008) on the MuSiQue atlas it is about twice as fast
(2.9 s vs 6.2 s) at a slightly higher modularity (0.673 vs 0.670; samples 0.745
vs 0.741), and its communities are connected by construction. Louvain stays
available, and label propagation (Raghavan, Albert, Kumara 2007) is the spec's
fallback. Every method runs with a fixed seed.
Modularity: Q = 1/2m Σ_ij [A_ij − k_i k_j / 2m] δ(c_i, c_j) (Newman 2006).

A RELATED_TO edge between two communities is *surprising* (spec §2.13): the two
entities co-occur although the graph otherwise keeps them apart.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .graph import require

METHODS = ("louvain", "leiden", "label_propagation")  # louvain first: the benchmark's baseline
MIN_SIZE = 2  # spec: communities of size >= 2 are kept
LABEL_NAMES = 3


@dataclass
class Community:
    id: int
    members: list[str]  # slugs, strongest (weighted degree) first
    label: str
    method: str
    top: list[str] = field(default_factory=list)  # names of the strongest members

    @property
    def size(self) -> int:
        return len(self.members)


def detect(g: Any, method: str = "leiden", *, seed: int = 42, resolution: float = 1.0) -> list[set[str]]:
    """Partition the graph's nodes (deterministic for a fixed seed)."""
    nx = require("networkx")
    if g.number_of_edges() == 0:
        return [{n} for n in sorted(g.nodes)]
    if method == "louvain":
        return [set(c) for c in nx.community.louvain_communities(g, weight="weight", resolution=resolution, seed=seed)]
    if method == "leiden":
        return _leiden(g, seed, resolution)
    if method == "label_propagation":
        return [set(c) for c in nx.community.asyn_lpa_communities(g, weight="weight", seed=seed)]
    raise ValueError(f"unknown community method {method!r}; known: {', '.join(METHODS)}")


def _leiden(g: Any, seed: int, resolution: float) -> list[set[str]]:
    ig, leidenalg = require("igraph"), require("leidenalg")
    names = list(g.nodes)
    index = {n: i for i, n in enumerate(names)}
    h = ig.Graph(n=len(names), edges=[(index[a], index[b]) for a, b in g.edges])
    h.es["weight"] = [d["weight"] for _, _, d in g.edges(data=True)]
    part = leidenalg.find_partition(h, leidenalg.RBConfigurationVertexPartition, weights="weight",
                                    resolution_parameter=resolution, seed=seed)
    return [{names[i] for i in members} for members in part]


def modularity(g: Any, parts: list[set[str]]) -> float:
    nx = require("networkx")
    return float(nx.community.modularity(g, parts, weight="weight")) if g.number_of_edges() else 0.0


def label(parts: list[set[str]], g: Any, names: dict[str, str], method: str) -> list[Community]:
    """Communities of size >= 2, largest first, members by weighted degree; ids follow that order."""
    kept = [p for p in parts if len(p) >= MIN_SIZE]
    strength = dict(g.degree(weight="weight"))
    ordered = [sorted(p, key=lambda s: (-strength.get(s, 0), s)) for p in kept]
    ordered.sort(key=lambda m: (-len(m), m[0]))
    out = []
    for i, members in enumerate(ordered):
        top = [names.get(s, s) for s in members[:10]]
        out.append(Community(i, members, ", ".join(top[:LABEL_NAMES]), method, top))
    return out


def surprising(g: Any, membership: dict[str, int]) -> list[tuple[str, str, int]]:
    """RELATED_TO pairs whose ends sit in two different communities, strongest first."""
    out = [(a, b, int(d["weight"])) for a, b, d in g.edges(data=True)
           if a in membership and b in membership and membership[a] != membership[b]]
    return sorted(out, key=lambda e: (-e[2], e[0], e[1]))
