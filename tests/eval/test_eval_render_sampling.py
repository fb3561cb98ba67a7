"""doc_ohara's slug and seeded shuffle, checked against values its JavaScript produces."""
from __future__ import annotations

import pytest

from ohara_lab.eval.render import flat_paper_markdown, is_flat_heading, js_slug
from ohara_lab.eval.sampling import js_shuffled, mulberry32

# Produced by doc_ohara's `rng(seed)` under Node 18 (five first draws per seed).
MULBERRY32 = {
    42: [0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693, 0.17481389874592423],
    43: [0.9998110907617956, 0.2764023437630385, 0.5294158514589071, 0.05911232368089259, 0.06335184047929943],
    0: [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197, 0.1462021479383111, 0.46732782293111086],
    -7: [0.43306733411736786, 0.32539576734416187, 0.5442695003002882, 0.48018999374471605, 0.048719558166339993],
    4294967295: [0.8964226141106337, 0.189478256739676, 0.7156526781618595, 0.9440599093213677, 0.8452364315744489],
}


@pytest.mark.parametrize("seed", sorted(MULBERRY32))
def test_mulberry32_matches_javascript(seed):
    rand = mulberry32(seed)
    assert [rand() for _ in range(5)] == MULBERRY32[seed]


def test_shuffle_matches_javascript():
    ids = [f"p{i:02d}" for i in range(12)]
    assert js_shuffled(ids, mulberry32(42)) == [
        "p02", "p00", "p05", "p10", "p09", "p11", "p03", "p01", "p06", "p08", "p04", "p07"]
    rand = mulberry32(42)  # one generator across two shuffles, as build_query_set.js does per type
    assert js_shuffled(list("abcde"), rand) == list("aecbd")
    assert js_shuffled(list("fgh"), rand) == list("hgf")
    assert ids == [f"p{i:02d}" for i in range(12)]  # input untouched


@pytest.mark.parametrize("title, slug", [
    ("Norvale Energy’s shares jump", "norvale-energy-s-shares-jump"),
    ("Café Étoile", "caf-toile"),
    ("  --Hello, World!--  ", "hello-world"),
    (None, "untitled"),
    ("", "untitled"),
    ("日本", ""),
    ("a" * 59 + " b", "a" * 59 + "-"),  # cut after trimming, as the original
])
def test_js_slug(title, slug):
    assert js_slug(title) == slug


@pytest.mark.parametrize("line, heading", [
    ("Introduction", True),
    ("Proposed Method ::: Polarity Function", True),
    ("Experiments ::: Dataset ::: AL, CA, and CO", True),
    ("The work is easy.", False),
    ("[leftmargin=4mm]", False),
    ("(there is a bad point, [I] try to improve [it])", False),
    ("INLINEFORM0", False),
    ("$$R_{C,A} = 1$$", False),
    ("Table TABREF23 shows accuracy", False),
    ("For the CA data, the loss function is defined as:", False),
    ("a lowercase start", False),
    ("", False),
])
def test_flat_heading_heuristic(line, heading):
    assert is_flat_heading(line) is heading


def test_flat_paper_markdown():
    text, headings = flat_paper_markdown("A Title", "Introduction\nFirst paragraph.\n\nSecond paragraph.\nMethod\nLast one.")
    assert text == "# A Title\n\n## Introduction\n\nFirst paragraph.\n\nSecond paragraph.\n\n## Method\n\nLast one.\n"
    assert headings == ["Introduction", "Method"]
