"""Peak RSS and build time of `SpaceTimeMap` on a real atlas (issue 14, point 4).

    python benchmarks/map_memory.py ~/.cache/ohara-lab/offline/scale-atlas

Opens the atlas read-only, builds the widget (snapshot, layout, level of detail, scene) in
this fresh process and prints the text nodes it knows, those it draws, seconds and peak
RSS beside the RSS before the map (interpreter, numpy, pythreejs, the atlas opened).
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("atlas")
    args = parser.parse_args(argv)
    from ohara_lab import Atlas
    from widgets.space_time_map import SpaceTimeMap

    with Atlas.open(args.atlas, read_only=True, llm="offline", embedder="none") as atlas:
        before = _rss_mb()
        t0 = time.perf_counter()
        space_map = SpaceTimeMap(atlas)
        seconds = time.perf_counter() - t0
        texts, edges = len(space_map.map_input.text_nodes), space_map.map_input.edges
        print(f"{len(space_map.map_input.documents):,} documents, {texts:,} text nodes "
              f"({len(space_map.detail):,} drawn), {len(edges):,} edges ({edges.nbytes() / 1e6:.1f} MB of columns), "
              f"built in {seconds:.1f} s; peak RSS {_rss_mb():.0f} MB ({before:.0f} MB before the map)")


if __name__ == "__main__":
    main()
