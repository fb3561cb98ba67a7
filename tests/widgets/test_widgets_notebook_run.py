"""The map notebook runs headless under papermill and leaves its static figure behind."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_space_time_map.ipynb"


@pytest.mark.slow
def test_papermill_runs_the_map_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    papermill = pytest.importorskip("papermill")
    work = tmp_path / "notebooks"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    monkeypatch.setenv("OHARA_EVAL_CACHE", str(tmp_path / "cache"))  # the kernel inherits it
    out_dir = tmp_path / "eval" / "map"
    papermill.execute_notebook(str(work / NOTEBOOK.name), str(tmp_path / "out.ipynb"), cwd=str(work),
                               parameters={"out_dir": str(out_dir)}, kernel_name="python3", progress_bar=False)
    png = out_dir / "space_time_map.png"
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out_dir / "space_time_map_xz.png").is_file()
    from ohara_lab.layout import MapLayout

    layout = MapLayout.from_npz(out_dir / "space_time_map.npz")
    assert len(layout.discs.document_ids) == 7 and len(layout) > 500
