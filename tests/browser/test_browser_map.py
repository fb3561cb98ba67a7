"""The map notebook in a real JupyterLab, in headless Chromium: it renders, a click inspects, no widget errors.

Needs Debian's chromium, node and playwright-core (`npm ci --prefix tests/browser`);
skips with the reason otherwise. Screenshots land in `test-artifacts/browser/`.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from browser_harness import JupyterLab, drive, missing_requirements

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "07_space_time_map.ipynb"
ARTIFACTS = REPO / "test-artifacts" / "browser"

# Runs in the notebook's kernel after all cells: a node with room around it on the canvas, and where it is.
PROBE = """import json as _json
_node = space_map.clear_pick_target(kinds=("document", "tag", "entity", "section"), margin_px=4)
_xy = space_map.screen_position(_node)
print("PROBE=" + _json.dumps({"node_id": _node, "x": _xy[0], "y": _xy[1], "width": space_map.width,
      "height": space_map.height, "title": space_map.inspector_source.inspect(_node).title,
      "camera": list(space_map.camera.position), "label_ids": {"camera": space_map.camera.model_id, "sprites": [s.model_id for s in space_map.labels.sprites],
                    "width": space_map.width, "height": space_map.height}}))"""
# After the orbit: the camera the kernel heard back from the browser, and the labels it chose to show.
LABEL_PROBE = """import json as _json
print("PROBE=" + _json.dumps({"camera": list(space_map.camera.position), "shown": len(space_map.label_screen_boxes())}))"""
SHOTS = [
    {"name": "entrance", "code": "space_map.clear(); space_map.stretch_control.value = 1.0; space_map.fit('entrance')"},
    {"name": "side", "code": "space_map.stretch_control.value = 0.35; space_map.fit('side')"},
]
BAD_CONSOLE = ("Error serializing", "DataCloneError", "Model not found", "Could not create a view",
               "Error setting state", "Failed to load model")


@pytest.mark.browser
@pytest.mark.timeout(1200)
def test_map_notebook_renders_and_inspects_in_chromium(tmp_path: Path) -> None:
    reason = missing_requirements()
    if reason:
        pytest.skip(reason)
    root = tmp_path / "lab"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy(NOTEBOOK, root / "notebooks" / NOTEBOOK.name)
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    with JupyterLab(root, env={"OHARA_EVAL_CACHE": str(tmp_path / "cache")}) as lab:
        result = drive(lab, f"notebooks/{NOTEBOOK.name}", ARTIFACTS / "map", probe_code=PROBE, click=True,
                       shots=SHOTS, orbit_steps=12, label_probe=LABEL_PROBE)
    assert "driverError" not in result, result.get("driverError")
    assert result["errors"] == [] and result["widgetErrors"] == []
    console = [line for line in result["consoleErrors"] if line.startswith("[pageerror]")
               or any(b in line for b in BAD_CONSOLE)]
    assert console == []
    # The canvas shows the map, not just the clear colour.
    assert result["canvases"] and result["canvases"][0]["cssW"] >= 600
    pixels = result["canvasPixels"]
    assert pixels["nonBackground"] / pixels["total"] > 0.005, pixels
    for shot in result["shots"]:
        assert shot["pixels"]["nonBackground"] / shot["pixels"]["total"] > 0.005, shot
    # A double-click on the probed node opens the inspector on that node, in the page and in the kernel.
    probe = result["probe"]
    assert probe["node_id"] and result["inspectorTitle"] == probe["title"]
    assert result["afterClick"]["selected"] == probe["node_id"]
    # The first view is fitted to the scene: what is drawn spans most of the canvas, not a clump in the middle.
    for name, px in [("first", pixels), *((s["name"], s["pixels"]) for s in result["shots"])]:
        x0, y0, x1, y1 = px["box"]
        span = max((x1 - x0) / px["width"], (y1 - y0) / px["height"])
        assert span >= 0.8, (name, px)
    # Labels as the browser draws them (three.js sprites): several shown, no two boxes overlapping,
    # in every view and after orbiting (the kernel re-declutters for the camera the browser sends back).
    views = result["labels"]
    assert set(views) >= {"initial", "orbited", "entrance", "side"}, views.keys()
    for name, found in views.items():
        boxes = [b["box"] for b in found.get("boxes", [])]
        assert len(boxes) >= 4, (name, found)
        clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if _overlap(a, b)]
        assert clashes == [], (name, clashes)
    assert result["afterOrbit"]["camera"] != result["probe"].get("camera"), "the kernel never heard the orbit"
    assert result["orbitMsPerStep"] < 1000, result["orbitMsPerStep"]  # orbiting stays interactive
    # The static figure the notebook writes exists without a browser.
    assert (root / "eval" / "map" / "space_time_map.png").is_file()
    assert (ARTIFACTS / "map-canvas.png").is_file() and (ARTIFACTS / "map-page-selected.png").is_file()


def _overlap(a: list[float], b: list[float], tolerance: float = 0.5) -> bool:
    """Two (x0, y0, x1, y1) boxes share more than `tolerance` pixels along both axes."""
    return min(a[2], b[2]) - max(a[0], b[0]) > tolerance and min(a[3], b[3]) - max(a[1], b[1]) > tolerance
