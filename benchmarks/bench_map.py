"""Benchmark the space-time map like the paper's visualisation table (spec §6 "Benchmark").

    python benchmarks/bench_map.py                      # synthetic + MuSiQue, with the browser
    python benchmarks/bench_map.py --no-browser         # Python-side numbers only
    python benchmarks/bench_map.py --inputs synthetic --docs 10 200

For each input and size (10, 25, 50, 100, 200 documents, and for synthetic also 530, 1,060 and
2,130 documents ≈ 30k, 60k and 120k nodes: `--no-big` leaves those out) it reports:
  nodes        documents + sections + text nodes + entities (the paper's "nodes")
  drawn        rows of the layout (the nodes plus the top SUMO tags)
  layout       `build_layout` time, median of --repeat runs
  widget       `SpaceTimeMap(...)` construction (layout + every pythreejs object), median of 3
  sent         bytes the widget tree sends on display: binary buffers + JSON state
  first frame  in headless Chromium (SwiftShader), time from running the map cell to the
               first WebGL draw call: kernel build + comm traffic + three.js setup + render
Inputs: "synthetic" is `synthetic_map_input` (the paper's corpus shape: ~62 nodes per
document, 200 documents ≈ 12.3k nodes); "musique" is a real atlas of the first N MuSiQue
titles (short Wikipedia documents, so far fewer nodes per document), offline, no embedder.

Writes eval/map/benchmark.md and eval/map/benchmark.csv (next to this repository's eval/).
"""
from __future__ import annotations

import argparse
import csv
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))  # the JupyterLab + Chromium harness the browser tests use

SIZES = (10, 25, 50, 100, 200)
BIG = (530, 1060, 2130)  # synthetic only: ≈ 30k, 60k and 120k nodes (the corpus shape of the 200-document row)
PAPER = {10: (713, 1.5), 25: (1983, 1.3), 50: (3592, 1.2), 100: (6801, 1.8), 200: (12323, 2.3)}  # nodes, rebuild s


@dataclass
class Row:
    input: str
    docs: int
    nodes: int
    drawn: int
    edges: int
    batches: int
    adapter_ms: float | None
    layout_ms: float
    widget_ms: float
    sent_bytes: int
    buffer_bytes: int
    json_bytes: int
    drawn_text: int = 0
    text_nodes: int = 0
    recolor_ms: float = 0.0
    recolor_bytes: int = 0
    rebuild_ms: float = 0.0
    rebuild_bytes: int = 0
    first_frame_ms: float | None = None
    browser_pixels: float | None = None  # share of non-background canvas pixels after the first frame
    orbit_ms: float | None = None


def _median_ms(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), result


def _source(kind: str, n: int, cache: Path) -> tuple[Any, Any, Any]:
    """(widget source, map input, ontology) for one row."""
    if kind == "synthetic":
        from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology

        mi = synthetic_map_input(n, seed=0)
        return mi, mi, synthetic_ontology()
    from ohara_lab.widgets.workbench import open_workbench_atlas

    from ohara_lab.layout.from_atlas import map_input_from_atlas
    from ohara_lab.ontology import load_ontology

    atlas = open_workbench_atlas(corpus="musique", max_documents=n, cache_dir=str(cache))
    return atlas, map_input_from_atlas(atlas), load_ontology()


def measure(kind: str, n: int, repeat: int, cache: Path) -> Row:
    from ohara_lab.widgets import SpaceTimeMap
    from ohara_lab.widgets.payload import close_tree

    from ohara_lab.layout import build_layout
    from ohara_lab.layout.from_atlas import map_input_from_atlas

    source, mi, ontology = _source(kind, n, cache)
    adapter_ms = _median_ms(lambda: map_input_from_atlas(source), repeat)[0] if kind != "synthetic" else None
    layout_ms, layout = _median_ms(lambda: build_layout(mi, ontology), repeat)
    widget_times, widget = [], None
    for _ in range(3):
        if widget is not None:
            close_tree(widget)  # free the previous run's comms before timing the next
        t0 = time.perf_counter()
        widget = SpaceTimeMap(source, ontology=ontology)
        widget_times.append((time.perf_counter() - t0) * 1e3)
    sent = widget.payload_bytes()
    row = Row(kind, len(mi.documents), mi.node_count(), len(layout), len(layout.edges), len(widget.buckets),
              adapter_ms, layout_ms, statistics.median(widget_times), sent.total, sent.buffer_bytes, sent.json_bytes,
              drawn_text=len(widget.detail), text_nodes=int(widget._is_text.sum()))
    row.recolor_ms, row.recolor_bytes, row.rebuild_ms, row.rebuild_bytes = _colour_change(widget, repeat)
    close_tree(widget)
    return row


def _colour_change(widget: Any, repeat: int) -> tuple[float, int, float, int]:
    """(ms, bytes) of a colour-mode change by `recolor` and by a full `rebuild`, medians over `repeat` switches."""
    from ohara_lab.widgets.payload import state_bytes

    modes = ("by_type", "by_sumo", "by_document")
    recolor, rebuild = [], []
    for i in range(max(1, repeat)):
        t0 = time.perf_counter()
        widget.recolor(modes[i % 3])
        recolor.append((time.perf_counter() - t0) * 1e3)
    # What a recolouring sends: the colour buffers it rewrote (nodes, disc outlines, auras).
    changed = [*widget.node_objects, widget.discs, *widget.aura_objects]
    recolor_bytes = sum(o.geometry.attributes["color"].array.nbytes for o in changed)
    for i in range(max(1, repeat)):
        widget.color_control.unobserve_all("value")  # time the old path alone: set the mode, rebuild everything
        widget.color_control.value = modes[(i + 1) % 3]
        t0 = time.perf_counter()
        widget.rebuild()
        rebuild.append((time.perf_counter() - t0) * 1e3)
    rebuild_bytes = sum(state_bytes(o).total for o in [*widget.node_objects, *widget._content])
    return statistics.median(recolor), recolor_bytes, statistics.median(rebuild), rebuild_bytes


SETUP = {
    "synthetic": ("from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology\n"
                  "source = synthetic_map_input({n}, seed=0)\nontology = synthetic_ontology()"),
    "musique": ("from ohara_lab.ontology import load_ontology\nfrom ohara_lab.widgets.workbench import open_workbench_atlas\n"
                "source = open_workbench_atlas(corpus='musique', max_documents={n}, cache_dir={cache!r})\n"
                "ontology = load_ontology()"),
}


def _notebook(path: Path, kind: str, n: int, cache: Path) -> None:
    import nbformat

    cells = [nbformat.v4.new_code_cell(SETUP[kind].format(n=n, cache=str(cache)) +
                                       "\nfrom ohara_lab.widgets import SpaceTimeMap"),
             nbformat.v4.new_code_cell("space_map = SpaceTimeMap(source, ontology=ontology)\nspace_map")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def browser_first_frames(rows: list[Row], cache: Path, artifacts: Path, repeat: int,
                         screens: Path | None = None, after_row: Callable[[], None] = lambda: None) -> None:
    from browser_harness import JupyterLab, drive, missing_requirements

    reason = missing_requirements()
    if reason:
        print(f"browser timings skipped: {reason}")
        return
    with tempfile.TemporaryDirectory(prefix="ohara-bench-map-") as tmp:
        root = Path(tmp)
        with JupyterLab(root, env={"OHARA_EVAL_CACHE": str(cache)}) as lab:
            for row in rows:
                name = f"bench_{row.input}_{row.docs}.ipynb"
                _notebook(root / name, row.input, row.docs, cache)
                frames, orbits = [], []
                prefix = artifacts / f"bench-{row.input}-{row.docs}"
                for i in range(max(1, repeat)):  # each run: a fresh page and a fresh kernel
                    t0 = time.perf_counter()
                    try:
                        result = drive(lab, name, prefix, time_last_cell=True, orbit_steps=12)
                    except RuntimeError as exc:  # a driver that timed out or crashed costs this run, not the table
                        result = {"driverError": f"{type(exc).__name__}: {exc}"}
                    finally:
                        _shutdown_kernels(lab)
                    print(f"  {row.input} {row.docs} run {i + 1}: {time.perf_counter() - t0:.0f} s", flush=True)
                    if "driverError" in result or result.get("firstDrawMs") is None:
                        print(f"  {row.input} {row.docs} run {i + 1}: no frame ({result.get('driverError', '')[:200]})")
                        continue
                    frames.append(result["firstDrawMs"])
                    if result.get("orbitMsPerStep") is not None:
                        orbits.append(result["orbitMsPerStep"])
                    px = result.get("canvasPixels") or {}
                    row.browser_pixels = px.get("nonBackground", 0) / px["total"] if px.get("total") else None
                row.first_frame_ms = statistics.median(frames) if frames else None
                row.orbit_ms = statistics.median(orbits) if orbits else None
                if screens is not None and prefix.with_name(prefix.name + "-canvas.png").is_file():
                    screens.mkdir(parents=True, exist_ok=True)
                    shutil.copy(prefix.with_name(prefix.name + "-canvas.png"), screens / f"{row.input}-{row.docs}.png")
                print(f"  browser {row.input:<9} {row.docs:>4} docs: first frame {_fmt(row.first_frame_ms, '.0f')} ms "
                      f"(median of {len(frames)}: {[round(f) for f in frames]}), orbit {_fmt(row.orbit_ms, '.0f')} ms/step")
                after_row()  # the table so far: a stopped run keeps the rows it finished


def _shutdown_kernels(lab: Any) -> None:
    """One kernel per run: stop the previous notebook's kernel so runs do not pile up on two cores."""
    for session in lab._api("/api/sessions") or []:
        lab._api(f"/api/sessions/{session['id']}", method="DELETE")


def _fmt(value: float | None, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def table(rows: list[Row]) -> str:
    head = ("| input | docs | nodes | drawn | text drawn | edges | batches | layout ms | widget ms | sent MB | "
            "first frame ms | orbit ms/step | recolour ms (KB) | rebuild ms (KB) | "
            "nodes ×10 | layout ×10 | sent ×10 | paper nodes (same docs) | paper rebuild s |")
    lines = [head, "|" + "|".join(["---"] * (head.count("|") - 1)) + "|"]
    base: dict[str, Row] = {}
    for r in rows:
        b = base.setdefault(r.input, r)
        paper = PAPER.get(r.docs, (None, None))
        lines.append(
            f"| {r.input} | {r.docs} | {r.nodes:,} | {r.drawn:,} | {r.drawn_text:,} of {r.text_nodes:,} | {r.edges:,} | "
            f"{r.batches} | {r.layout_ms:.1f} | {r.widget_ms:.0f} | {r.sent_bytes / 1e6:.2f} | "
            f"{_fmt(r.first_frame_ms, '.0f')} | {_fmt(r.orbit_ms, '.0f')} | {r.recolor_ms:.0f} ({r.recolor_bytes / 1e3:.0f}) | "
            f"{r.rebuild_ms:.0f} ({r.rebuild_bytes / 1e3:.0f}) | "
            f"{r.nodes / b.nodes:.1f} | {r.layout_ms / b.layout_ms:.1f} | {r.sent_bytes / b.sent_bytes:.1f} | "
            f"{_fmt(paper[0], ',')} | {_fmt(paper[1], '.1f')} |")
    return "\n".join(lines)


def _write(rows: list[Row], out: Path, browser_repeat: int) -> None:
    """eval/map/benchmark.md and .csv for the rows measured so far."""
    text = table(rows)
    machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    command = "python benchmarks/bench_map.py " + " ".join(sys.argv[1:]) if sys.argv[1:] else "python benchmarks/bench_map.py"
    (out / "benchmark.md").write_text(
        "# Space-time map benchmark\n\n"
        f"`{command.strip()}` on {machine}; browser: headless Chromium (SwiftShader), "
        "first frame = running the map cell → first WebGL draw "
        f"(median of {browser_repeat} fresh page + kernel runs).\n"
        "Synthetic = `synthetic_map_input` (the paper's corpus shape); musique = a real offline atlas of the first "
        "N MuSiQue titles. ×10 columns are ratios to the 10-document row of the same input. The paper's rebuild "
        "(QASPER, ARM64 Chromium) re-created the Three.js scene in the browser; ours splits that work into layout "
        "(numpy), widget construction (Python) and first frame (browser, which includes the widget construction). "
        "Text drawn = paragraphs/figures/tables in the first frame (level of detail above the widget's detail budget); "
        "recolour = a colour-mode change as the widget does it now (colour arrays rewritten) next to the old path "
        "(`rebuild()`: layout and every object re-created and re-sent), same run; orbit = ms per orbit step while "
        "dragging (one animation frame per mouse move). Above the detail budget (20,000 text nodes) edges are drawn only "
        "within the documents whose text is drawn, and above 1,000 documents the decay auras start hidden (the checkbox "
        "shows them): each cost ~40 % of an orbit frame at 120k nodes. Screenshots of each row's first frame: `screens/`.\n\n"
        + text + "\n", encoding="utf-8")
    with open(out / "benchmark.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", nargs="+", default=["synthetic", "musique"], choices=["synthetic", "musique"])
    parser.add_argument("--docs", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--no-big", action="store_true", help="leave out the 30k/60k/120k-node synthetic rows")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of build_layout per row")
    parser.add_argument("--no-browser", action="store_true", help="skip the headless-Chromium first-frame timings")
    parser.add_argument("--browser-repeat", type=int, default=3, help="browser runs per row (median reported)")
    parser.add_argument("--cache", default="", help="atlas cache for the MuSiQue rows (default: the eval cache)")
    parser.add_argument("--out", default=str(REPO / "eval" / "map"), help="where benchmark.md / .csv go")
    args = parser.parse_args(argv)

    from ohara_lab.eval.paths import default_cache_dir

    cache = Path(args.cache).expanduser() if args.cache else default_cache_dir()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    for kind in args.inputs:
        for n in [*args.docs, *(BIG if kind == "synthetic" and not args.no_big else ())]:
            row = measure(kind, n, args.repeat, cache)
            rows.append(row)
            print(f"{kind:<9} {n:>3} docs: {row.nodes:>6} nodes, layout {row.layout_ms:7.1f} ms, "
                  f"widget {row.widget_ms:6.0f} ms, sent {row.sent_bytes / 1e6:5.2f} MB")
    write = lambda: _write(rows, out, args.browser_repeat)  # noqa: E731 - the same call after every row
    write()
    if not args.no_browser:
        browser_first_frames(rows, cache, REPO / "test-artifacts" / "bench", args.browser_repeat, out / "screens", write)
        write()
    print(table(rows))
    print(f"wrote {out / 'benchmark.md'} and {out / 'benchmark.csv'}")


if __name__ == "__main__":
    main()
