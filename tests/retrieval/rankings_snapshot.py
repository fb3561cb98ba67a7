"""What the engine answers on the shipped samples atlas: the guard that speed work changes no ranking.

The snapshot (`fixtures/rankings.json`) holds, per query and profile, the top 10 (id and fused score
to 9 decimals), the three tiers and whether the engine abstained. It was written by the code before
issue 13's query work (92e9aebc) and must stay equal; a change that means to move results rewrites it
on purpose and says why in its commit:

    python -m tests.retrieval.rankings_snapshot      # rewrites fixtures/rankings.json from this code

Entities change the answers, so there is one snapshot per entity extractor: `rankings.json` with spaCy's
(the full install), `rankings_rules.json` with the rule-based extractor (the core without the `nlp` extra,
as CI's core-only pass runs it; written by 122c1d7's code, issue 29.6, and byte-identical from the core-only
venv and from `--ner rules` in the full one):

    python -m tests.retrieval.rankings_snapshot --ner rules tests/retrieval/fixtures/rankings_rules.json
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "rankings.json"
RULES_FIXTURE = FIXTURE.with_name("rankings_rules.json")
QUERIES = (
    "What does the GPL require when you distribute a modified program?",
    "Which licence lets a library be linked from proprietary software?",
    "When was version 3 of the GNU General Public License published?",
    "patent grant and retaliation",
    "Who publishes the GNU Free Documentation License?",
    "How does the Apache License treat contributions?",
    "Invariant Sections and Cover Texts",
    "copyleft timeline 1989 2007",
    "What changed between the LGPL 2.1 and LGPL 3?",
    "Tivoization and installation information",
    "What is the capital of Mongolia?",
    "source code offer for three years",
)
PROFILES = ("default", "original")


def snapshot(atlas: Any) -> dict[str, Any]:
    """Per 'profile | query': top 10, tiers and abstention, rounded where floats are compared."""
    out: dict[str, Any] = {"extractor": atlas.stats()["built_with"].get("extractor")}
    for profile in PROFILES:
        for q in QUERIES:
            r = atlas.query(q, profile=profile, result_limit=10)
            out[f"{profile} | {q}"] = {
                "top10": [[f.id, round(f.score, 9)] for f in r.results[:10]],
                "principal": [f.id for f in r.tiers.principal],
                "integrity": [i.id for i in r.tiers.integrity],
                "explorer": [[x.document_id, x.node_id, round(x.score, 9)] for x in r.tiers.explorer],
                "abstained": bool(r.abstained),
            }
    return out


def snapshots() -> dict[tuple[str, ...], Path]:
    """The snapshot files by the extractor(s) their atlas was built with."""
    found = {}
    for path in sorted(FIXTURE.parent.glob("rankings*.json")):
        found[tuple(json.loads(path.read_text(encoding="utf-8"))["extractor"] or ())] = path
    return found


def main() -> None:
    from ohara_lab import Atlas
    from ohara_lab.samples import corpus_dir

    args = sys.argv[1:]
    ner = {}
    if args[:1] == ["--ner"]:
        ner, args = {"ner": args[1]}, args[2:]
    offline = {"embedder": "none", "embed_paragraphs": False, "llm": "offline", "reference_date": "2026-11-29", **ner}
    with tempfile.TemporaryDirectory() as tmp, Atlas.open(tmp, **offline) as atlas:
        atlas.ingest([corpus_dir()], progress=False)
        snap = snapshot(atlas)
    target = Path(args[0]) if args else FIXTURE
    target.write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{target}: {len(snap) - 1} answers")


if __name__ == "__main__":
    main()
