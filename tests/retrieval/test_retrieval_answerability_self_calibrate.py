"""Self-calibration without labels: `ohara calibrate --auto`, and at the end of a large enough batch ingest."""
from __future__ import annotations

import json
import subprocess
import sys

from ohara_lab import Atlas
from ohara_lab.retrieval.answerability.profile import MIN_TWINS, PROFILE_META_KEY, stored_profile
from ohara_lab.samples import corpus_dir

from tests.support import OFFLINE, offline_env


def test_a_batch_ingest_of_enough_paragraphs_stores_its_profile(fresh_copy):
    with Atlas.open(fresh_copy, read_only=True, **OFFLINE) as atlas:
        stored = atlas.store.get_meta(PROFILE_META_KEY)
        assert stored and stored[0]["graph_version"] == atlas.store.graph_version()
        settings = atlas.settings.override(abstain="model")
        profile = atlas.engine.answerability_profile(settings, lexical=True)
        assert profile.rows == stored[0]["rows"]  # read back, not asked again
        result = atlas.query("What does the GPL require of distributors?")
        assert result.answerability.threshold_from == "atlas twins" and result.answerability.probes >= MIN_TWINS


def test_small_ingests_and_the_opt_out_ask_nothing(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    (small / "a.md").write_text("# A note\n\nThe GNU project started in 1983 under Richard Stallman.\n")
    with Atlas.open(tmp_path / "one", **OFFLINE) as atlas:
        report = atlas.ingest([small], progress=False)
        assert report.calibration is None and atlas.store.get_meta(PROFILE_META_KEY) is None
    with Atlas.open(tmp_path / "off", **{**OFFLINE, "auto_calibrate": False}) as atlas:
        report = atlas.ingest([corpus_dir()], progress=False)
        assert report.calibration is None and atlas.store.get_meta(PROFILE_META_KEY) is None
        found = atlas.self_calibrate()  # asked for explicitly, it runs
        assert found.twins >= MIN_TWINS and found.threshold is not None
        assert found.twins + found.answered == found.probes
        assert stored_profile(atlas.store.get_meta(PROFILE_META_KEY), atlas.store.graph_version(), found.config)


def test_self_calibration_is_deterministic_and_reports_its_cost(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        first = atlas.self_calibrate()
        again = atlas.self_calibrate()
    assert first.to_dict() | {"seconds": 0} == again.to_dict() | {"seconds": 0}
    assert first.queries == 2 * first.probes and first.seconds > 0
    assert "probe questions" in first.summary() and "threshold" in first.summary()


def test_the_cli_calibrates_on_the_atlas_itself(fresh_copy):
    run = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "calibrate", "--auto", "--atlas", str(fresh_copy),
                          "--json"], capture_output=True, text=True, env=offline_env(), timeout=600)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found["twins"] >= MIN_TWINS and found["keep"] == 0.92
    bad = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "calibrate", "--auto", "--dataset", "musique",
                          "--atlas", str(fresh_copy)], capture_output=True, text=True, env=offline_env(), timeout=120)
    assert bad.returncode == 2 and "--auto needs no --dataset" in bad.stderr


def test_the_probes_features_and_evidence_equal_a_full_query_s(fresh_copy):
    """A probe stops after answerability (no tiers, no views): what it keeps must equal what the whole
    `finish` gives, the features and the text of the top results both, for the answerable and the twin."""
    from ohara_lab.retrieval.answerability.probes import make_probes  # noqa: PLC0415
    from ohara_lab.retrieval.answerability.profile import build_profile  # noqa: PLC0415

    with Atlas.open(fresh_copy, read_only=True, **OFFLINE) as atlas:
        engine, settings = atlas.engine, atlas.settings.override(abstain="model", abstain_probes=12)
        quiet = settings.override(abstain="features", llm="offline")

        def full(question, left_out):
            state = engine.start(question, None, quiet, left_out)
            engine.retrieve(state)
            result = engine.finish(state, after_tiers=False)  # tiers and views built, as probes did before
            texts = [result.views[f.id].content for f in result.results[:5] if f.id in result.views]
            return dict(result.answerability.features), texts

        probes = make_probes(atlas.store, settings.abstain_probes)
        expected = build_profile(probes, full, atlas.store.graph_version(), "k")
        got = engine.probe_profile(settings, "k")
    assert got == expected and len(got.rows) == 2 * len(probes) == 24
    assert any(r["kind"] == "null" for r in got.rows) and all(r["features"] for r in got.rows)
