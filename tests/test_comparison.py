"""Comparison questions: the form and options read from the question, one sentence of evidence per option,
and a decision only where both options' evidence gives one (never a default "yes")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ohara_lab.comparison import Sentence, comparison_form, decide, mentions
from ohara_lab.extractive import extractive_reply
from tests.support import offline_env

DERRICKSON = (
    "(Scott Derrickson)\nScott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. "
    "He lives in Los Angeles, California."
)
WOOD = (
    "(Ed Wood)\nEdward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, "
    "writer, producer, and director."
)
BANKS = "(Iain Banks)\nIain Banks (16 February 1954 – 9 June 2013) was a Scottish writer. He wrote The Wasp Factory."
SHAW = "(Irwin Shaw)\nIrwin Shaw (February 27, 1913 – May 16, 1984) was an American playwright, screenwriter, and novelist."
PASSAGES = [DERRICKSON, WOOD, BANKS, SHAW]


def _rows(passages):
    rows = []
    for n, p in enumerate(passages, 1):
        title, _, body = p.partition("\n")
        rows += [Sentence(n, i, s.strip() + ".", title.strip("()")) for i, s in enumerate(body.split(". ")) if s]
    return rows


@pytest.mark.parametrize(
    ("question", "kind", "options", "detail"),
    [
        ("Who was born first, Iain Banks or Irwin Shaw?", "choice", ("Iain Banks", "Irwin Shaw"), "earliest"),
        (
            "Which film came out first, The Love Route or Fraternally Yours?",
            "choice",
            ("The Love Route", "Fraternally Yours"),
            "earliest",
        ),
        ("Between Iain Banks and Irwin Shaw, which was born later?", "choice", ("Iain Banks", "Irwin Shaw"), "latest"),
        ("Is Iain Banks or Irwin Shaw older?", "choice", ("Iain Banks", "Irwin Shaw"), "earliest"),
        (
            "Which magazine was started first Arthur's Magazine or First for Women?",
            "choice",
            ("Arthur's Magazine", "First for Women"),
            "earliest",
        ),
        (
            "Which is taller, Random House Tower or 888 7th Avenue?",
            "choice",
            ("Random House Tower", "888 7th Avenue"),
            "larger",
        ),
        ("Which has fewer members, Foo Fighters or Nirvana?", "choice", ("Foo Fighters", "Nirvana"), "smaller"),
        (
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            "same",
            ("Scott Derrickson", "Ed Wood"),
            "country",
        ),
        (
            "Are Random House Tower and 888 7th Avenue both used for real estate?",
            "both",
            ("Random House Tower", "888 7th Avenue"),
            ("real", "estat"),
        ),  # stems
        (
            "Are both Stephen King and Ernest Hemingway American?",
            "both",
            ("Stephen King", "Ernest Hemingway"),
            ("american",),
        ),
    ],
)
def test_the_form_and_its_two_options_are_read_from_the_question(question, kind, options, detail):
    form = comparison_form(question)
    assert form is not None and form.kind == kind and form.options == options
    assert detail in (form.order, form.attribute, form.terms)


@pytest.mark.parametrize(
    "question",
    [
        "Who was the first president of the American Psychological Association?",  # "first", but no two options
        "Where did Scott Derrickson and Ed Wood meet?",  # two names, no comparison
        "Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?",  # no values for it here
    ],
)
def test_questions_comparing_nothing_this_reader_can_decide_have_no_form(question):
    assert comparison_form(question) is None


def test_the_options_fall_back_to_the_passage_titles_the_question_names():
    form = comparison_form(
        "Which came out first: Pride and Prejudice, or Sense and Sensibility?",
        ["Pride and Prejudice", "Sense and Sensibility", "Jane Austen"],
    )
    assert form is not None and form.options == ("Pride and Prejudice", "Sense and Sensibility")


def test_two_titles_named_apart_are_no_pair_of_options():
    question = 'Who did the producer of Songs I Wrote with Amy write the song "Thinking Out Loud" for?'
    assert comparison_form(question, ["Songs I Wrote with Amy", "Thinking Out Loud"]) is None


def test_an_acronym_names_the_words_of_its_initials():
    assert mentions("The GNU General Public License version 3 was published in 2007.", "GPL version 3")
    assert not mentions("The GNU General Public License version 3 was published in 2007.", "GPL version 2")


@pytest.mark.parametrize(
    ("question", "short", "values"),
    [
        ("Who was born first, Iain Banks or Irwin Shaw?", "Irwin Shaw", ("16 February 1954", "February 27, 1913")),
        ("Between Iain Banks and Irwin Shaw, which was born later?", "Iain Banks", ()),
        ("Who died first, Iain Banks or Irwin Shaw?", "Irwin Shaw", ("9 June 2013", "May 16, 1984")),
        ("Were Scott Derrickson and Ed Wood of the same nationality?", "Yes", ()),
        ("Were Iain Banks and Irwin Shaw of the same nationality?", "No", ()),
        ("Are both Scott Derrickson and Irwin Shaw American?", "Yes", ()),
        ("Are both Iain Banks and Irwin Shaw American?", "No", ()),
    ],
)
def test_the_decision_follows_from_both_options_values(question, short, values):
    form = comparison_form(question)
    decision = decide(form, _rows(PASSAGES))
    assert decision is not None and decision.short == short, decision
    assert {e.option for e in decision.evidence} == set(form.options)
    assert not values or tuple(e.value for e in decision.evidence) == values


def test_measures_are_compared_in_one_unit_family():
    rows = _rows(
        [
            "(Random House Tower)\nRandom House Tower is a 52-story, 684 ft (208 m) mixed-use tower in Manhattan.",
            "(888 7th Avenue)\n888 7th Avenue is a 628 ft (191 m) office skyscraper in Midtown Manhattan.",
        ]
    )
    taller = decide(comparison_form("Which is taller, Random House Tower or 888 7th Avenue?"), rows)
    assert taller is not None and taller.short == "Random House Tower"
    shorter = decide(comparison_form("Which is shorter, Random House Tower or 888 7th Avenue?"), rows)
    assert shorter is not None and shorter.short == "888 7th Avenue"
    mixed = _rows(
        [
            "(Random House Tower)\nRandom House Tower is a 684 ft tower.",
            "(888 7th Avenue)\n888 7th Avenue covers 2 acres.",
        ]
    )
    assert decide(comparison_form("Which is taller, Random House Tower or 888 7th Avenue?"), mixed) is None


def test_counts_compare_only_when_they_count_what_the_question_asks():
    rows = _rows(["(Foo Fighters)\nFoo Fighters is a rock band of 6 members.", "(Nirvana)\nNirvana had 3 members."])
    assert (
        decide(comparison_form("Which band has more members, Foo Fighters or Nirvana?"), rows).short == "Foo Fighters"
    )
    other = _rows(["(Foo Fighters)\nFoo Fighters released 10 albums.", "(Nirvana)\nNirvana had 3 members."])
    assert decide(comparison_form("Which band has more members, Foo Fighters or Nirvana?"), other) is None


@pytest.mark.parametrize(
    ("question", "passages"),
    [
        # one side has no value: no guess
        ("Who was born first, Iain Banks or Irwin Shaw?", [BANKS, "(Irwin Shaw)\nIrwin Shaw was a novelist."]),
        # one option is not in the passages at all
        ("Were Scott Derrickson and Ed Wood of the same nationality?", [DERRICKSON]),
        # the two dates overlap: "1954" and "16 February 1954" give no order
        (
            "Who was born first, Iain Banks or Iain Crichton?",
            [BANKS, "(Iain Crichton)\nIain Crichton was born in 1954."],
        ),
        # "both" without support on either side: no "yes" by default, and a missing word proves no "no"
        ("Are Iain Banks and Irwin Shaw both used for real estate?", [BANKS, SHAW]),
        # a novelist and a screenwriter are writers: a different type word is no clear "no"
        ("Are Iain Banks and Irwin Shaw both writers?", [BANKS, SHAW]),
    ],
)
def test_without_evidence_on_both_sides_there_is_no_decision(question, passages):
    form = comparison_form(question)
    assert form is not None
    assert decide(form, _rows(passages)) is None


def test_both_a_type_the_other_clearly_is_not_is_no():
    rows = _rows(["(Time)\nTime is an American weekly news magazine.", "(Nirvana)\nNirvana was an American rock band."])
    decision = decide(comparison_form("Are Time and Nirvana both magazines?"), rows)
    assert decision is not None and decision.short == "No"
    both = _rows(["(Time)\nTime is an American weekly news magazine.", "(Wired)\nWired is a monthly magazine."])
    assert decide(comparison_form("Are Time and Wired both magazines?"), both).short == "Yes"


def test_the_reply_leads_with_the_decision_cited_to_both_sides_then_each_sentence():
    reply, short, _ = extractive_reply("Were Scott Derrickson and Ed Wood of the same nationality?", PASSAGES)
    assert short is not None and short.text == "Yes"
    assert reply["answer"].startswith("Yes [1][2]. Scott Derrickson (born July 16, 1966) is an American director")
    assert "was an American filmmaker" in reply["answer"] and reply["cited"] == [1, 2]
    reply, short, _ = extractive_reply("Who was born first, Iain Banks or Irwin Shaw?", PASSAGES)
    assert short.text == "Irwin Shaw" and reply["answer"].startswith("Irwin Shaw [3][4]. Iain Banks (16 February")


def test_a_comparison_without_evidence_gets_no_short_answer_and_no_yes():
    passages = [DERRICKSON, "(Ed Wood)\nEd Wood made films in Hollywood."]
    reply, short, _ = extractive_reply("Were Scott Derrickson and Ed Wood of the same nationality?", passages)
    assert short is None
    assert not reply["answer"].lower().startswith(("yes", "no"))
    assert "Scott Derrickson" in reply["answer"] and "Ed Wood made films" in reply["answer"]  # both sides shown
    # a choice question's generic typed span ("who" -> a person) is no answer either
    reply, short, _ = extractive_reply(
        "Who was born first, Iain Banks or Irwin Shaw?", [BANKS, "(Irwin Shaw)\nIrwin Shaw worked with Robert Capa."]
    )
    assert short is None


def test_a_version_number_is_one_word():
    assert not mentions("The GNU Lesser General Public License version 2.1 was published in 1999.", "LGPL version 2")


def _ohara_answer(question: str, atlas: Path, cwd: Path) -> dict:
    """`ohara answer QUESTION --json` on `atlas` in a child process, offline; its parsed reply."""
    done = subprocess.run(
        [sys.executable, "-m", "ohara_lab.cli", "answer", question, "--atlas", str(atlas), "--json"],
        cwd=cwd,
        env={**offline_env(), "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("question", "short", "holds"),
    [
        (
            "Which was published first, the GNU General Public License version 2 or the GNU General Public License"
            " version 3?",
            "GNU General Public License version 2",
            "June 1991",
        ),
        (
            "Which was published later, the GNU Free Documentation License version 1.3 or the GNU Lesser General"
            " Public License version 2.1?",
            "GNU Free Documentation License version 1.3",
            "3 November 2008",
        ),
    ],
)
def test_ohara_answer_decides_a_comparison_on_the_demo_corpus(samples_atlas_dir, tmp_path, question, short, holds):
    reply = _ohara_answer(question, samples_atlas_dir, tmp_path)
    assert reply["short"] == short
    assert reply["answer"].startswith(f"{short} [1]")  # the decision first, cited
    assert holds in reply["answer"]  # ... then the sentence stating the winning date
    assert {c["title"] for c in reply["citations"]} == {"A Timeline of the GNU Copyleft Licences"}


def test_ohara_answer_gives_no_short_answer_where_the_corpus_holds_no_values(samples_atlas_dir, tmp_path):
    question = "Which is taller, the GNU General Public License version 2 or the Apache License version 2.0?"
    assert _ohara_answer(question, samples_atlas_dir, tmp_path)["short"] is None


FILMS = [
    "(Hot Fuzz)\nHot Fuzz is a 2007 action comedy film directed by Edgar Wright.",
    "(Jaws (film))\nJaws is a 1975 American thriller film directed by Steven Spielberg.",
    "(Edgar Wright)\nEdgar Howard Wright (born 18 April 1974) is an English filmmaker.",
    "(Steven Spielberg)\nSteven Allan Spielberg (born December 18, 1946) is an American filmmaker.",
]


def test_a_value_of_the_options_director_is_reached_one_hop_on():
    question = "Which film has the director born first, Hot Fuzz or Jaws?"
    form = comparison_form(question)
    assert form is not None and form.via == "direct"
    decision = decide(form, _rows(FILMS))
    assert decision is not None and decision.short == "Jaws"
    assert [e.value for e in decision.evidence] == ["18 April 1974", "December 18, 1946"]  # not 2007 and 1975
    reply, short, _ = extractive_reply(question, FILMS)
    assert reply["answer"].startswith("Jaws [1][2][3][4]. Hot Fuzz is a 2007")
    same = decide(
        comparison_form(
            "Are the directors of Hot Fuzz and Jaws from the same country?",
            ["Hot Fuzz", "Jaws (film)", "Edgar Wright", "Steven Spielberg"],
        ),
        _rows(FILMS),
    )
    assert same is not None and same.short == "No"  # English vs American: the directors', not the films'


def test_without_the_directors_passage_the_films_own_dates_decide_nothing():
    question = "Which film has the director born first, Hot Fuzz or Jaws?"
    assert decide(comparison_form(question), _rows(FILMS[:3])) is None


def test_which_of_the_two_has_the_property():
    rows = _rows([BANKS, SHAW])
    form = comparison_form("Which writer is Scottish, Iain Banks or Irwin Shaw?")
    assert form is not None and form.kind == "which"
    assert decide(form, rows).short == "Iain Banks"
    assert decide(comparison_form("Which author wrote The Wasp Factory, Iain Banks or Irwin Shaw?"), rows).short == (
        "Iain Banks"
    )
    # neither option's sentences hold the property: no choice
    assert decide(comparison_form("Which author won the Booker Prize, Iain Banks or Irwin Shaw?"), rows) is None


# The demo corpus's licences and the publication dates its timeline states, to check every pair against.
LICENCES = {
    "GNU General Public License version 2": "1991-06",
    "GNU Lesser General Public License version 2.1": "1999-02",
    "Apache License version 2.0": "2004-01",
    "GNU General Public License version 3": "2007-06-29",
    "GNU Lesser General Public License version 3": "2007-06-29",
    "GNU Free Documentation License version 1.3": "2008-11-03",
}
PAIRS = [(a, b) for i, a in enumerate(LICENCES) for b in list(LICENCES)[i + 1 :]]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_every_pair_of_the_demo_licences_is_ordered_by_the_dates_the_corpus_states(samples_atlas, a, b):
    answer = samples_atlas.answer(f"Which was published first, the {a} or the {b}?")
    want = None if LICENCES[a] == LICENCES[b] else min((a, b), key=LICENCES.get)  # the same day: no order
    assert answer.short == want, answer.text
    assert want is None or (answer.text.startswith(f"{want} [1]") and len(answer.citations) >= 1)


def test_an_option_no_principal_passage_is_about_gets_its_passage_from_the_ranking(samples_atlas):
    from ohara_lab.modes.answer import option_passages

    question = (
        "Which was published first, the GNU Free Documentation License version 1.3 or the Apache License version 2.0?"
    )
    retrieval = samples_atlas.query(question)
    apache = [f for f in retrieval.results if "in January 2004" in retrieval.views[f.id].content][:1]
    assert apache
    extra = option_passages(question, retrieval, apache)
    assert [retrieval.views[f.id].content.split(". ")[0] for f in extra] == [
        "The GNU Free Documentation License version 1.3 was published on 3 November 2008"
    ]
    assert option_passages("Who wrote the GNU Free Documentation License?", retrieval, apache) == []  # no comparison


def test_died_first_reads_death_dates_only():
    alive = [
        "(Dune (1984 film))\nDune is a 1984 American epic science fiction film written and directed by David Lynch.",
        "(Brazil (1985 film))\nBrazil is a 1985 dystopian film directed by Terry Gilliam.",
        "(David Lynch)\nDavid Keith Lynch (born January 20, 1946) is an American filmmaker.",
        "(Terry Gilliam)\nTerrence Vance Gilliam (born 22 November 1940) is an American-born British filmmaker.",
    ]
    form = comparison_form("Which film has the director who died first, Dune or Brazil?")
    assert form is not None and form.end and form.via == "direct"
    assert decide(form, _rows(alive)) is None  # birth dates answer no "died first"
    dead = alive[:2] + [
        "(David Lynch)\nDavid Keith Lynch was an American filmmaker. He died in Los Angeles on January 16, 2025.",
        "(Terry Gilliam)\nTerrence Vance Gilliam (22 November 1940 – 1 March 2030) was a filmmaker.",
    ]
    decision = decide(form, _rows(dead))
    assert decision is not None and decision.short == "Dune"
    assert [e.value for e in decision.evidence] == ["January 16, 2025", "1 March 2030"]


def test_the_option_itself_is_read_not_a_namesake_titled_with_a_qualifier():
    passages = [
        "(Ed Wood (film))\nEd Wood is a 1994 American biographical film directed by Tim Burton.",
        WOOD,
        "(Tim Burton)\nTimothy Walter Burton (born August 25, 1958) is an American filmmaker.",
    ]
    decision = decide(comparison_form("Who was born first, Ed Wood or Tim Burton?"), _rows(passages))
    assert decision is not None and decision.short == "Ed Wood"
    assert decision.evidence[0].value == "October 10, 1924"  # the man's birth, not the film's year


def test_the_same_decade_is_not_the_same_year():
    rows = _rows(["(Foo Fighters)\nFoo Fighters were formed in 1994.", "(Nirvana)\nNirvana were formed in 1987."])
    assert decide(comparison_form("Were Foo Fighters and Nirvana formed in the same year?"), rows).short == "No"
    assert decide(comparison_form("Were Foo Fighters and Nirvana formed in the same decade?"), rows).short == "No"
    close = _rows(["(Foo Fighters)\nFoo Fighters were formed in 1994.", "(Nirvana)\nNirvana were formed in 1991."])
    assert decide(comparison_form("Were Foo Fighters and Nirvana formed in the same decade?"), close).short == "Yes"
    assert decide(comparison_form("Were Foo Fighters and Nirvana formed in the same year?"), close).short == "No"


def test_counts_named_before_their_number_and_lifespans_compare():
    rows = _rows(
        [
            "(Springfield)\nSpringfield is a city with a population of 12,345 at the 2010 census.",
            "(Shelbyville)\nShelbyville had a population of 8,001 in 2010.",  # "8,001 in" is no length in inches
        ]
    )
    assert decide(comparison_form("Which city has a larger population, Springfield or Shelbyville?"), rows).short == (
        "Springfield"
    )
    lived = decide(comparison_form("Who lived longer, Iain Banks or Irwin Shaw?"), _rows([BANKS, SHAW]))
    assert lived is not None and lived.short == "Irwin Shaw"  # 71 years against 59
    assert (
        decide(comparison_form("Who lived longer, Iain Banks or Scott Derrickson?"), _rows([BANKS, DERRICKSON])) is None
    )
    assert comparison_form("Who was born first out of Iain Banks and Irwin Shaw?").options == (
        "Iain Banks",
        "Irwin Shaw",
    )


def test_the_lead_sentence_dates_its_subject_not_a_later_sentence_on_someone_else():
    banks = BANKS + " His father was born in 1920."
    decision = decide(comparison_form("Who was born first, Iain Banks or Irwin Shaw?"), _rows([banks, SHAW]))
    assert decision is not None and decision.short == "Irwin Shaw"
    assert decision.evidence[0].value == "16 February 1954"


def test_a_light_verb_is_no_part_of_the_property():
    rows = _rows(["(Austin)\nAustin is the capital of Texas.", "(Dallas)\nDallas is a city in Texas."])
    decision = decide(comparison_form("Are Austin and Dallas both located in Texas?"), rows)
    assert decision is not None and decision.short == "Yes"
    elsewhere = _rows(["(Austin)\nAustin is the capital of Texas.", "(Tulsa)\nTulsa is a city in Oklahoma."])
    assert decide(comparison_form("Are Austin and Tulsa both located in Texas?"), elsewhere) is None  # no clear "no"


@pytest.mark.parametrize(
    "question, passages",
    [
        (  # "first person to walk": who did it, which no birth date says (it gave Buzz Aldrin by birth dates)
            "Who was the first person to walk on the Moon, Neil Armstrong or Buzz Aldrin?",
            [
                "(Neil Armstrong)\nNeil Alden Armstrong (August 5, 1930 – August 25, 2012) was an American astronaut.",
                "(Buzz Aldrin)\nBuzz Aldrin (born January 20, 1930) is an American former astronaut.",
            ],
        ),
        (  # two years in one sentence: which one is the release is not said (it took the first, 1985: "No")
            "Were Back to the Future Part II and Ghostbusters II released in the same year?",
            [
                "(Back to the Future Part II)\nBack to the Future Part II, the sequel to the 1985 film, was released in 1989.",
                "(Ghostbusters II)\nGhostbusters II is a 1989 American supernatural comedy film.",
            ],
        ),
        (  # a denied property is no support (it said "Yes")
            "Are Paul McCartney and Morrissey both vegetarian?",
            [
                "(Paul McCartney)\nSir Paul McCartney is an English singer. He is a vegetarian.",
                "(Morrissey)\nMorrissey is an English singer. He has never been vegetarian.",
            ],
        ),
        (  # two counts of the noun in one sentence (it took the nearer, 12, and chose Alpha Band)
            "Which band has more members, Alpha Band or Beta Band?",
            [
                "(Alpha Band)\nAlpha Band is a rock group with 35 members.",
                "(Beta Band)\nBeta Band began in 1995 with 12 members and now has 40 members.",
            ],
        ),
        (  # a country merely named in the sentence is no place the option is in (it said "Yes")
            "Are Lake Alpha and Lake Beta both located in Canada?",
            [
                "(Lake Alpha)\nLake Alpha is a Canadian lake in Ontario.",
                "(Lake Beta)\nLake Beta is a lake in Minnesota, close to the border with Canada.",
            ],
        ),
    ],
)
def test_no_short_answer_where_the_evidence_does_not_decide(question, passages):
    form = comparison_form(question)
    assert form is None or decide(form, _rows(passages)) is None


def test_options_after_a_preposition_are_where_to_look_not_the_answer():
    # "the largest city in Texas or Oklahoma" asks for a city (it answered "Texas", by area)
    assert comparison_form("What is the largest city in Texas or Oklahoma?") is None
    assert comparison_form("Who was born first out of Iain Banks and Irwin Shaw?") is not None
    assert comparison_form("Which magazine was started first, Arthur's Magazine or First for Women?") is not None
