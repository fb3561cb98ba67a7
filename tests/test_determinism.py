"""Offline, everything gives the same numbers twice — across processes and hash seeds."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, sys
from ohara_lab import Atlas
from ohara_lab.samples import corpus_dir
from tests.support import OFFLINE
atlas_dir, out = sys.argv[1], sys.argv[2]
with Atlas.open(atlas_dir, **OFFLINE) as a:
    if sys.argv[3] == "build":
        assert a.ingest([corpus_dir()], progress=False).ok
    snap = {"stats": a.stats(),
            "edges": sorted([e.from_id, e.to_id, e.relation, json.dumps(e.attrs, sort_keys=True)] for e in a.store.edges()),
            "docs": sorted(json.dumps({k: v for k, v in d.to_dict().items() if k != "upload_time"}, sort_keys=True)
                           for d in a.documents())}
    for q in ["patent licences and conveying", "Which licence came first, GPL 2 or LGPL 2.1?",
              "Free Software Foundation copyleft", "what is the latest GNU licence"]:
        r = a.query(q)
        snap[q] = [[f.id, round(f.score, 12)] for f in r.fused] + [["principal"] + [f.id for f in r.tiers.principal]]
json.dump(snap, open(out, "w"))
"""


def _run(tmp_path, name: str, seed: str, mode: str, atlas) -> dict:
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "PYTHONHASHSEED": seed}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(atlas), str(out), mode], capture_output=True, text=True,
                          env=env, timeout=900, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def test_queries_are_identical_across_hash_seeds(samples_atlas_dir, tmp_path):
    a = _run(tmp_path, "a", "1", "query", samples_atlas_dir)
    b = _run(tmp_path, "b", "2", "query", samples_atlas_dir)
    assert a == b


@pytest.mark.slow
def test_ingest_is_identical_across_hash_seeds(tmp_path):
    a = _run(tmp_path, "a", "3", "build", tmp_path / "atlas-a")
    b = _run(tmp_path, "b", "4", "build", tmp_path / "atlas-b")
    assert a == b
