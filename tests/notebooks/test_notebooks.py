"""The paper notebooks: well-formed sources, and executed for real with papermill.

* Static checks (fast): one `parameters` cell per notebook, the first code cell and runnable on
  its own (papermill injects after it), outputs stripped, no logic (ARCHITECTURE rule 8: no
  def/class/loops), the evaluation setup is the one package call `prepare(...)`, every parameter
  `ohara reproduce` passes exists.
* Execution on the tiny generic fixture (embedder none, shared atlas cache): 02 and 03 run
  in the default suite; the rest, and every notebook at its real defaults (MuSiQue /
  QASPER-leval subsets, needs ../shared/datasets), are `slow` (CI runs them).
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from ohara_lab.eval.reproduce import DATASET_JOBS, NOTEBOOKS, full_jobs

nbformat = pytest.importorskip("nbformat", reason="running notebooks needs papermill (dev or lab extra)")

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
FIXTURE = ROOT / "tests" / "eval" / "fixtures" / "runner"
SHARED = ROOT.parent / "shared" / "datasets"
# Files each notebook must leave in its out_dir.
EXPECTED = {
    "01_build_atlas": ["graph_stats.csv", "graph_stats.md", "ingest_stages.csv", "ingest_stages.png"],
    "02_retrieval_matrix": ["summary.csv", "report.md", "results.json", "per_query.csv", "matrix.png",
                            "beyond/summary.csv", "beyond/against_baselines.csv"],
    "03_abstention": ["sweep.csv", "sweep.md", "pareto_front.csv", "tradeoff.png", "auroc.csv", "roc.png",
                      "operating_points.csv", "risk_coverage.png", "coefficients.csv", "scores.csv"],
    "04_weight_tuning": ["grid_tuning_split.csv", "test_split.csv", "refeed_per_rank.csv", "grid.png"],
    "05_decomposition": ["decomposition.csv", "decomposition.md", "decomposition.png"],
    "06_generation": ["accuracy.csv", "accuracy_by_type.csv", "answers.csv", "accuracy.png"],
}
DEFAULT_SUITE = {"02_retrieval_matrix", "03_abstention"}


def _load(name: str):
    return nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)


def _parameters_cell(name: str):
    return next(c for c in _load(name).cells if "parameters" in c.metadata.get("tags", []))


def _declared(cell) -> set[str]:
    return {t.target.id for t in ast.parse(cell.source).body if isinstance(t, ast.AnnAssign)}


def _parameters(name: str) -> set[str]:
    return _declared(_parameters_cell(name))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_source_is_clean(name):
    book = _load(name)
    nbformat.validate(book)
    tagged = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged `parameters`"
    assert {"out_dir", "dataset", "data_dir", "embedder", "seed"} <= _parameters(name)
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        assert cell.outputs == [] and cell.execution_count is None, "strip outputs from committed notebooks"
        for node in ast.walk(ast.parse(cell.source)):
            assert not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.For, ast.While, ast.Lambda)), \
                f"{name}: logic belongs in ohara_lab, not in the notebook ({type(node).__name__})"


@pytest.mark.parametrize("path", sorted(NB_DIR.glob("*.ipynb")), ids=lambda p: p.stem)
def test_parameters_cell_comes_first_and_stands_alone(path):
    """Papermill injects its values right after this cell: nothing before it may be needed to run it."""
    book = _load(path.stem)
    first_code = next(c for c in book.cells if c.cell_type == "code")
    assert "parameters" in first_code.metadata.get("tags", []), "the `parameters` cell is the first code cell"
    namespace: dict = {}
    exec(compile(first_code.source, f"{path.stem}:parameters", "exec"), namespace)  # a fresh namespace: no imports
    assert _declared(first_code) <= set(namespace)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_setup_is_one_package_call(name):
    """Dataset, atlas and summary come from `prepare(...)`, called once, never pasted as its parts."""
    calls = [node.func for c in _load(name).cells if c.cell_type == "code"
             for node in ast.walk(ast.parse(c.source)) if isinstance(node, ast.Call)]
    called = [f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "" for f in calls]
    assert called.count("prepare") == 1
    assert not {"prepare_dataset", "build_atlas", "load_dataset"} & set(called)


@pytest.mark.parametrize("path", sorted(NB_DIR.glob("*.ipynb")), ids=lambda p: p.stem)
def test_papermill_sees_every_parameter(path):
    """`papermill --help-notebook` lists each parameter with its help (an `=` in a comment hides it)."""
    from papermill.translators import PythonTranslator

    cell = _parameters_cell(path.stem)
    assert {p.name for p in PythonTranslator.inspect(cell)} == _declared(cell)


def test_reproduce_passes_only_declared_parameters():
    passed = {"data_dir", "out_dir", "cache_dir", "embedder"}
    jobs = full_jobs(list(DATASET_JOBS))  # the paper's corpora too, though they are not on this machine
    assert {job.dataset for job in jobs} == set(DATASET_JOBS)  # every corpus has a job to check
    for job in jobs:
        assert set(job.parameters) | passed <= _parameters(job.notebook), job.label


def _execute(name: str, out_dir: Path, cache_dir: Path, **params) -> Path:
    import papermill as pm

    out_dir.mkdir(parents=True, exist_ok=True)
    output = out_dir / f"{name}.ipynb"
    pm.execute_notebook(str(NB_DIR / f"{name}.ipynb"), str(output), cwd=str(NB_DIR), progress_bar=False,
                        parameters={"out_dir": str(out_dir), "cache_dir": str(cache_dir), **params})
    return output


def _fixture_params(name: str) -> dict:
    params = {"dataset": str(FIXTURE), "limit": None, "distractors": None, "unanswerable": None, "embedder": "none"}
    if "n_resamples" in _parameters(name):
        params["n_resamples"] = 200
    if "foreign_nulls" in _parameters(name):  # MultiHop-RAG's questions live in ../shared: not needed here
        params["foreign_nulls"] = 0
    if "resamples" in _parameters(name):
        params["resamples"] = 200
    return params


@pytest.fixture(scope="session")
def atlas_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("nb-atlases")


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=() if n in DEFAULT_SUITE else pytest.mark.slow) for n in NOTEBOOKS])
def test_notebook_runs_on_the_fixture(name, tmp_path, atlas_cache):
    executed = _execute(name, tmp_path / name, atlas_cache, **_fixture_params(name))
    for f in EXPECTED[name]:
        assert (tmp_path / name / f).is_file(), f
    book = json.loads(executed.read_text())
    errors = [o for c in book["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


def test_reproduce_runs_the_notebooks_and_writes_the_json_contract(tmp_path, atlas_cache):
    from ohara_lab.eval.reproduce import reproduce

    params = {**_fixture_params("02_retrieval_matrix"), "configs": "bm25_only,full"}
    runs = reproduce(out=tmp_path, quick=True, only="02", atlas_dir=atlas_cache, embedder="none",
                     extra_parameters=params)
    assert [(r.label, r.status) for r in runs] == [("02_retrieval_matrix/quick", "ok")], runs
    out = tmp_path / "02_retrieval_matrix" / "quick"
    assert (out / "02_retrieval_matrix.ipynb").is_file()
    data = json.loads((out / "results.json").read_text())
    assert set(data["configs"]) == {"full", "bm25_only"}
    assert data["significance"]["bm25_only"]["mrr@10"]["p_value"] is not None


def test_reproduce_reports_a_failing_notebook_and_goes_on(tmp_path, atlas_cache):
    from ohara_lab.eval.reproduce import reproduce

    runs = reproduce(out=tmp_path, quick=True, only="02", atlas_dir=atlas_cache,
                     extra_parameters={"dataset": str(tmp_path / "no-such-dataset")})
    assert runs[0].status == "failed" and "unknown dataset" in runs[0].error


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_at_its_defaults(name, tmp_path, atlas_cache):
    if not (SHARED / "musique").is_dir():
        pytest.skip(f"real datasets not found at {SHARED}")
    _execute(name, tmp_path, atlas_cache, data_dir=str(SHARED))
    for f in EXPECTED[name]:
        assert (tmp_path / f).is_file(), f


def test_outputs_land_where_the_notebook_says_wherever_papermill_starts(tmp_path, atlas_cache, monkeypatch):
    """`out_dir` relative, as the committed defaults are ("../eval/results/..."): read from notebooks/, not
    from the directory papermill was started in (issue 25). Papermill runs from a deep directory elsewhere,
    so the two readings of the path name different places."""
    import os

    import papermill as pm

    target = tmp_path / "out"
    relative = os.path.relpath(target, NB_DIR)  # "../../../tmp/.../out", as a notebook's parameter
    elsewhere = tmp_path.joinpath(*"abcdefghijklmnop")
    elsewhere.mkdir(parents=True)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the kernel imports this checkout's package from anywhere
    params = {**_fixture_params("02_retrieval_matrix"), "configs": "bm25_only", "beyond_configs": "",
              "out_dir": relative, "cache_dir": str(atlas_cache)}
    pm.execute_notebook(str(NB_DIR / "02_retrieval_matrix.ipynb"), str(tmp_path / "executed.ipynb"),
                        cwd=str(elsewhere), progress_bar=False, parameters=params)
    assert (target / "summary.csv").is_file() and (target / "matrix.png").is_file()
    assert not [p for p in elsewhere.rglob("*") if p.is_file()], "outputs landed under papermill's directory"


def test_relative_paths_follow_the_notebook_jupyter_names(tmp_path, monkeypatch):
    """In JupyterLab the kernel knows its notebook ($JPY_SESSION_NAME): a copied notebook writes beside
    its copy; without a Jupyter server (papermill) the repository's notebooks/ folder is the anchor."""
    from ohara_lab.eval.paths import notebook_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert notebook_path("../eval/map") == ROOT / "eval" / "map"
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "lab" / "notebooks" / "07_space_time_map.ipynb"))
    assert notebook_path("../eval/map") == tmp_path / "lab" / "eval" / "map"
    assert notebook_path(tmp_path / "abs") == tmp_path / "abs"
