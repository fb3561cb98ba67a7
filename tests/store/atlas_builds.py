"""Atlases built from the shared corpora, and their per-table digests (`ohara_lab.store.dump`).

`python -m tests.store.atlas_builds samples-none demo-none musique-none samples demo samples-rules demo-rules` rebuilds the committed "before"
digests in tests/store/data/atlas_digests.json (run it only on a commit whose atlases are
the reference); the tests in test_atlas_digests.py rebuild each atlas and compare.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ohara_lab.atlas import Atlas
from ohara_lab.samples import corpus_dir
from ohara_lab.settings import Settings
from ohara_lab.store.dump import digests

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "samples"
MUSIQUE = SHARED / "datasets" / "musique"
DIGESTS = Path(__file__).with_name("data") / "atlas_digests.json"
REFERENCE_DATE = "2025-01-01"


def _settings(embedder: str, ner: str = "auto") -> Settings:
    # env={}: the developer's OHARA_* variables must not change what is built.
    return Settings.from_env(env={}, embedder=embedder, ner=ner, reference_date=REFERENCE_DATE)


def build_files(directory: Path, source: Path, embedder: str, ner: str = "auto") -> Path:
    with Atlas.open(directory, settings=_settings(embedder, ner)) as atlas:
        report = atlas.ingest([source], progress=False)
        assert report.ok, report
    return directory


def build_musique(directory: Path, embedder: str = "none") -> Path:
    from ohara_lab.eval.build import build_atlas  # noqa: PLC0415
    from ohara_lab.eval.datasets.musique import load_musique  # noqa: PLC0415

    built = build_atlas(
        load_musique(MUSIQUE), directory, embedder=embedder, settings=_settings(embedder), progress=False, rebuild=True
    )
    built.atlas.close()
    (found,) = [p for p in directory.iterdir() if (p / "atlas.db").is_file()]
    return found


# name -> build(directory) -> atlas directory. "-none": no vectors, entities from `auto` (spaCy where it is
# installed: those cases run only where it is); "-rules": no vectors, the rule extractor (every venv,
# CI's core-only one included); the others store the installed embedder's vectors, compared byte for
# byte, so they run with that embedder only.
CASES: dict[str, Any] = {
    "samples-none": lambda d: build_files(d, SAMPLES, "none"),
    "demo-none": lambda d: build_files(d, corpus_dir(), "none"),
    "musique-none": lambda d: build_musique(d, "none"),
    "samples-rules": lambda d: build_files(d, SAMPLES, "none", "rules"),
    "demo-rules": lambda d: build_files(d, corpus_dir(), "none", "rules"),
    "samples": lambda d: build_files(d, SAMPLES, "auto"),
    "demo": lambda d: build_files(d, corpus_dir(), "auto"),
}
EMBEDDER_KEY = "_embedder"  # in the digests file: what `auto` resolved to when the vector cases were made


def auto_embedder() -> str:
    from ohara_lab.eval.build import resolve_embedder  # noqa: PLC0415

    return resolve_embedder("auto")[0]


def places() -> dict[str, str]:
    """Source folders as placeholders: an origin_path names the checkout, not the write."""
    out = {}
    for folder, token in ((SAMPLES, "<samples>"), (Path(corpus_dir()), "<demo-corpus>")):
        out[str(folder)] = out[str(Path(folder).resolve())] = token
    return out


def case_digests(name: str) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix=f"digest-{name}-") as tmp:
        return digests(CASES[name](Path(tmp) / "atlas"), places())


def main(names: list[str]) -> int:
    known = json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}
    if any(not n.endswith("-none") for n in names):
        known[EMBEDDER_KEY] = auto_embedder()
    for name in names:
        known[name] = case_digests(name)
        print(name, sum(t["rows"] for t in known[name].values()), "rows", file=sys.stderr)
    DIGESTS.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
