"""Curation on a real atlas (the shipped samples) through `Atlas` and the `ohara entities` CLI."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ohara_lab import Atlas
from ohara_lab.cli import main
from ohara_lab.samples import corpus_dir
from tests.store.builders import atlas_state
from ohara_lab.entities.extract import spacy_available
from tests.support import OFFLINE


def _errors(atlas):
    return [f"{p.code}: {p.detail}" for p in atlas.check() if p.severity == "error" or p.code == "ROLLUP_STALE"]


def test_merge_reingest_undo_leaves_the_atlas_as_before(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        before = atlas_state(atlas.store)
        op = atlas.merge_entities(["gnu", "general-public-license"], into="free-software-foundation",
                                  reason="test: same organisation")
        merged = atlas.store.get_entities(["free-software-foundation"])[0]
        assert {"GNU", "General Public License"} <= set(merged.aliases) and not atlas.store.get_entities(["gnu"])
        assert _errors(atlas) == []
        report = atlas.ingest([corpus_dir()], force=True, progress=False)  # every document re-ingested
        assert report.ok and not atlas.store.get_entities(["gnu"])  # the merge survives the re-ingest
        assert atlas.store.get_entities(["free-software-foundation"])[0].mention_count == merged.mention_count
        assert _errors(atlas) == []
        undone = atlas.undo_entities()
        assert undone.id == op.id and undone.undone_at
        assert _errors(atlas) == []
        assert atlas_state(atlas.store) == before
        assert [o.undone_by for o in atlas.entity_log()] == [undone.undone_by]


def test_cli_lists_shows_merges_and_undoes(fresh_copy):
    run = lambda *args: CliRunner().invoke(main, [*args, "--atlas", str(fresh_copy)])  # noqa: E731
    listed = run("entities", "ls", "licen", "--json")
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)
    slugs = [e["slug"] for e in rows]
    # Every entity listed has the search text in its name, an alias or its slug (the `ls` contract).
    assert "apache-license" in slugs
    assert all("licen" in " ".join([e["slug"], e["name"].lower(), *map(str.lower, e["aliases"])]) for e in rows)
    shown = run("entities", "show", "apache-license", "--json")
    assert json.loads(shown.output)["entity"]["name"] == "Apache License"
    merged = run("entities", "merge", "gnu", "--into", "free-software-foundation", "--reason", "same body")
    assert merged.exit_code == 0 and merged.output.startswith("step 1: merge gnu -> free-software-foundation")
    log = run("entities", "log", "--json")
    assert [(o["op"], o["reason"], o["undone_at"]) for o in json.loads(log.output)] == [("merge", "same body", None)]
    assert run("check").exit_code == 0
    assert run("entities", "undo").exit_code == 0
    again = run("entities", "undo", "1")
    assert again.exit_code == 2 and "already undone" in again.output
    missing = run("entities", "merge", "no-such-entity", "--into", "gnu")
    assert missing.exit_code == 2 and "no entity with slug 'no-such-entity'" in missing.output


def test_clean_dry_run_changes_nothing(fresh_copy):
    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        before = atlas_state(atlas.store)
        # The noise rules find nothing in the samples (with spaCy's entities), so the dry run is asked about
        # two named entities: a dry run with nothing to remove would change nothing whatever it did.
        found = atlas.clean_entities(["gnu", "apache-license"], dry_run=True)
        assert found == {"gnu": "named", "apache-license": "named"}
        assert atlas_state(atlas.store) == before and atlas.entity_log() == []
        # The same clean for real changes the atlas, so the equality above is one a dry run could break.
        atlas.clean_entities(["gnu", "apache-license"])
        assert atlas_state(atlas.store) != before and not atlas.store.get_entities(["gnu", "apache-license"])


@pytest.mark.skipif(not spacy_available(), reason="the rule extractor finds no name spelt two ways in the samples; "
                    "spaCy does: pip install -e '.[nlp]'")
def test_auto_entity_dedup_merges_same_name_spellings_after_ingest(fresh_copy):
    from ohara_lab.entities.curation import duplicate_groups

    with Atlas.open(fresh_copy, **OFFLINE) as atlas:
        # One name spelt two ways in two paragraphs of a document (the licences' own, "Contribution(s"
        # beside "Contributions", is noise the entity rules now drop).
        atlas.ingest_text("# Minutes\n\nThe Rock-Pool Society met in Cornwall in 2019 to count the crabs of the north "
                          "rocks.\n\nThe RockPool Society met in Cornwall in 2020 to count the anemones of the south "
                          "rocks.\n", title="Minutes", source_id="minutes")
        groups = duplicate_groups(atlas.store)
        assert ("rock-pool-society", ["rockpool-society"]) in groups
    with Atlas.open(fresh_copy, **{**OFFLINE, "auto_entity_dedup": True}) as atlas:
        atlas.ingest_text("A note on the Apache License and the GNU project.", title="Note", source_id="note")
        log = atlas.entity_log()
        assert len(log) == len(groups) and {(o.op, o.actor) for o in log} == {("dedup", "auto-dedup")}
        assert duplicate_groups(atlas.store) == []
        assert _errors(atlas) == []
