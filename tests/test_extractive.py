"""The offline extractive answer: sentences chosen by evidence, not by shared word counts, and a short answer
only when the evidence names one."""

from __future__ import annotations

import math

from ohara_lab.extractive import MAX_SENTENCES, extractive_reply, idf_from_counts, select_sentences, short_answer
from ohara_lab.llm.offline_builtin import answer as builtin_answer

APA = (
    "G. Stanley Hall was the first president of the American Psychological Association. "
    "The association was founded in July 1892 at Clark University."
)
APA_ENTITIES = [
    ("G. Stanley Hall", "PERSON"),
    ("American Psychological Association", "ORG"),
    ("Clark University", "ORG"),
]


def test_idf_is_robertson_sparck_jones_clamped():
    idf = idf_from_counts({"rare": 1, "common": 90, "absent": 0}, 100)
    assert math.isclose(idf["rare"], math.log((100 - 1 + 0.5) / 1.5))
    assert idf["common"] == 0.05  # ln(10.5/90.5) < 0: clamped, still counts a little
    assert idf["absent"] == idf["rare"]  # a word the atlas lacks weighs as a word of one row


def test_idf_weighting_prefers_the_rare_term_over_repeated_common_words():
    # The padding sentence shares three words of the question ("license", "version", "published"), the
    # answer sentence two ("gplv3", "published"): raw counts pick the padding, IDF over the atlas does not.
    question = "When was GPLv3, the license version, published?"
    passages = [
        "Every license version is published with a license text, and each version is published online. "
        "GPLv3 was published on 29 June 2007."
    ]
    idf = idf_from_counts({"gplv3": 2, "license": 900, "version": 800, "published": 700}, 1000)
    [first, *_] = select_sentences(question, passages, idf=idf)
    assert first.text == "GPLv3 was published on 29 June 2007."
    old = builtin_answer({"question": question, "passages": passages})  # no atlas: idf over these sentences only
    assert old["answer"]


def test_a_sentence_adding_no_evidence_is_not_padding_the_answer():
    question = "Who was the first president of the American Psychological Association?"
    passages = [APA, "The weather in Worcester was mild that year. Many people attended the first lecture."]
    chosen = select_sentences(question, passages, entities=[APA_ENTITIES, []])
    assert [c.text for c in chosen] == [APA[: APA.index(".", 20) + 1]]
    assert len(chosen) <= MAX_SENTENCES


def test_the_sentence_holding_the_answer_is_found_past_any_character_cut():
    filler = "The account was created for the mail daemon and it owns the spool directory. " * 12
    passages = [filler + "It had uid 37."]
    assert len(passages[0]) > 600
    question = "Which uid did the account have?"
    chosen = select_sentences(question, passages)
    assert any("uid 37" in c.text for c in chosen)


def test_bridge_sentence_naming_an_entity_of_the_first_is_chosen():
    question = "Where was the architect of the north lighthouse born?"
    passages = [
        "The north lighthouse on Skerry Island was restored by the architect Jonas Brekke.",
        "Jonas Brekke was born in Bergen in 1961. He studied in Oslo.",
    ]
    entities = [
        [("Jonas Brekke", "PERSON"), ("Skerry Island", "LOCATION")],
        [("Jonas Brekke", "PERSON"), ("Bergen", "LOCATION"), ("Oslo", "LOCATION")],
    ]
    chosen = select_sentences(question, passages, entities=entities)
    assert [c.passage for c in chosen][:2] == [1, 2]
    assert chosen[1].bridge == "Jonas Brekke"
    short = short_answer(question, chosen, entities)
    assert short is not None and short.text == "Bergen"  # "born" sits next to Bergen, not to Oslo


def test_short_answer_leads_the_reply_and_is_cited():
    question = "Who was the first president of the American Psychological Association?"
    reply, short, holder = extractive_reply(question, [APA], entities=[APA_ENTITIES])
    assert short is not None and short.text == "G. Stanley Hall" and holder == 1
    assert reply["answer"].startswith("G. Stanley Hall [1]. G. Stanley Hall was the first president")
    assert reply["cited"] == [1] and reply["quotes"][0]["passage"] == 1


def test_no_short_answer_without_an_expected_type_or_a_clear_span():
    chosen = select_sentences("Why did the association grow?", [APA], entities=[APA_ENTITIES])
    assert short_answer("Why did the association grow?", chosen, [APA_ENTITIES]) is None  # no type asked
    two = ["Anna Berg and Karl Lund were the founders of the club."]
    ents = [[("Anna Berg", "PERSON"), ("Karl Lund", "PERSON")]]
    chosen = select_sentences("Who founded the club?", two, entities=ents)
    assert chosen and short_answer("Who founded the club?", chosen, ents) is None  # two equally good people


def test_short_answer_is_never_a_name_the_question_already_gives():
    question = "When did G. Stanley Hall found the association?"
    chosen = select_sentences(question, [APA], entities=[APA_ENTITIES])
    short = short_answer(question, chosen, [APA_ENTITIES])
    assert short is not None and short.text == "July 1892"


def test_nothing_shared_means_insufficient():
    reply, short, _ = extractive_reply("What is the boiling point of mercury?", [APA])
    assert reply["insufficient"] and reply["cited"] == [] and short is None


def test_a_bridge_runs_through_a_name_inside_a_longer_name_of_the_first_pick():
    # The first pick's entity list has "Philbrook Museum of Tulsa" only; the answer sentence names "Tulsa".
    question = "When did Admiral Twin open in the city where the Philbrook Museum is?"
    passages = [
        "(Oklahoma)\nThe Philbrook Museum of Tulsa is one of the top art museums.",
        "(Admiral Twin)\nAdmiral Twin released Unlucky in December 1997. "
        "They played local Tulsa shows as the opening act in the summer of 1998.",
    ]
    entities = [
        [("Philbrook Museum of Tulsa", "ORG")],
        [("Admiral Twin", "ORG"), ("December 1997", "DATE"), ("Tulsa", "LOCATION"), ("summer of 1998", "DATE")],
    ]
    chosen = select_sentences(question, passages, entities=entities)
    assert any("summer of 1998" in c.text and c.bridge == "Tulsa" for c in chosen)


def test_a_hop_leaves_the_document_two_passages_of_one_document_do_not_bridge():
    question = "When was the GNU General Public License version 3 published?"
    timeline = (
        "(A Timeline)\nLicence: GNU Lesser General Public License; Version: 2.1; Published: February 1999. "
        "Licence: GNU General Public License; Version: 3; Published: 29 June 2007."
    )
    note = "(A Timeline)\nThe GNU Lesser General Public License is compatible with version 3."
    entities = [
        [
            ("GNU Lesser General Public License", "CONCEPT"),
            ("GNU General Public License", "CONCEPT"),
            ("February 1999", "DATE"),
            ("29 June 2007", "DATE"),
        ],
        [("GNU Lesser General Public License", "CONCEPT")],
    ]
    chosen = select_sentences(question, [timeline, note], entities=entities)
    assert not any(c.bridge for c in chosen)
    reply, short, _ = extractive_reply(question, [timeline, note], entities=entities)
    assert short is not None and short.text == "29 June 2007" and reply["answer"].startswith("29 June 2007 [1].")


def test_a_long_sentence_is_shown_as_the_window_holding_its_evidence():
    table = (
        "Games Host city Dates Nations "
        + "Participants Events Summer Olympics Tokyo 1964 " * 8
        + "1988 Summer Olympics Seoul 17 September -- 2 October 160 nations"
    )
    question = "In which year were the Olympics held in Seoul?"
    reply, _, _ = extractive_reply(question, [f"(South Korea at the Olympics)\n{table}."])
    assert len(table) > 400
    answer = reply["answer"]
    assert "1988 Summer Olympics Seoul" in answer and "…" in answer and len(answer) < 300
    assert reply["quotes"][0]["text"].startswith("Games Host city")  # the quote stays whole for the citation


def test_a_one_word_group_name_is_an_attribute_and_links_nothing():
    question = "Who played the singer in Walk the Line?"
    passages = [
        "(Only Daddy)\nOnly Daddy That'll Walk the Line is a song recorded by American singer Waylon Jennings.",
        "(The Houston Kid)\nThe Houston Kid is an album by American country music singer Rodney Crowell.",
    ]
    entities = [
        [("American", "CONCEPT"), ("Waylon Jennings", "PERSON")],
        [("American", "CONCEPT"), ("Rodney Crowell", "PERSON"), ("The Houston Kid", "CONCEPT")],
    ]
    chosen = select_sentences(question, passages, entities=entities)
    assert chosen[0].passage == 1
    assert not any(c.bridge == "American" for c in chosen)
    linked = select_sentences(
        question, passages, entities=[[(n, "PERSON" if n == "American" else t) for n, t in e] for e in entities]
    )
    assert any(c.bridge == "American" for c in linked)  # the same name typed as a person would link


def test_an_abbreviated_month_does_not_end_the_sentence():
    passage = (
        "(History of Mississippi)\nIn 1817 elected delegates wrote a constitution and applied to Congress for "
        "statehood. On Dec. 10, 1817, the western portion of Mississippi Territory became the State of Mississippi, "
        "the 20th state of the Union. Natchez was the first state capital."
    )
    entities = [[("1817", "DATE"), ("Congress", "ORG"), ("Dec. 10, 1817", "DATE"), ("State of Mississippi", "LOCATION")]]
    question = "When did Mississippi become a state of the Union?"
    reply, short, _ = extractive_reply(question, [passage], entities=entities)
    assert short is not None and short.text == "Dec. 10, 1817"
    assert "On Dec. 10, 1817, the western portion" in reply["answer"]


def test_a_title_with_a_qualifier_is_the_title_line_not_prose():
    from ohara_lab.extractive import passage_body

    assert passage_body("(Jaws (film))\nJaws is a 1975 film.") == "Jaws is a 1975 film."
    assert passage_body("(A Timeline)\nText.") == "Text."


def test_a_bridge_name_links_a_passage_whose_title_holds_it_as_a_whole_run():
    # The answer sentence names neither "Brno" nor any word of the question's chain; its passage's title does.
    question = "When was the town hall built in the city where the painter Jan Novak died?"
    passages = [
        "(Jan Novak)\nJan Novak (1834 – 1868, Brno) was a painter in the Austro-Hungarian Empire.",
        "(Brno town hall)\nThe oldest part of the building dates back to 1240.",
        "(Near East)\nThe Ottoman Empire sided with the Austro-Hungarian Empire.",
    ]
    entities = [
        [("Jan Novak", "PERSON"), ("Brno", "LOCATION"), ("Austro-Hungarian Empire", "LOCATION")],
        [],
        [("Ottoman Empire", "LOCATION"), ("Austro-Hungarian Empire", "LOCATION")],
    ]
    chosen = select_sentences(question, passages, entities=entities)
    assert [c.bridge for c in chosen if "1240" in c.text] == ["Brno"]
    assert chosen.index(next(c for c in chosen if "1240" in c.text)) == 1  # it beats the hop adding no word of Q


def test_a_title_qualifier_is_a_run_but_no_part_of_a_run_links():
    question = "Who is the current opposition leader in the country where Buyende is?"
    passages = [
        "(Buyende)\nBuyende is a town in Uganda.",
        "(Leader of Opposition (Uganda))\nWinnie Kiiza holds the post.",
        "(New York)\nThe city's opposition leader was Anna Lee.",
    ]
    entities = [[("Buyende", "LOCATION"), ("Uganda", "LOCATION")], [("Winnie Kiiza", "PERSON")], []]
    chosen = select_sentences(question, passages, entities=entities)
    assert [c.bridge for c in chosen if c.passage == 2] == ["Uganda"]
    york = select_sentences(
        "Who led the opposition in the city where Mia Roe lives?",
        ["(Mia Roe)\nMia Roe lives in York.", "(New York)\nThe opposition was led by Anna Lee."],
        entities=[[("Mia Roe", "PERSON"), ("York", "LOCATION")], [("Anna Lee", "PERSON")]],
    )
    assert not any(c.bridge for c in york)  # "York" is no run of "New York": another city
    france = select_sentences(  # nor "France" of "Île-de-France" (a capital outside ASCII starts a run too)
        "What is the tallest tower in the country where Jean Moulin was born?",
        ["(Jean Moulin)\nJean Moulin was born in Béziers, France.",
         "(Île-de-France)\nThe region holds the Montparnasse tower of 210 metres."],
        entities=[[("Jean Moulin", "PERSON"), ("Béziers", "LOCATION"), ("France", "LOCATION")], []],
    )
    assert not any(c.bridge for c in france)


def test_a_pick_listing_many_names_shares_its_link_weight_among_them():
    # The euro sentence links on Finland (rightly) but also lists eighteen other states; the Malta sentence hops on
    # through one of those, the markka sentence through the Finland the first pick names.
    question = "What currency predated the euro in the country Signmark is from?"
    members = [
        *("Austria", "Belgium", "Cyprus", "Estonia", "Finland", "France", "Germany", "Greece", "Ireland", "Italy"),
        *("Latvia", "Lithuania", "Luxembourg", "Netherlands", "Portugal", "Slovakia", "Slovenia", "Spain", "Malta"),
    ]
    passages = [
        "(Signmark)\nSignmark competed in Finland's national qualifications.",
        f"(Euro)\nThe euro is the sole currency of {', '.join(members[:-1])} and {members[-1]}.",
        "(Economy of Malta)\nMalta adopted it on 1 January 2008.",
        "(Finnish markka)\nThe Finnish markka was used in Finland until 2002.",
    ]
    entities = [
        [("Signmark", "PERSON"), ("Finland", "LOCATION")],
        [("Euro", "CONCEPT"), *((m, "LOCATION") for m in members)],
        [("Malta", "LOCATION"), ("1 January 2008", "DATE")],
        [("Finnish markka", "CONCEPT"), ("Finland", "LOCATION"), ("2002", "DATE")],
    ]
    chosen = select_sentences(question, passages, entities=entities)
    texts = " ".join(c.text for c in chosen)
    assert "Finnish markka" in texts and "Malta adopted" not in texts


def test_the_type_bonus_needs_a_new_span_and_comes_again_for_the_hop_that_answers():
    # "What is the country ... named after?" expects a place; "Nigeria" is the chain's own name, no answer: the
    # hop naming the Niger River earns the bonus, not the one naming Nigeria again.
    question = "What is the country where Baure is located named after?"
    passages = [
        "(Baure)\nBaure is an area in Katsina State, Nigeria.",
        "(Nigerian nationalism)\nNigeria's government has sought to unify the country since 1960.",
        "(Nigeria)\nThe name was taken from the Niger River.",
    ]
    entities = [
        [("Baure", "LOCATION"), ("Katsina State", "LOCATION"), ("Nigeria", "LOCATION")],
        [("Nigeria", "LOCATION"), ("1960", "DATE")],
        [("Niger River", "LOCATION")],
    ]
    chosen = select_sentences(question, passages, entities=entities, limit=2)
    assert chosen[1].text == "The name was taken from the Niger River." and chosen[1].typed
