"""The small things a new user meets first (issue 25, point 5), through the real `ohara` process.

* a failed first ingest leaves no atlas behind; a failed later one leaves the atlas alone;
* an empty atlas says to run `ohara ingest`, not `ohara embed`;
* Ctrl-C during ingest says how far it got and how to resume, and exits 130 (a real SIGINT);
* every value of `--json` output and of `to_dict()` is a plain Python type.
"""
from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ohara_lab import Atlas

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "ohara_lab" / "samples" / "corpus"
RESUME = "the atlas is consistent — run the same command again to resume"


def ohara(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OHARA_EMBEDDER": "none"}
    return subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False, **kwargs)


def _docs(tmp_path: Path, n: int = 3) -> list[Path]:
    paths = []
    for i in range(n):
        p = tmp_path / f"doc{i}.md"
        p.write_text(f"# Document {i}\n\nThe licence number {i} was replaced in {2000 + i} by a later licence.\n")
        paths.append(p)
    return paths


# ---------------------------------------------------------------------- a failed first ingest


def test_a_failed_first_ingest_creates_no_atlas(tmp_path):
    done = ohara("ingest", "missing.pdf", "--atlas", "A", cwd=tmp_path)
    assert done.returncode == 1
    assert "missing.pdf: no such file" in done.stdout + done.stderr
    assert not (tmp_path / "A").exists(), "an empty A/atlas.db was left behind"
    done = ohara("ingest", "--dry-run", "missing.pdf", "--atlas", "B", cwd=tmp_path)
    assert not (tmp_path / "B").exists(), "a dry run made an atlas"


def test_a_failed_first_ingest_into_an_existing_directory_keeps_the_directory(tmp_path):
    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "notes.txt").write_text("mine")
    ohara("ingest", "missing.pdf", "--atlas", "A", cwd=tmp_path)
    assert sorted(p.name for p in (tmp_path / "A").iterdir()) == ["notes.txt"]


def test_a_failed_later_ingest_leaves_the_atlas_alone(tmp_path):
    (doc,) = _docs(tmp_path, 1)
    assert ohara("ingest", str(doc), "--atlas", "A", cwd=tmp_path).returncode == 0
    assert ohara("ingest", "missing.pdf", "--atlas", "A", cwd=tmp_path).returncode == 1
    with Atlas.open(tmp_path / "A", read_only=True) as a:
        assert len(a.store.list_documents()) == 1


# ---------------------------------------------------------------------- the empty atlas


def test_an_empty_atlas_says_to_ingest(tmp_path):
    Atlas.open(tmp_path / "A").close()  # made, nothing ingested
    done = ohara("query", "which licence replaced the earlier one", "--atlas", "A", "--json", cwd=tmp_path)
    result = json.loads(done.stdout)
    hints = [result["abstain_reason"], *result["skipped_phases"].values()]
    assert any("ohara ingest" in h for h in hints), hints
    assert not any("ohara embed" in h for h in hints), hints
    text = ohara("query", "which licence replaced the earlier one", "--atlas", "A", cwd=tmp_path).stdout
    assert "ohara ingest" in text
    assert "ohara ingest" in ohara("answer", "which licence replaced it?", "--atlas", "A", cwd=tmp_path).stdout


# ---------------------------------------------------------------------- Ctrl-C


@pytest.fixture(autouse=True)
def python_sigint_handler():
    """Ctrl-C as a terminal delivers it, even when the suite itself runs as a background job (a shell starts
    those with SIGINT ignored, and a child inherits an ignored signal, while a handled one is reset to the
    default at exec, where the child's Python installs its own KeyboardInterrupt handler)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


class _Hold(http.server.BaseHTTPRequestHandler):
    """Answers nothing until the test is over: the ingest is provably inside its URL when SIGINT comes."""

    arrived = threading.Event()
    release = threading.Event()

    def do_GET(self):  # noqa: N802 - http.server's name
        type(self).arrived.set()
        type(self).release.wait(120)

    def log_message(self, *args):
        pass


def test_ctrl_c_during_ingest_says_how_to_resume_and_exits_130(tmp_path):
    pytest.importorskip("httpx", reason="URL ingest needs the web extra")
    docs = _docs(tmp_path, 2)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hold)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/page.html"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OHARA_EMBEDDER": "none", "PYTHONUNBUFFERED": "1"}
    # Files go first, then URLs: when the server sees the request, both files are stored.
    proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "ingest", *map(str, docs), url,
                             "--allow-private", "--atlas", "A"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert _Hold.arrived.wait(300), "the ingest never reached the URL"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        _Hold.release.set()
        server.shutdown()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert f"Interrupted after 2 of 3 documents; {RESUME}" in err
    assert "Aborted!" not in err and "Traceback" not in err
    with Atlas.open(tmp_path / "A", read_only=True) as a:
        assert len(a.store.list_documents()) == 2


def test_ctrl_c_between_files_resumes(tmp_path):
    """A real SIGINT delivered while the first file's outcome is reported; the rerun skips what was stored."""
    from ohara_lab.errors import IngestInterrupted

    docs = _docs(tmp_path, 3)
    # One document per commit, so the first outcome is reported before the second file (issue 30.2's write
    # groups report a group's outcomes when it commits; tests/ingest/test_write_groups.py has Ctrl-C in one).
    with Atlas.open(tmp_path / "A", embedder="none", write_group_docs=1) as a:
        with pytest.raises(IngestInterrupted) as stopped:
            a.ingest(docs, progress=False, on_outcome=lambda o: signal.raise_signal(signal.SIGINT))
        assert (stopped.value.done, stopped.value.total, stopped.value.exit_code) == (1, 3, 130)
        assert str(stopped.value) == f"Interrupted after 1 of 3 documents; {RESUME}"
        again = a.ingest(docs, progress=False)
    assert again.counts() == {"skipped": 1, "ingested": 2}


# ---------------------------------------------------------------------- plain types


def _not_plain(value, where="$"):
    """Paths in `value` whose value (or dict key) is not a JSON-plain Python type (np.float64 is a float
    subclass, np.int64 is not: json.dumps(default=str) turns the latter into a string)."""
    if isinstance(value, dict):
        out = [f"{where} key {k!r}" for k in value if type(k) is not str]
        return out + [p for k, v in value.items() for p in _not_plain(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _not_plain(v, f"{where}[{i}]")]
    return [] if value is None or type(value) in (str, int, float, bool) else [f"{where}: {type(value).__name__}"]


@pytest.fixture(scope="module")
def licence_atlas(tmp_path_factory):
    where = tmp_path_factory.mktemp("plain") / "atlas"
    with Atlas.open(where, embedder="none") as a:
        report = a.ingest([CORPUS], progress=False)
    return where, report


def test_to_dict_values_are_plain_python(licence_atlas):
    where, report = licence_atlas
    question = "Which licence versions replaced the earlier ones, and when?"
    with Atlas.open(where, read_only=True, embedder="none") as a:
        dicts = {"outcomes": [o.to_dict() for o in report.outcomes], "query": a.query(question).to_dict(),
                 "answer": a.answer(question).to_dict(), "stats": a.stats(),
                 "estimate": a.estimate_ingest([CORPUS]).to_dict()}
    assert _not_plain(dicts) == []


@pytest.mark.parametrize("args", [
    ["query", "Which licence versions replaced the earlier ones?", "--json"],
    ["answer", "When was version 3 of the GPL published?", "--json"],
    ["stats", "--json"], ["ls", "--json"], ["check", "--json"],
    ["ingest", "--dry-run", str(CORPUS), "--json"],
], ids=lambda a: a[0] + ("-dry-run" if "--dry-run" in a else ""))
def test_json_output_parses(licence_atlas, args, tmp_path):
    where, _ = licence_atlas
    done = ohara(*args, "--atlas", str(where), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert _not_plain(json.loads(done.stdout)) == []


def test_json_printer_writes_numpy_numbers_as_numbers(capsys):
    """The one JSON printer of every command: a numpy value that slips through prints as a number, never
    as the string `default=str` made of an np.int64 ("3")."""
    np = pytest.importorskip("numpy")
    from ohara_lab.cli_edge import print_json

    print_json({"n": np.int64(3), "x": np.float32(0.5), "v": np.arange(2), "ok": np.bool_(True),
                "path": Path("/a")})
    assert json.loads(capsys.readouterr().out) == {"n": 3, "x": 0.5, "v": [0, 1], "ok": True, "path": "/a"}
