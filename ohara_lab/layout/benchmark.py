"""Time `build_layout` on the synthetic corpus: `python -m ohara_lab.layout.benchmark [--docs 200]`.

The corpus mirrors the original's largest benchmark row (200 documents,
~12.3k nodes, spec §6), where the browser needed 2.3 s per rebuild.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ohara_lab.layout.colors import COLOR_MODES
from ohara_lab.layout.maplayout import MapLayout
from ohara_lab.layout.scene import build_layout
from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology

T = TypeVar("T")


def _timed(fn: Callable[[], T], repeat: int) -> tuple[float, float, T]:
    """(min, median) seconds over `repeat` runs, and the last result."""
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200, help="documents in the synthetic corpus")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per measurement")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    args = parser.parse_args(argv)

    corpus = synthetic_map_input(args.docs, seed=args.seed)
    ontology = synthetic_ontology()
    print(
        f"corpus: {len(corpus.documents)} docs, {len(corpus.sections)} sections, "
        f"{len(corpus.text_nodes)} text nodes, {len(corpus.entities)} entities "
        f"= {corpus.node_count()} nodes; {len(corpus.edges)} edges"
    )
    for mode in COLOR_MODES:
        best, median, layout = _timed(functools.partial(build_layout, corpus, ontology, color_mode=mode), args.repeat)
        print(f"build_layout {mode:<12} min {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms")
    print(f"layout: {len(layout)} rows, {len(layout.edges)} edges, {layout.nbytes() / 1e6:.2f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "map.npz"
        best, median, _ = _timed(functools.partial(layout.to_npz, path), args.repeat)
        print(
            f"to_npz                    min {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms   "
            f"({path.stat().st_size / 1e6:.2f} MB on disk)"
        )
        best, median, _ = _timed(functools.partial(MapLayout.from_npz, path), args.repeat)
        print(f"from_npz                  min {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
