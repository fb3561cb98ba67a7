"""`build_layout` end to end on a small corpus worked out by hand, plus the 200-document build.

Corpus over the FLOOR_TREE of conftest.py (categories A, B, C, A1, A2):
    d1  tag C, 2019-05-01, EVERGREEN   → C: r 700, θ 6.0254 → (676.87, −178.46), Z 0
    d2  tag A, 2021                    → A: r 442.72, θ 2.9536 → (−434.92, 82.74), Z 440
    d3  no tag, no date                → origin, undated slab Z −220
    d4  tag A, 2021-03-01              → same (x, y, Z) as d2: the pair fans out by ±80 on x
d1's disc: sections s1, s2 (level 1) r 35; s3 (level 2) r max(67, 35) = 67;
text ring p1, p2, p3 r max(99, 35) = 99; disc radius 131.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ohara_lab.errors import UsageError
from ohara_lab.layout import (
    DocumentInput,
    EdgeInput,
    EntityInput,
    MapInput,
    MapLayout,
    SectionInput,
    TextNodeInput,
    build_layout,
)
from ohara_lab.layout.camera import bounds, fit_camera
from ohara_lab.layout.colors import category_color
from ohara_lab.layout.synthetic import TreeOntology, synthetic_map_input, synthetic_ontology

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def corpus() -> MapInput:
    return MapInput(
        documents=[
            DocumentInput("documents/d1", "A long title that goes on and on", "2019-05-01", None, ["tagC"], "EVERGREEN"),
            DocumentInput("documents/d2", "Second", "2021", None, ["tagA"]),
            DocumentInput("documents/d3", "Undated"),
            DocumentInput("documents/d4", "Fourth", None, "2021-03-01", ["tagA"], None, "CURRENT"),
        ],
        sections=[
            SectionInput("sections/s1", "documents/d1", 1, None, 0, [], "Intro"),
            SectionInput("sections/s2", "documents/d1", 1, None, 1, ["tagA1"], "Body"),
            SectionInput("sections/s3", "documents/d1", 2, "sections/s1", 2),
            SectionInput("sections/orphan", "documents/missing", 1),
        ],
        text_nodes=[
            TextNodeInput("paragraphs/p1", "documents/d1", "sections/s1", "paragraph", ["tagB", "tagC"]),
            TextNodeInput("tables/p2", "documents/d1", "sections/s2", "table", ["tagB"]),
            TextNodeInput("paragraphs/p3", "documents/d1", None, "figure", ["tagC"]),
            TextNodeInput("paragraphs/p4", "documents/missing", None, "paragraph", ["tagB"]),
        ],
        entities=[
            EntityInput("entities/ab", "AB", ["documents/d1", "documents/d2"], 5),
            EntityInput("entities/lost", "Lost", ["documents/missing"], 1),
        ],
        edges=[
            EdgeInput("documents/d1", "sections/s1", "HAS_CHILD"),
            EdgeInput("documents/d1", "sections/s2", "HAS_CHILD"),
            EdgeInput("sections/s1", "sections/s3", "HAS_CHILD"),
            EdgeInput("sections/s1", "paragraphs/p1", "HAS_CHILD"),
            EdgeInput("sections/s2", "tables/p2", "HAS_CHILD"),
            EdgeInput("documents/d1", "sections/s1", "HAS_CHILD"),  # duplicate
            EdgeInput("sections/s1", "paragraphs/ghost", "HAS_CHILD"),  # dangling
            EdgeInput("documents/d1", "documents/d2", "SIMILAR_TO"),
            EdgeInput("paragraphs/p1", "entities/ab", "MENTIONS"),
        ],
    )


def _edge_set(layout: MapLayout) -> set[tuple[str, str, str]]:
    return {(layout.ids[a], layout.ids[b], layout.edge_kind_names[k])
            for (a, b), k in zip(layout.edges.tolist(), layout.edge_kinds.tolist())}


def test_rows_in_kind_order(corpus: MapInput, floor_tree: TreeOntology) -> None:
    layout = build_layout(corpus, floor_tree)
    assert layout.ids == [
        "documents/d1", "documents/d2", "documents/d3", "documents/d4",
        "sections/s1", "sections/s2", "sections/s3",
        "paragraphs/p1", "paragraphs/p3", "tables/p2",
        "entities/ab", "entities/lost",
        "tags/tagB", "tags/tagC",
    ]
    assert [layout.kind_names[k] for k in layout.kinds] == (
        ["document"] * 4 + ["section"] * 3 + ["paragraph", "figure", "table"] + ["entity"] * 2 + ["tag"] * 2)
    assert layout.node_document.tolist() == [0, 1, 2, 3, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1]
    assert layout.positions.dtype == layout.colors.dtype == layout.sizes.dtype == np.float32
    assert layout.edges.dtype == np.int32


def test_document_positions_labels_and_undated_slab(corpus: MapInput, floor_tree: TreeOntology) -> None:
    layout = build_layout(corpus, floor_tree)
    p = layout.positions
    assert p[0] == pytest.approx([676.8698735, -178.4577664, 0.0])
    assert p[1] == pytest.approx([-434.9187687 + 80, 82.7385317, 440.0])  # fan-out i = 0 of 2
    assert p[3] == pytest.approx([-434.9187687 - 80, 82.7385317, 440.0], abs=1e-4)  # i = 1: angle π
    assert p[2].tolist() == [0.0, 0.0, -220.0]
    # Titles are cut at a word boundary with an ellipsis (30 characters at most).
    assert layout.labels[:3] == ["A long title that goes on and…  [2019]", "Second  [2021]", "Undated  [undated]"]
    assert layout.timeline.tick_labels == ["undated", "2019", "2020", "2021"]
    assert layout.guides.z0 == -300.0  # 80 below the undated slab
    assert layout.guides.z1 == 520.0  # max(440, 220) + 80


def test_disc_of_d1(corpus: MapInput, floor_tree: TreeOntology) -> None:
    layout = build_layout(corpus, floor_tree)
    d1 = layout.positions[0]
    assert layout.discs.radii.tolist() == [131.0, 34.0, 34.0, 34.0]
    assert layout.positions[layout.index_of("sections/s2")] - d1 == pytest.approx([-35.0, 0.0, 0.0], abs=1e-4)
    s3 = layout.positions[layout.index_of("sections/s3")] - d1
    assert s3 == pytest.approx([67.0, 0.0, 0.0], abs=1e-4)
    # Text ring in reading order p1, p2, p3: p2 is second of three, at 120°, radius 99.
    assert layout.positions[layout.index_of("tables/p2")] - d1 == pytest.approx([-49.5, 85.7365, 0.0], abs=1e-3)


def test_satellites(corpus: MapInput, floor_tree: TreeOntology) -> None:
    layout = build_layout(corpus, floor_tree)
    ab = layout.positions[layout.index_of("entities/ab")]
    assert ab[2] == pytest.approx(220.0)  # mean of Z 0 and 440
    assert layout.sizes[layout.index_of("entities/ab")] == pytest.approx(10.0)
    # tagB: p1 and p2 → count 2 → size 6; held by s1 and s2, whose centroid is d1's centre.
    assert layout.sizes[layout.index_of("tags/tagB")] == pytest.approx(6.0)
    assert layout.positions[layout.index_of("tags/tagB")][2] == pytest.approx(0.0)
    # E = max(131, 100) + 120 = 251; a tag sits E + 80 = 331 from d1, give or take ±30 of jitter per axis.
    gap = np.hypot(*(layout.positions[layout.index_of("tags/tagB")][:2] - layout.positions[0][:2]))
    assert 331 - 30 * math.sqrt(2) <= gap <= 331 + 30 * math.sqrt(2)


def test_edges_are_filtered_deduplicated_and_tethered(corpus: MapInput, floor_tree: TreeOntology) -> None:
    layout = build_layout(corpus, floor_tree)
    assert layout.edge_kind_names == ("HAS_CHILD", "SIMILAR_TO", "TAG_TETHER")
    assert _edge_set(layout) == {
        ("documents/d1", "sections/s1", "HAS_CHILD"),
        ("documents/d1", "sections/s2", "HAS_CHILD"),
        ("sections/s1", "sections/s3", "HAS_CHILD"),
        ("sections/s1", "paragraphs/p1", "HAS_CHILD"),
        ("sections/s2", "tables/p2", "HAS_CHILD"),
        ("documents/d1", "documents/d2", "SIMILAR_TO"),
        ("tags/tagB", "sections/s1", "TAG_TETHER"),
        ("tags/tagC", "sections/s1", "TAG_TETHER"),
        ("tags/tagB", "sections/s2", "TAG_TETHER"),
        ("tags/tagC", "documents/d1", "TAG_TETHER"),  # p3 has no section: its document holds it
    }
    assert len(layout.edges) == 10
    everything = build_layout(corpus, floor_tree, edge_kinds=None)
    assert ("paragraphs/p1", "entities/ab", "MENTIONS") in _edge_set(everything)
    assert len(everything.edges) == 11


def test_include_hides_kinds_without_moving_others(corpus: MapInput, floor_tree: TreeOntology) -> None:
    full = build_layout(corpus, floor_tree)
    partial = build_layout(corpus, floor_tree, include=("section", "table", "figure", "tag"))
    assert "paragraphs/p1" not in partial.ids and "documents/d1" not in partial.ids
    assert partial.positions[partial.index_of("sections/s2")].tolist() == full.positions[full.index_of("sections/s2")].tolist()
    assert partial.discs.node_index.tolist() == [-1, -1, -1, -1]
    # Tags now come from the table and the figure only: tagB and tagC once each → size 5.5.
    assert partial.sizes[partial.index_of("tags/tagB")] == pytest.approx(5.5)
    assert all(kind != "HAS_CHILD" or a.startswith("sections/") for a, _, kind in _edge_set(partial))
    with pytest.raises(UsageError, match="widget"):
        build_layout(corpus, floor_tree, include=("widget",))


def test_colour_modes_and_auras(corpus: MapInput, floor_tree: TreeOntology) -> None:
    layout = build_layout(corpus, floor_tree, color_mode="by_document")
    c_colour = category_color(2, 5)  # C is index 2 of [A, B, C, A1, A2]
    for node in ("documents/d1", "sections/s2", "tables/p2"):  # all of d1 takes its category's colour
        assert layout.colors[layout.index_of(node)] == pytest.approx(c_colour)
    assert layout.auras.colors[0] == pytest.approx(c_colour)  # auras follow the document colour
    assert layout.auras.scales[0].tolist() == [131.0, 131.0, 550.0]  # EVERGREEN: 220·5/2
    assert layout.auras.scales[3].tolist() == [34.0, 34.0, 110.0]  # CURRENT: 220·1/2
    by_type = build_layout(corpus, floor_tree, color_mode="by_type")
    assert by_type.auras.colors[3] == pytest.approx([101 / 255, 123 / 255, 131 / 255])  # CURRENT #657b83
    with pytest.raises(UsageError):
        build_layout(corpus, floor_tree, color_mode="rainbow")
    with pytest.raises(UsageError):
        build_layout(corpus, floor_tree, resolution="fortnight")


def test_camera_tunnel_entrance() -> None:
    box = bounds(np.array([[0.0, 0.0, 0.0], [100.0, 50.0, 400.0]]))
    camera = fit_camera(box)
    # c = (50, 25, 200), w = 100, maxDim = 400: dist = 200/tan(27.5°)·1.6 = 614.714.
    assert camera.position == pytest.approx([120.0, 75.0, -199.5642824], rel=1e-6)
    assert camera.target.tolist() == [50.0, 25.0, 200.0]
    assert camera.fov == 55.0
    single = fit_camera(bounds(np.zeros((1, 3))))
    assert single.position == pytest.approx([0.0, 0.0, -219.7603553], rel=1e-6)  # maxDim floored at 220


def _assert_same(a: object, b: object, path: str = "layout") -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b), path
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.init:
                _assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    else:
        assert type(a) is type(b) and a == b, path


def test_npz_round_trip(corpus: MapInput, floor_tree: TreeOntology, tmp_path: Path) -> None:
    layout = build_layout(corpus, floor_tree)
    target = tmp_path / "map.npz"
    layout.to_npz(target)
    with np.load(target, allow_pickle=False) as data:  # plain arrays only
        assert all(data[name].dtype != object for name in data.files)
    loaded = MapLayout.from_npz(target)
    _assert_same(layout, loaded)
    assert loaded.index_of("tags/tagC") == 13
    assert layout.nbytes() > layout.positions.nbytes + layout.colors.nbytes
    with pytest.raises(KeyError, match="nowhere"):
        loaded.index_of("nowhere")


def test_subset_keeps_one_document(corpus: MapInput, floor_tree: TreeOntology) -> None:
    part = corpus.subset(["documents/d1"])
    assert [d.id for d in part.documents] == ["documents/d1"]
    assert [e.id for e in part.entities] == ["entities/ab"]
    layout = build_layout(part, floor_tree)
    assert ("documents/d1", "documents/d2", "SIMILAR_TO") not in _edge_set(layout)


def _digest(layout: MapLayout) -> str:
    h = hashlib.sha256()
    for array in (layout.positions, layout.colors, layout.sizes, layout.edges, layout.edge_kinds):
        h.update(array.tobytes())
    h.update("\n".join(layout.ids).encode())
    return h.hexdigest()


DIGEST_SCRIPT = """
import hashlib
from ohara_lab.layout import build_layout
from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology
layout = build_layout(synthetic_map_input(60, seed=3), synthetic_ontology(), color_mode="by_sumo")
h = hashlib.sha256()
for array in (layout.positions, layout.colors, layout.sizes, layout.edges, layout.edge_kinds):
    h.update(array.tobytes())
h.update("\\n".join(layout.ids).encode())
print(h.hexdigest())
"""


def test_deterministic_across_processes_and_hash_seeds() -> None:
    here = _digest(build_layout(synthetic_map_input(60, seed=3), synthetic_ontology(), color_mode="by_sumo"))
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        out = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == here


def test_two_hundred_document_corpus_builds() -> None:
    corpus = synthetic_map_input(200)
    layout = build_layout(corpus, synthetic_ontology())
    assert corpus.node_count() > 12_000
    assert len(layout) == corpus.node_count() + 25  # every node drawn, plus the top 25 tags
    assert np.isfinite(layout.positions).all()
    assert len(layout.timeline.tick_labels) <= 201  # ≤ 200 dated ticks + the undated one
    assert layout.edges.max() < len(layout)
