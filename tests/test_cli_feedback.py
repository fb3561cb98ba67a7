"""`ohara feedback` mirrors `Atlas.feedback`: a thumbs up/down lands in the store, bad input does not."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ohara_lab import Atlas
from tests.support import OFFLINE

ENV = {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}}


def ohara(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=300)


def stored(atlas: Path) -> list[tuple]:
    with Atlas.open(atlas, **OFFLINE) as a:
        return [(f["query"], f["node_id"], f["rank"], f["signal"]) for f in a.store.feedback()]


def test_feedback_is_stored_from_the_command_line(fresh_copy):
    proc = ohara("query", "patent licences", "--atlas", str(fresh_copy), "--json")
    assert proc.returncode == 0, proc.stderr
    first, second = (r["id"] for r in json.loads(proc.stdout)["results"][:2])
    up = ohara("feedback", "patent licences", first, "--signal", "positive", "--rank", "1", "--atlas", str(fresh_copy))
    assert up.returncode == 0, up.stderr
    assert up.stdout.strip() == f"stored positive feedback on {first} at rank 1"
    down = ohara("feedback", "patent licences", second, "--signal", "negative", "--atlas", str(fresh_copy))
    assert down.returncode == 0, down.stderr
    assert stored(fresh_copy) == [("patent licences", first, 1, "positive"), ("patent licences", second, None, "negative")]


def test_bad_feedback_is_refused_in_one_line_and_stores_nothing(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as a:
        node = a.query("patent licences").results[0].id
    cases = {
        ("patent", "paragraphs/no-such-node", "--signal", "positive"): "no node 'paragraphs/no-such-node'",
        ("patent", node, "--signal", "positive", "--rank", "0"): "rank is 1-based",
        ("patent", node, "--signal", "meh"): "'meh' is not one of",
    }
    for args, reason in cases.items():
        proc = ohara("feedback", *args, "--atlas", str(fresh_copy))
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert reason in proc.stderr, (args, proc.stderr)
    assert stored(fresh_copy) == []
