"""Heading labels, run-in titles and the outline that places labelled headings (issue 27)."""
from __future__ import annotations

import pytest

from ohara_lab.parse.outline import Outline, is_title, parse_label, split_run_in


def styles(text: str) -> list[tuple[str, tuple[int, ...]]]:
    parsed = parse_label(text)
    assert parsed is not None, text
    return [(r.style, r.value) for r in parsed[0]]


@pytest.mark.parametrize("text, want, rest", [
    ("2. Grant of Copyright License.", [("num:1", (2,))], "Grant of Copyright License."),
    ("2.1. Grants", [("num:2", (2, 1))], "Grants"),
    ("1.2.3 Scope", [("num:3", (1, 2, 3))], "Scope"),
    ("(a) IN GENERAL.--The", [("(a)", (1,))], "IN GENERAL.--The"),
    ("(12) Notice", [("(1)", (12,))], "Notice"),
    ("(i) Notice", [("(a)", (9,)), ("(i)", (1,))], "Notice"),  # letter i or numeral 1: the outline decides
    ("IV. Results", [("I.", (4,))], "Results"),
    ("C. Methods", [("A.", (3,)), ("I.", (100,))], "Methods"),
    ("SEC. 101. DEFINITIONS.", [("kw:section", (101,))], "DEFINITIONS."),
    ("Section 3", [("kw:section", (3,))], ""),
    ("§ 4 Scope", [("kw:section", (4,))], "Scope"),
    ("ARTICLE IV", [("kw:chapter", ())], ""),
    ("TITLE II--ENFORCEMENT", [("kw:part", ())], "--ENFORCEMENT"),
    ("Part One", [("kw:part", ())], ""),
    ("APPENDIX: How to apply", [("kw:appendix", ())], "How to apply"),
])
def test_labels_are_read_with_every_reading(text, want, rest):
    assert styles(text) == want
    assert parse_label(text)[1] == rest


@pytest.mark.parametrize("text", [
    "1) a short list item", "a) You must not remove", "2019 Annual Report", "404 Not Found",
    "Part of the problem", "Title page", "Section of the road", "Sections", "Grant of Copyright License.",
])
def test_list_markers_years_and_words_are_not_labels(text):
    assert parse_label(text) is None


def test_run_in_titles_are_split_from_their_body():
    assert split_run_in("2. Grant of Copyright License. Subject to the terms") == (
        "2. Grant of Copyright License.", "Subject to the terms")
    assert split_run_in("9. Accepting Warranty or Additional Liability. While redistributing") == (
        "9. Accepting Warranty or Additional Liability.", "While redistributing")
    assert split_run_in("(a) IN GENERAL.--The Administrator shall") == ("(a) IN GENERAL.--", "The Administrator shall")
    assert split_run_in("Definitions. In this Act", labelled=False) == ("Definitions.", "In this Act")


@pytest.mark.parametrize("text, labelled", [
    # GPL-2's clauses open with a sentence, not a title.
    ("0. This License applies to any program or other work which contains a notice. More", True),
    ("1) a short list item. Then more", True),  # ")" is a list marker
    ("(a) You must give any other recipients of the Work a copy of this License; and", True),
    ("D. Preserve all the copyright notices of the Document. More", True),  # GFDL's lettered items
    ("0. Definitions.", True),  # a heading of its own, nothing runs in
    ("Mr. Smith went to the shore. He", False),  # an abbreviation, not a title
    ("The Tide Pool Licence And Its Many Rules And Ways. Body", False),  # more than five words
    ("2. Grant. Subject", False),  # a label is not an unlabelled run-in
])
def test_sentences_lists_and_abbreviations_are_not_run_in_headings(text, labelled):
    assert split_run_in(text, labelled=labelled) is None


def test_title_case_allows_function_words_only():
    assert is_title("Revised Versions of this License")
    assert is_title("Interpretation of Sections 15 and 16.")
    assert is_title("IN GENERAL")
    assert not is_title("Preserve all the copyright notices")
    assert is_title("Acceptance not Required", loose=True)


def place_all(texts: list[str]) -> list[int | None]:
    outline = Outline()
    return [outline.place(parse_label(t)[0]) for t in texts]


def test_numbers_nest_by_depth_and_continue_their_sequence():
    assert place_all(["1. A", "1.1 B", "1.2 C", "2. D", "2.1 E", "3. F"]) == [0, 1, 1, 0, 1, 0]


def test_a_number_breaking_the_sequence_is_not_a_heading():
    # "1." inside section 4 is a list item; "2.3" under 2 without 2.1, 2.2 is not a subsection of it.
    assert place_all(["3. A", "4. B", "1. item", "2.3 C", "5. D"]) == [0, 0, None, None, 0]


def test_lettered_and_statute_levels():
    got = place_all(["SEC. 2. X", "(a) A", "(1) B", "(2) C", "(A) D", "(b) E", "SEC. 3. Y", "(a) F"])
    assert got == [0, 1, 2, 2, 3, 1, 0, 1]


def test_i_after_h_is_a_letter_and_i_first_is_a_numeral():
    letters = [f"({c}) X" for c in "abcdefghi"]
    assert place_all(letters) == [0] * 9
    outline = Outline()
    outline.place(parse_label("(a) X")[0])
    assert outline.place(parse_label("(i) Y")[0]) == 1  # a numeral opening a level under (a)
    assert outline.stack[-1].label.style == "(i)"


def test_keyword_families_close_lower_ones_whichever_came_first():
    assert place_all(["Section 1", "ARTICLE II", "Section 1", "(a) X", "ARTICLE III"]) == [0, 0, 1, 2, 0]


def test_reset_keeps_the_numbering_running():
    outline = Outline()
    outline.place(parse_label("1. A")[0])
    outline.reset()  # "NO WARRANTY" between clauses 1 and 2
    assert outline.place(parse_label("2. B")[0]) == 0
    assert outline.place(parse_label("7. C")[0]) is None
    assert outline.place(parse_label("7. C")[0], force=True) == 0  # an underlined heading is a heading
