"""`ohara eval` end to end on a small generic dataset (real atlas, embedder none): the JSON contract."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ohara_lab.cli import main
from ohara_lab.entities.extract import spacy_available
from ohara_lab.eval.report import CONTRACT_METRICS

FIXTURE = Path(__file__).parent / "fixtures" / "runner"
CONFIGS = "bm25_only,full,no_corroboration,no_many_angle"
RATES = [m for m in CONTRACT_METRICS if m != "latency_ms_p50"]


def _eval(tmp: Path, *args: str):
    return CliRunner().invoke(main, ["eval", "--dataset", str(FIXTURE), "--embedder", "none",
                                     "--atlas-dir", str(tmp / "atlases"), "--resamples", "200", *args])


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("eval")
    result = _eval(tmp, "--configs", CONFIGS, "--json", "--out", str(tmp / "out"))
    assert result.exit_code == 0, result.output
    return tmp, json.loads(result.stdout)


def test_json_contract_keys_and_ranges(evaluated):
    _, data = evaluated
    assert {"dataset", "n_queries", "n_unanswerable", "configs"} <= set(data)
    assert data["dataset"] == "runner" and data["n_queries"] == 6 and data["n_unanswerable"] == 1
    assert list(data["configs"]) == CONFIGS.split(",")  # in the order asked
    for name, metrics in data["configs"].items():
        assert set(metrics) == set(CONTRACT_METRICS), name
        for key in RATES:
            assert metrics[key] is not None and 0.0 <= metrics[key] <= 1.0, (name, key)
        assert metrics["latency_ms_p50"] > 0


def test_hits_are_found_through_the_dataset_id_mapping(evaluated):
    # every gold document is literally named in its query: a broken store-id -> dataset-id
    # mapping would score 0 everywhere
    _, data = evaluated
    assert data["configs"]["bm25_only"]["hits@10"] == 1.0
    assert data["configs"]["full"]["mrr@10"] > 0.5


def test_topk_never_abstains(evaluated):
    _, data = evaluated
    assert data["configs"]["no_corroboration"]["null_abstention"] == 0.0


def test_significance_against_full_is_reported(evaluated):
    tmp, data = evaluated
    sig = data["significance"]
    assert set(sig) == {"bm25_only", "no_corroboration", "no_many_angle"}
    c = sig["no_many_angle"]["mrr@10"]
    assert 0.0 <= c["p_value"] <= 1.0 and c["ci_low"] <= c["diff"] <= c["ci_high"]
    assert c["n"] == 5  # the five answerable queries
    assert sig["bm25_only"]["null_abstention"]["n"] == 1
    rows = list(csv.DictReader((tmp / "out" / "significance.csv").open()))
    assert {r["config"] for r in rows} == set(sig)


def test_out_dir_holds_tables_and_per_query_rows(evaluated):
    tmp, data = evaluated
    out = tmp / "out"
    for name in ("summary.csv", "significance.csv", "by_type.csv", "per_query.csv", "report.md", "results.json"):
        assert (out / name).is_file(), name
    full = json.loads((out / "results.json").read_text())
    assert full["configs"] == data["configs"]
    rows = full["per_query"]
    assert len(rows) == 6 * 4
    assert {r["config"] for r in rows} == set(data["configs"])
    assert all(r["latency_ms"] > 0 and "hit_ranks" in r for r in rows)
    by_type = full["by_type"]["full"]
    assert set(by_type) == {"single", "multi", "null"}
    assert by_type["null"]["hits@4"] is None and by_type["null"]["null_abstention"] is not None
    assert "| config |" in (out / "report.md").read_text()
    assert len(list(csv.DictReader((out / "per_query.csv").open()))) == 24


def test_metric_that_does_not_apply_is_null(evaluated):
    tmp, _ = evaluated
    result = _eval(tmp, "--configs", "full", "--limit", "2", "--json")  # q1, q2: no null query
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["n_unanswerable"] == 0
    assert data["configs"]["full"]["null_abstention"] is None


def test_the_table_is_printed_without_json(evaluated):
    tmp, _ = evaluated
    result = _eval(tmp, "--configs", "full,bm25_only")
    assert result.exit_code == 0, result.output
    assert "| bm25_only |" in result.stdout and "p=" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--configs", "full,bogus"], "unknown config(s) bogus"),
    (["--unanswerable", "0.5", "--configs", "nope"], "unknown config(s) nope"),
])
def test_unknown_config_exits_2_with_one_line(tmp_path, args, message):
    result = _eval(tmp_path, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_dataset_and_missing_data_exit_2(tmp_path):
    runner = CliRunner()
    unknown = runner.invoke(main, ["eval", "--dataset", "no-such-set", "--atlas-dir", str(tmp_path)])
    assert unknown.exit_code == 2 and "unknown dataset" in unknown.stderr
    missing = runner.invoke(main, ["eval", "--dataset", "musique", "--data-dir", str(tmp_path / "absent"),
                                   "--atlas-dir", str(tmp_path)])
    assert missing.exit_code == 2 and missing.stderr.startswith("ohara: error:")


def test_cached_atlas_is_reused_and_flagged_when_ingest_code_changed(tmp_path, monkeypatch):
    from ohara_lab.eval import build
    from ohara_lab.eval.datasets.registry import load_dataset
    from ohara_lab.eval.runner import run_matrix

    ds = load_dataset(str(FIXTURE))
    first = build.build_atlas(ds, tmp_path, embedder="none", progress=False)
    first.close()
    assert not first.info.reused and first.info.outcomes == {"ingested": 8}
    assert sorted(first.doc_ids.values()) == sorted(d.id for d in ds.documents)
    again = build.build_atlas(ds, tmp_path, embedder="none", progress=False)
    assert again.info.reused and not again.info.stale_code and again.info.directory == first.info.directory
    again.close()
    monkeypatch.setattr(build, "code_fingerprint", lambda: "other code")
    with build.build_atlas(ds, tmp_path, embedder="none", progress=False) as stale:
        assert stale.info.reused and stale.info.stale_code
        run = run_matrix(ds, stale, "full", n_resamples=100, progress=False)
    assert any("other ingest code" in n for n in run.notes)
    rebuilt = build.build_atlas(ds, tmp_path, embedder="none", progress=False, rebuild=True)
    rebuilt.close()
    assert not rebuilt.info.reused and rebuilt.info.code == "other code"


def test_answers_report_the_answer_metrics_per_config(tmp_path):
    result = _eval(tmp_path, "--configs", "bm25_only,full", "--answers", "--json", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data["configs"]) == ["bm25_only", "full"]
    for name, m in data["configs"].items():
        assert m["n"] == 5  # the answerable queries with an answer
        for key in ("short_em", "short_f1", "answer_contains", "context_has_answer"):
            assert 0.0 <= m[key] <= 1.0, (name, key)
        assert m["answer_contains"] <= m["context_has_answer"]  # the answer reads only that context
        assert m["answer_words"] > 0 and 0.0 <= m["support_precision"] <= 1.0
    assert (tmp_path / "out" / "answers.json").exists() and (tmp_path / "out" / "answer_metrics.csv").exists()
    # per question type too: its counts add up to the config's
    assert sum(m["n"] for m in data["by_type"]["full"].values()) == data["configs"]["full"]["n"]
    assert (tmp_path / "out" / "answer_metrics_by_type.csv").exists()


@pytest.mark.skipif(not spacy_available(), reason="short answers read the entity types spaCy gives (the rule "
                    "extractor types no names): pip install 'ohara-lab[nlp]'")
def test_short_answers_find_the_typed_golds(tmp_path):
    result = _eval(tmp_path, "--configs", "bm25_only", "--answers", "--json")
    assert result.exit_code == 0, result.output
    # every gold is named in its passage and asked for by type: the short answers find some of them
    assert json.loads(result.stdout)["configs"]["bm25_only"]["short_em"] > 0
