"""One home per name (issue 29, point 5): node ids are built and parsed only through `ids.py`,
relation names come only from `records`, and the environment is read only by `settings.py`.

The checker reads the source (ast), so a docstring or comment that names a relation is fine;
a string constant equal to a relation name, `"entities/" + slug`, `f"entities/{slug}"`,
`nid.startswith("documents/")` or `os.environ` outside the homes is not.

`python tests/test_names.py [-v] [PACKAGE_DIR]` prints the counts per rule, with and without the allowlist.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import ohara_lab
import pytest

if __name__ == "__main__":  # run as a script: the repository's benchmarks/ holds the scanner
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import code_scan  # noqa: E402
from ohara_lab.ids import COLLECTIONS  # noqa: E402
from ohara_lab.records import RELATIONS  # noqa: E402

ROOT = Path(ohara_lab.__file__).parent
WIDGETS = ROOT.parent / "widgets"

HOMES = code_scan.HOMES
# Nothing may be added here: every name has its home (the write path folded at the writeset merge).
ALLOWLIST: set[str] = set()
RULES = code_scan.NameRules(RELATIONS, COLLECTIONS)


def violations(source: str) -> list[tuple[str, int, str]]:
    """(rule, line, snippet) for every name spelled outside its home in `source` (`benchmarks/code_scan.py`)."""
    return RULES.violations(source)


def package_violations(allowlist: set[str] = ALLOWLIST) -> list[tuple[str, str, int, str]]:
    """(file, rule, line, snippet) over ohara_lab/, skipping each rule's home and `allowlist`."""
    # widgets/ installs as ohara_lab.widgets from the repo's top-level folder: checked where it is present.
    paths = sorted(ROOT.rglob("*.py")) + sorted(WIDGETS.rglob("*.py"))
    rel = [(p.relative_to(ROOT if p.is_relative_to(ROOT) else ROOT.parent).as_posix(), p) for p in paths]
    return RULES.package_violations(rel, allowlist)


def test_names_live_in_their_homes() -> None:
    found = package_violations()
    assert found == [], "names spelled outside ids.py / records.py / settings.py:\n" + "\n".join(
        f"  {f}:{line} [{rule}] {snippet}" for f, rule, line, snippet in found
    )


def test_allowlist_names_files_that_exist() -> None:
    """A file the other branch removes (store/common.py is to disappear) leaves the list with it."""
    assert [rel for rel in sorted(ALLOWLIST) if not (ROOT / rel).is_file()] == []


def test_checker_catches_each_kind() -> None:
    source = "\n".join(
        [
            "import os",
            "def f(slug, nid):",
            '    """Adds SIMILAR_TO edges (a docstring may say so)."""',
            '    a = "entities/" + slug',
            '    b = f"paragraphs/{nid}-00001"',
            '    c = nid.startswith("documents/")',
            '    d = ("x", "SIMILAR_TO")',
            "    q = \"SELECT 1 FROM edges WHERE relation = 'MENTIONS' AND x = ?\"",
            "    m = 'has no MENTIONS edge'",
            "    w = \"WHERE node NOT LIKE 'documents/%'\"",
            '    e = os.environ.get("OHARA_X")',
            '    g = os.getenv("HOME")',
            '    h = f"documents/{slug}/index"  # names: a wiki path, not a node id',
            "    return a, b, c, d, e, g, h",
        ]
    )
    found = violations(source)
    assert Counter(rule for rule, _, _ in found) == {"relation": 2, "id-build": 2, "id-parse": 2, "env": 2}
    assert [line for rule, line, _ in found if rule == "id-build"] == [4, 5]


def test_checker_passes_the_spelled_through_homes_form() -> None:
    source = "\n".join(
        [
            "from ohara_lab import ids",
            "from ohara_lab.records import Rel",
            "def f(slug, nid, settings):",
            '    return ids.entity_id(slug), ids.in_collection(nid, "documents"), Rel.SIMILAR_TO,'
            ' f"FILTER e.relation == \'{Rel.SIMILAR_TO}\'", settings.atlas, "similar_to", "entities"',
        ]
    )
    assert violations(source) == []


def counts(allowlist: set[str]) -> Counter[str]:
    return Counter(rule for _, rule, _, _ in package_violations(allowlist))


if __name__ == "__main__":
    # python tests/test_names.py [-v] [PACKAGE_DIR]: the counts for another checkout (e.g. main's ohara_lab/)
    verbose = "-v" in sys.argv
    paths = [a for a in sys.argv[1:] if a != "-v"]
    if paths:
        ROOT = Path(paths[0]).resolve()
    for label, allow in (("all files", set()), ("outside the allowlist", ALLOWLIST)):
        found = package_violations(allow)
        by_rule = Counter(rule for _, rule, _, _ in found)
        files = {rule: len({f for f, r, _, _ in found if r == rule}) for rule in by_rule}
        print(f"{label}: " + ", ".join(f"{r}={by_rule[r]} in {files[r]} files" for r in sorted(by_rule)))
        if verbose:
            for f, rule, line, snippet in found:
                print(f"  {f}:{line} [{rule}] {snippet}")


def test_ids_build_and_parse_one_grammar() -> None:
    from ohara_lab import ids

    assert ids.entity_id("ha-noi") == "entities/ha-noi" and ids.slug_of("entities/ha-noi") == "ha-noi"
    assert ids.document_id("4f2a") == ids.document_id("documents/4f2a") == "documents/4f2a"
    assert ids.section_id("4f2a-00003") == "sections/4f2a-00003"
    assert ids.in_collection("tables/x-00001", ids.PARAGRAPHS, ids.TABLES)
    assert not ids.in_collection("documentsx/y", ids.DOCUMENTS)  # the slash is part of the prefix
    assert ids.parse_id("paragraphs/4f2a-00012") == ("paragraphs", "4f2a-00012")
    for bad in ("paragraphs/..", "paragraphs/a%2Fb", "nodes/a", "paragraphs/", "paragraphs/-a"):
        with pytest.raises(ValueError):
            ids.parse_id(bad)


def test_settings_are_grouped_by_concern_with_flat_access() -> None:
    from dataclasses import fields

    from ohara_lab.settings import GROUPS, Settings, describe, group_of

    settings = Settings.from_env({"OHARA_API_MAX_LIMIT": "7", "OHARA_BM25_WEIGHT": "0.25"})
    assert settings.api_max_limit == 7 and settings.bm25_weight == 0.25  # flat attributes, same OHARA_* names
    assert group_of("api_max_limit") == "serve" and group_of("bm25_weight") == "retrieval"
    assert settings.group("serve")["api_max_limit"] == 7
    owned = [f.name for cls in GROUPS.values() for f in fields(cls)]
    assert len(owned) == len(set(owned)), "a field in two concerns"
    assert set(owned) | {"env_file"} == {f.name for f in fields(Settings)}
    assert [d.group for d in describe()][:1] == ["store"] and describe()[-1].name == "env_file"
