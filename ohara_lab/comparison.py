"""Comparison questions: the two options a question names, one sentence of evidence for each, and a decision.

    form = comparison_form("Who was born first, Iain Banks or Irwin Shaw?")
    form.kind, form.options, form.order  -> ("choice", ("Iain Banks", "Irwin Shaw"), "earliest")
    decision = decide(form, sentences)      # Decision("Irwin Shaw", (evidence of each option), reason) or None

The idea, cited: a comparison question compares two entities of one category on one property, and its answer
follows from one supporting fact per entity. HotpotQA (Yang et al., 2018, "HotpotQA: A Dataset for Diverse,
Explainable Multi-hop Question Answering", §2) collects comparison questions over two paragraphs of entities of
the same category: "which one is earlier/larger", or a yes/no on a shared property ("Are A and B both ...?",
"Were A and B of the same nationality?"), the supporting facts being one sentence per entity. 2WikiMultiHopQA
(Ho et al., 2020, "Constructing A Multi-hop QA Dataset for Comprehensive Evaluation of Reasoning Steps", §3)
builds them from templates over one property of two entities ("Which film came out first, A or B?", "Who was
born first, A or B?", "Are A and B from the same country?"). So this reader

1. recognises the form (`comparison_form`): the options are the question's "A or B" / "A and B" spans
   (", A or B?", "Between A and B, ...", "A or B, which ...", "Are A and B ...?"), or else the two passage
   titles the question names; a choice has an ordering cue (first/earlier/older -> the earliest date;
   later/younger/more recent -> the latest; taller/larger/more/longer/higher -> the larger measure;
   fewer/smaller/shorter/lower -> the smaller), or without one asks which of the two has a property; a
   yes/no asks "the same <attribute>" or "both <property>";
2. takes each option's evidence (`option_evidence`): the sentences about it (in a passage titled with it, or
   naming it, acronyms by their initials: "GPL" names "General Public License") that do not name the other
   option, the one holding the asked value first, then one in a passage titled with the option itself (not
   "Ed Wood (film)" for Ed Wood), its lead sentence first (a Wikipedia paragraph's first sentence defines its
   subject: "X (1954 – 2013) was ...", where a later one may date "his father"), then the one covering most of
   the question's words, then the one naming the option as written;
3. decides only from that evidence (`decide`): a choice when both values were found and are comparable (dates
   through `dates.date_bounds`, not overlapping; measures in one unit family); "same <attribute>" by the two
   value sets (country or nationality, year, type words of the defining "is a ..." phrase): shared -> yes,
   both present and disjoint -> no; "which of the two is P" -> the one option a sentence of which holds every
   word of P (or whose nationality P names); "both P" -> yes when a sentence of each option holds every word of P, no
   when one option's sentences support P and the other's defining phrase names a different type. Anything
   else gives no decision: a prior or a default guess is never an answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from .answer_type import typed_spans
from .dates import date_bounds
from .text import QUERY_STOPWORDS, QUESTION_WORDS, stem

__all__ = [
    "Decision",
    "Evidence",
    "Form",
    "Sentence",
    "about",
    "comparison_form",
    "decide",
    "mentions",
    "option_evidence",
]


@dataclass(frozen=True)
class Form:
    """What a comparison question asks: its kind, its two options and how they are compared."""

    kind: str  # "choice" (one option, by an order) | "which" (one option, by a property) | "same" | "both" (yes/no)
    options: tuple[str, str]
    order: str = ""  # choice: "earliest" | "latest" | "larger" | "smaller"
    attribute: str = ""  # same: "country" | "year" | "decade" | "type"; choice: "lifespan" ("lived longer")
    terms: tuple[str, ...] = ()  # both: the property's words (stemmed); choice: the question's other words
    end: bool = False  # the date asked is the end of a life or a span ("died first")
    via: str = ""  # the relation the compared value is reached through ("direct": "the film whose director ...")


@dataclass(frozen=True)
class Sentence:
    """A sentence of the passages: its passage (1-based), its position there, its text, its passage's title."""

    passage: int
    position: int
    text: str
    title: str = ""


@dataclass(frozen=True)
class Evidence:
    """An option's supporting sentence and the value it states ("" when the form compares no value)."""

    option: str
    sentence: Sentence
    value: str = ""
    via: Sentence | None = None  # the option's sentence naming the person the value is of ("directed by X")


@dataclass(frozen=True)
class Decision:
    """The short answer ("Yes", "No" or an option), the evidence of both options, and why."""

    short: str
    evidence: tuple[Evidence, Evidence]
    reason: str


def _root(word: str) -> str:
    """`text.stem` without a final "e": "magazines" (-> "magazin") and "magazine" meet."""
    root = stem(word.lower())
    return root[:-1] if root.endswith("e") and len(root) > 4 else root


# -- 1. the form -------------------------------------------------------------------------------------------

_EARLIEST = r"first|earlier|earliest|older|oldest|sooner|before"
_LATEST = r"later|latest|last|younger|youngest|more\s+recent(?:ly)?|most\s+recent(?:ly)?|newer|newest"
_LARGER = (
    r"taller|tallest|larger|largest|bigger|biggest|more|most|longer|longest|higher|highest|greater"
    r"|greatest|heavier|wider|deeper|farther|further"
)
_SMALLER = r"fewer|fewest|smaller|smallest|shorter|shortest|less|least|lower|lowest|lighter|narrower"
_ORDERS = (("earliest", _EARLIEST), ("latest", _LATEST), ("larger", _LARGER), ("smaller", _SMALLER))
_END = re.compile(r"\b(?:died|die|dies|death|passed\s+away|ended|closed|dissolved|disbanded|demolished)\b", re.I)
MAX_OPTION_WORDS = 10  # a longer "option" is a clause ("considering the report on ..."), not a name
COUNT_REACH = 4  # words from the noun a bare number counts to the number ("population was estimated at 12,345")
END_REACH = 40  # characters from "died" to its date ("died in Paris on 3 May 1901")
MAX_PROPERTY_WORDS = 6  # "both"/"which" compare a property ("used for real estate"), not a narrative
# the relation noun of a question -> the verb root of the sentence naming the related person
_RELATIONS = {
    "director": "direct",
    "directors": "direct",
    "author": "writ",
    "authors": "writ",
    "writer": "writ",
    "composer": "compos",
    "producer": "produc",
    "creator": "creat",
    "founder": "found",
}
_AGENTS = {
    "direct": "director",
    "writ": "(?:author|writer)",
    "compos": "composer",
    "produc": "producer",
    "creat": "creator",
    "found": "founder",
}
_RELATION = re.compile(rf"\b({'|'.join(_RELATIONS)})\b")
_PERSON = r"[A-Z][\w'.-]*(?:\s+(?:de|van|von|da|di|del|der|le|la)?\s*[A-Z][\w'.-]*){0,3}"
_AUX = r"(?:are|is|were|was|do|does|did|have|has|had|can|could|will|would)"
_ATTRIBUTES = (
    ("country", r"nationality|nationalities|country|countries|citizenship|nation"),
    ("year", r"year"),
    ("decade", r"decade"),
    ("type", r"type|kind|genre|profession|occupation|job|field|sport|category|form|line\s+of\s+work|career"),
)
_SCOPES = frozenset("in at from on near to by with for of into within inside".split())
_NEGATIONS = frozenset("not never no neither nor unlike non".split())
NEGATION_REACH = 4  # words before a property word in which "not"/"never" denies it ("has never been vegetarian")
_CONNECTORS = frozenset("of the de la le du von van der den da di del des for on in at & 's a an y".split())
_STOP = QUERY_STOPWORDS | QUESTION_WORDS | frozenset("both same either neither one between these two".split())
# the predicate's light verbs: "located in Texas" is the property "Texas" ("Austin is the capital of Texas")
_LIGHT = frozenset(_root(w) for w in "located situated based known considered used found called named".split())


def comparison_form(question: str, titles: Sequence[str] = ()) -> Form | None:
    """The comparison `question` asks, or None when it is no comparison of two named options.

    `titles` (the passages' titles): when the question names exactly two of them, they are its options where
    its wording names none, or names parts of them."""
    text = " ".join(question.split()).strip()
    body = text.rstrip("?").strip()
    lower = body.lower()
    yes_no = re.match(rf"{_AUX}\b", lower) is not None and not re.search(r"\bor\b", lower)
    if yes_no:  # "Are A and B ...", "Were both A and B ...": the two names right after the verb
        lead = re.match(rf"{_AUX}\s+(?:both\s+)?(?:the\s+)?", lower)
        options = _name_runs(body, "and", start=len(lead.group(0).split()) if lead else 1)
    elif re.match(rf"(?:which|who|whose|what|between|of|{_AUX})\b", lower):
        options = _or_options(body)  # a choice names its options "A or B" ("Between A and B, ...")
        if options and _scoped(body, options[0]):
            return None  # "the largest city in Texas or Oklahoma": a place to look in, not the answer
    else:
        return None  # "Considering the reports of A and B, ...": no comparison of two options
    named = _title_options(body, titles)
    if named and (options is None or all(any(_words_in(o, t) for t in named) for o in options)):
        options = named  # the titles are the fuller names ("Prejudice" of a split at "and" is "Pride and Prejudice")
    if options is None or not all(_is_name(o) for o in options):
        return None  # a clause, not a name
    rest = _without(body, options)
    cues = re.compile(rf"\b(?:{'|'.join(words for _, words in _ORDERS)})\b")
    terms = tuple(
        dict.fromkeys(_root(t) for t in re.findall(r"[a-z0-9]+", cues.sub(" ", rest.lower())) if t not in _STOP)
    )
    relation = _RELATION.search(rest.lower())
    via = _RELATIONS[relation.group(1)] if relation else ""
    if yes_no:
        same = re.search(r"\bsame\s+(?:\w+\s+)?(\w+(?:\s+of\s+work)?)", rest.lower())
        if same:
            for attribute, words in _ATTRIBUTES:
                if re.fullmatch(words, same.group(1)) or re.search(rf"\bsame\s+(?:{words})\b", rest.lower()):
                    return Form("same", options, attribute=attribute, terms=terms, via=via)
            return None  # "the same neighbourhood": an attribute this reader has no values for
        prop = tuple(t for t in terms if t not in _LIGHT)
        if re.search(r"\bboth\b", lower) and 0 < len(prop) <= MAX_PROPERTY_WORDS:
            return Form("both", options, terms=prop)
        return None
    lived = re.search(r"\blived\s+(longer|shorter)\b", rest.lower())  # "Who lived longer, A or B?": lifespans
    if lived:
        order = "larger" if lived.group(1) == "longer" else "smaller"
        return Form("choice", options, order=order, attribute="lifespan", terms=terms, via=via)
    if re.search(r"\bfirst\s+(?:\w+\s+)?to\b", rest.lower()):
        return None  # "the first person to walk on the Moon": who did it first, which no date of theirs says
    for order, words in _ORDERS:
        if re.search(rf"\b(?:{words})\b", rest.lower()):
            return Form("choice", options, order=order, terms=terms, end=bool(_END.search(rest)), via=via)
    # "Which band is from England, Oasis or Blur?": the one of the two the property holds for (the category
    # word after "which" is common to both, so no evidence)
    head = re.match(r"(?:which|what)\s+(?:one\s+|of\s+(?:these|the\s+two)\s+)?(\w+)", lower)
    prop = tuple(t for t in terms if t not in _LIGHT and (not head or t != _root(head.group(1))))
    return Form("which", options, terms=prop) if 0 < len(prop) <= MAX_PROPERTY_WORDS else None


def _scoped(body: str, option: str) -> bool:
    """Whether the options follow a preposition inside the question ("a city in A or B"), as a place or
    thing the question looks within, rather than opening it ("Between A and B", "Out of A and B")."""
    at = body.find(option)
    before = body[:at].lower().split() if at > 0 else []
    opens = before[-2:] == ["out", "of"] or before == ["of"]  # "born first out of A and B", "Of A and B, ..."
    return bool(before) and before[-1] in _SCOPES and not opens


def _is_name(option: str) -> bool:
    """A name: capitalised (or a number) first, at most one lowercase word that is no connector ("GPL version 2",
    "Gone with the Wind"), at most `MAX_OPTION_WORDS` words; "regardless of whether Josh Dobbs" is a clause."""
    words = option.split()
    lower = [w for w in words[1:] if not _name_word(w) and w.lower() not in _CONNECTORS]
    return bool(words) and _name_word(words[0]) and len(lower) <= 1 and len(words) <= MAX_OPTION_WORDS


def _or_options(body: str) -> tuple[str, str] | None:
    """ "..., A or B", "Between A and B, ...", "A or B, which ...", "... first A or B" (name runs)."""
    m = re.match(r"(?i)(?:between|of)\s+(.+?)\s+(?:and|or)\s+(.+?),\s*(?:which|who|whose|what)\b", body)
    m = m or re.match(r"(?i)(.+?)\s+or\s+(.+?),\s*(?:which|who|whose|what)\b", body)
    m = m or re.search(r"(?i)\b(?:between|out\s+of|among)\s+(.+?)\s+and\s+(.+)$", body)  # "... first out of A and B"
    if m is None and "," in body:
        tail = body.rsplit(",", 1)[1] if re.search(r"\bor\b", body.rsplit(",", 1)[1]) else ""
        m = re.fullmatch(r"(?i)\s*(.+?)\s+or\s+(.+?)\s*", tail) if tail else None
    if m:
        return _clean(m.group(1)), _clean(m.group(2))
    return _name_runs(body, "or")


def _name_runs(body: str, joint: str, start: int | None = None) -> tuple[str, str] | None:
    """The capitalised name runs either side of " or " / " and " ("Were Scott Derrickson and Ed Wood of ..."),
    the first beginning at word `start` when given."""
    words = body.split()
    for i, w in enumerate(words):
        if w.lower() != joint or i == 0:
            continue
        left = i
        while left > max(1, start or 1) and (_name_word(words[left - 1]) or words[left - 1].lower() in _CONNECTORS):
            left -= 1
        right = i + 1
        while right < len(words) and (_name_word(words[right]) or words[right].lower() in _CONNECTORS):
            right += 1
        if start is not None and left != start:
            return None
        a, b = _trim(words[left:i]), _trim(words[i + 1 : right])
        while b and len(b) > 1 and b[-1].lower() in _DEMONYMS:  # "... and Ernest Hemingway American?"
            b = b[:-1]
        if a and b:
            return _clean(" ".join(a)), _clean(" ".join(b))
    return None


def _name_word(word: str) -> bool:
    return bool(re.match(r"[\"'“(]?[A-Z0-9]", word))


def _trim(run: list[str]) -> list[str]:
    while run and run[0].lower() in _CONNECTORS:
        run = run[1:]
    while run and (run[-1].lower() in _CONNECTORS or not _name_word(run[-1])):
        run = run[:-1]
    return run


def _title_options(body: str, titles: Sequence[str]) -> tuple[str, str] | None:
    """Two passage titles the question names as a pair ("Pride and Prejudice, or Sense and Sensibility")."""
    found: list[tuple[int, int, str]] = []
    for title in sorted({_bare_title(t) for t in titles if t}, key=len, reverse=True):
        m = re.search(rf"(?<!\w){re.escape(title)}(?!\w)", body, re.I) if len(title) > 2 else None
        if m and not any(m.start() < end and start < m.end() for start, end, _ in found):
            found.append((m.start(), m.end(), title))
    if len(found) != 2:
        return None
    (_, end, a), (start, _, b) = sorted(found)
    return (a, b) if re.fullmatch(r"[\s,]*(?:or|and)\s+(?:the\s+)?", body[end:start], re.I) else None


def _clean(option: str) -> str:
    option = option.strip(" ,.;:\"'“”")
    # "the Laleli Mosque" loses its article; "The Love Route" keeps it (a capital: part of the name)
    return re.sub(r"^(?:the|a|an)\s+(?=[A-Z0-9])", "", option).strip() or option


def _without(body: str, options: tuple[str, str]) -> str:
    for option in options:
        body = re.sub(re.escape(option), " ", body, flags=re.I)
    return body


# -- 2. each option's evidence -----------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:\.\d+)*")  # "2.1" is one word: version 2.1 is not version 2
_ARTICLES = frozenset({"the", "a", "an"})


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _words_in(name: str, text: str) -> bool:
    """Every word of `name` (articles aside) is a word of `text`."""
    words = [t for t in _tokens(name) if t not in _ARTICLES]
    have = _token_set(text)
    return bool(words) and all(w in have for w in words)


# The graph walk asks of each of its 50 candidate passages whether it is about each option of a comparison
# query: the same passages' words for both options, read once per text (256: a query's candidates and the
# next one's, not a server's whole corpus of passage texts kept for its lifetime).
@lru_cache(maxsize=256)
def _token_set(text: str) -> frozenset[str]:
    return frozenset(_tokens(text))


@lru_cache(maxsize=256)
def _initials(text: str) -> frozenset[str]:
    """The initials of each run of capitalised words of `text` ("GNU General Public License" -> "GGPL")."""
    return frozenset("".join(w[0] for w in run.split()) for run in _capital_runs(text))


def _bare_title(title: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


def mentions(text: str, option: str) -> bool:
    """`text` names `option`: each word of it is a word of the text, an all-capitals word also as the initials
    of a run of capitalised words ("GPL" in "GNU General Public License")."""
    have = _token_set(text)
    words = [w for w in _TOKEN.findall(option) if w.lower() not in _ARTICLES]
    if not words:
        return False
    return all(w.lower() in have or (w.isupper() and len(w) > 1 and any(w in i for i in _initials(text)))
               for w in words)


def _capital_runs(text: str) -> list[str]:
    return [m.group(0) for m in re.finditer(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+", text)]


def about(sentence: Sentence, option: str) -> bool:
    """`sentence` is about `option`: its passage is titled with the option (a paragraph is about its title's
    subject, even where a sentence says only "He"), or it names the option (`mentions`)."""
    title = _bare_title(sentence.title)
    titled = bool(title) and (
        _tokens(title) == _tokens(option)
        or (
            min(len(_tokens(title)), len(_tokens(option))) >= 2
            and (_words_in(title, option) or _words_in(option, title))
        )
    )
    return titled or mentions(sentence.text, option)


def option_evidence(form: Form, sentences: Sequence[Sentence]) -> tuple[list[Evidence], list[Evidence]]:
    """Per option, its evidence sentences, best first (see the module docstring, point 2)."""
    a, b = form.options
    return _evidence(form, a, b, sentences), _evidence(form, b, a, sentences)


def _evidence(form: Form, option: str, other: str, sentences: Sequence[Sentence]) -> list[Evidence]:
    its = [s for s in sentences if about(s, option)]
    own = [s for s in its if not mentions(s.text, other)] or its
    if form.via:  # "the film whose director was born first": the value is the director's, one hop on
        hops = [e for s in own for e in _hop(form, s, option, other, sentences)]
        if hops:
            return hops
    return _ranked(form, option, own)


def _ranked(form: Form, option: str, own: Sequence[Sentence], name: str = "") -> list[Evidence]:
    ranked = []
    for s in own:
        value = _value(form, s.text, name or option)
        cover = len(set(form.terms) & {_root(t) for t in _tokens(s.text)})
        exact = re.search(rf"(?<!\w){re.escape(name or option)}(?!\w)", s.text, re.I) is not None  # as written
        plain = _tokens(s.title) == _tokens(name or option)  # "Ed Wood", not "Ed Wood (film)": the sense asked
        lead = (
            plain and s.position == 0
        )  # the sentence defining the subject ("X (1954 – 2013) was ..."), not "his father"
        key = (-bool(value), -plain, -lead, -cover, -exact, s.position, s.passage)
        ranked.append((key, Evidence(option, s, value)))
    ranked.sort(key=lambda r: r[0])
    return [e for _, e in ranked]


def _hop(form: Form, sentence: Sentence, option: str, other: str, sentences: Sequence[Sentence]) -> list[Evidence]:
    """The evidence of the person `sentence` names through the form's relation ("directed by Edgar Wright"),
    from the sentences about that person, each carrying `sentence` as its `via`; only those stating a value."""
    m = re.search(rf"\b{form.via}\w*\s+by\s+({_PERSON})", sentence.text) or re.search(
        rf"\b{_AGENTS[form.via]}\s+(?:was\s+|is\s+)?({_PERSON})", sentence.text
    )
    if m is None or mentions(m.group(1), option):
        return []
    person = m.group(1)
    theirs = [s for s in sentences if s != sentence and about(s, person) and not mentions(s.text, other)]
    return [Evidence(option, e.sentence, e.value, sentence) for e in _ranked(form, option, theirs, person) if e.value]


# -- 3. the decision ---------------------------------------------------------------------------------------


def decide(form: Form, sentences: Sequence[Sentence]) -> Decision | None:
    """The answer the two options' evidence gives, or None when it gives none (no value, not comparable, a tie)."""
    ev_a, ev_b = option_evidence(form, sentences)
    if not ev_a or not ev_b:
        return None
    a, b = ev_a[0], ev_b[0]
    if (a.via is None) != (b.via is None):
        return None  # one value is the director's, the other the film's own: not one property
    if form.kind == "choice":
        return _choose(form, a, b)
    if form.kind == "same":
        return _same(form, a, b)
    if form.kind == "which":
        return _which(form, ev_a, ev_b)
    return _both(form, ev_a, ev_b)


def _choose(form: Form, a: Evidence, b: Evidence) -> Decision | None:
    if not a.value or not b.value:
        return None
    if form.order in ("earliest", "latest"):
        da, db = date_bounds(a.value), date_bounds(b.value)
        if da is None or db is None:
            return None
        first = _earlier(da, db)
        if first is None:
            return None  # the two dates overlap ("1991" and "June 1991"): no order
        win = (a if first == 0 else b) if form.order == "earliest" else (b if first == 0 else a)
        return Decision(win.option, (a, b), f"{form.order} date: {a.value} vs {b.value}")
    ma, mb = _measure(a.value), _measure(b.value)
    if ma is None or mb is None or ma[1] != mb[1] or ma[0] == mb[0]:
        return None
    larger = a if ma[0] > mb[0] else b
    win = larger if form.order == "larger" else (b if larger is a else a)
    return Decision(win.option, (a, b), f"{form.order} {ma[1]}: {a.value} vs {b.value}")


def _earlier(da: tuple[date, date], db: tuple[date, date]) -> int | None:
    if da[1] < db[0]:
        return 0
    if db[1] < da[0]:
        return 1
    return None


def _same(form: Form, a: Evidence, b: Evidence) -> Decision | None:
    va, vb = _attribute(form.attribute, a), _attribute(form.attribute, b)
    if not va or not vb:
        return None
    shared = va & vb
    short = "Yes" if shared else "No"
    return Decision(short, (a, b), f"same {form.attribute}: {sorted(va)} vs {sorted(vb)}")


def _which(form: Form, ev_a: list[Evidence], ev_b: list[Evidence]) -> Decision | None:
    """The option the property holds for, when it holds for exactly one: its nationality, else a sentence of it
    holding every word of the property (the question says one of the two has it)."""
    need = set(form.terms)
    countries = {c for alias, c in _DEMONYMS.items() if len(alias) > 3 and " " not in alias and _root(alias) in need}
    if countries:
        ca, cb = (_countries(ev[0].sentence.text, ev[0].option) for ev in (ev_a, ev_b))
        holds = [countries <= ca, countries <= cb]
        if holds[0] != holds[1] and ca and cb:
            win = ev_a[0] if holds[0] else ev_b[0]
            return Decision(win.option, (ev_a[0], ev_b[0]), f"countries {sorted(ca)} vs {sorted(cb)}")
        return None
    sa = [e for e in ev_a if _holds(need, e.sentence.text)]
    sb = [e for e in ev_b if _holds(need, e.sentence.text)]
    if bool(sa) == bool(sb):
        return None  # both or neither: the evidence tells them apart nowhere
    a, b = (sa[0], ev_b[0]) if sa else (ev_a[0], sb[0])
    return Decision((sa or sb)[0].option, (a, b), f"only {(sa or sb)[0].option}'s sentence holds {sorted(need)}")


def _holds(need: set[str], text: str) -> bool:
    """Every word of the property is in `text`, none of them denied just before ("is not vegetarian")."""
    words = _tokens(text.replace("n't", " not"))  # "wasn't" -> "was not"
    roots = [_root(w) for w in words]
    if not need <= set(roots):
        return False
    return not any(
        r in need and any(w in _NEGATIONS for w in words[max(0, i - NEGATION_REACH) : i]) for i, r in enumerate(roots)
    )


def _both(form: Form, ev_a: list[Evidence], ev_b: list[Evidence]) -> Decision | None:
    need = set(form.terms)
    countries = {c for alias, c in _DEMONYMS.items() if len(alias) > 3 and " " not in alias and _root(alias) in need}
    if countries:  # "both American": the nationality of each, from its defining phrase only (a country merely
        # named in the sentence, "near the border with Canada", is no place the option is in)
        ca, cb = (_countries(ev[0].sentence.text, ev[0].option, defining_only=True) for ev in (ev_a, ev_b))
        if ca and cb:
            yes = countries <= ca and countries <= cb
            return Decision("Yes" if yes else "No", (ev_a[0], ev_b[0]), f"countries {sorted(ca)} vs {sorted(cb)}")
        return None
    sa = [e for e in ev_a if _holds(need, e.sentence.text)]
    sb = [e for e in ev_b if _holds(need, e.sentence.text)]
    if sa and sb:
        return Decision("Yes", (sa[0], sb[0]), f"both sentences hold {sorted(need)}")
    head = form.terms[-1] if form.terms else ""
    for holds, lacks in ((sa, ev_b), (sb, ev_a)):
        # "No" only where the property is a type ("both magazines") one option is and the other's
        # defining phrase names a different one: a missing word alone proves nothing.
        if holds and head in _types(holds[0].sentence.text, holds[0].option):
            types = _types(lacks[0].sentence.text, lacks[0].option)
            # ... and the other's sentences hold no word of that type at all ("screenwriter" is a "writer")
            if types and not any(head in t.lower() for e in lacks for t in _TOKEN.findall(e.sentence.text)):
                pair = (holds[0], lacks[0]) if holds is sa else (lacks[0], holds[0])
                return Decision("No", pair, f"{lacks[0].option} is a {'/'.join(sorted(types))}, not {head}")
    return None


# -- values ------------------------------------------------------------------------------------------------


def _value(form: Form, text: str, option: str) -> str:
    """The value of the compared property `text` states for `option` ("" when none)."""
    if form.attribute == "lifespan":
        return _lifespan(text, option)
    if form.kind == "choice" and form.order in ("earliest", "latest"):
        return _date_value(form, text, option)
    if form.kind == "choice":
        return _measure_value(form, text, option)
    if form.kind == "same":
        return ", ".join(sorted(_attribute_values(form.attribute, text, option)))
    return ""


def _lifespan(text: str, option: str) -> str:
    """Days between a life's two dates ("(16 February 1954 – 9 June 2013)" -> "21663 days"), "" without both."""
    life = re.search(r"\(([^()]*?)\s*[–—-]\s*([^()]*?)\)", text)
    if life is None:
        return ""
    ends = [typed_spans(part, (), ("DATE",)) for part in (life.group(1), life.group(2))]
    bounds = [date_bounds(spans[0].text) if spans else None for spans in ends]
    if bounds[0] is None or bounds[1] is None:
        return ""
    return f"{(bounds[1][0] - bounds[0][0]).days} days"


def _date_value(form: Form, text: str, option: str) -> str:
    spans = [s for s in typed_spans(text, (), ("DATE",)) if date_bounds(s.text) and not mentions(s.text, option)]
    if not spans:
        return ""
    if form.end:  # "died first": a life's second date, or a date just after "died"; a birth date is no answer
        life = re.search(r"\(([^()]*?)\s*[–—-]\s*([^()]*?)\)", text)  # "(16 February 1954 – 9 June 2013)"
        ends = [s for s in spans if life and s.start >= life.start(2) and s.end <= life.end(2)]
        ends += [s for s in spans for m in _END.finditer(text) if 0 <= s.start - m.end() <= END_REACH]
        return ends[0].text if ends else ""
    anchors = [m.start() for m in _TOKEN.finditer(text) if _root(m.group(0).lower()) in form.terms]
    if anchors:
        return min(spans, key=lambda s: (min(abs(s.start - a) for a in anchors), s.start)).text
    return spans[0].text


# unit -> (family, factor to the family's base unit)
_UNIT_FACTORS: dict[str, tuple[str, float]] = {
    "m": ("length", 1.0),
    "meter": ("length", 1.0),
    "metre": ("length", 1.0),
    "km": ("length", 1000.0),
    "kilometer": ("length", 1000.0),
    "kilometre": ("length", 1000.0),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "ft": ("length", 0.3048),
    "foot": ("length", 0.3048),
    "feet": ("length", 0.3048),
    "inch": ("length", 0.0254),
    "inches": ("length", 0.0254),
    "mi": ("length", 1609.344),
    "mile": ("length", 1609.344),
    "yard": ("length", 0.9144),
    "acre": ("area", 4046.86),
    "hectare": ("area", 10_000.0),
    "ha": ("area", 10_000.0),
    "kg": ("mass", 1.0),
    "kilogram": ("mass", 1.0),
    "g": ("mass", 0.001),
    "gram": ("mass", 0.001),
    "lb": ("mass", 0.4536),
    "pound": ("mass", 0.4536),
    "ton": ("mass", 1000.0),
    "tonne": ("mass", 1000.0),
    "%": ("percent", 1.0),
    "percent": ("percent", 1.0),
    "$": ("usd", 1.0),
    "dollar": ("usd", 1.0),
}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_QUANTITY = re.compile(
    r"(?P<cur>\$)?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?P<scale>thousand|million|billion|trillion)?"
    r"(?:[\s-]?(?P<unit>square\s+\w+|[A-Za-z%]+))?",
    re.I,
)


def _measure(value: str) -> tuple[float, str] | None:
    """(number in the family's base unit, family) of "712 ft", "217 m", "$5 million", "35 members"."""
    m = _QUANTITY.search(value)
    if m is None:
        return None
    number = float(m.group("num").replace(",", "")) * _SCALES.get((m.group("scale") or "").lower(), 1.0)
    unit = (m.group("unit") or "").lower()
    if m.group("cur"):
        return number, "usd"
    if unit.startswith("square "):
        base = _UNIT_FACTORS.get(_singular(unit.split()[1]))
        return (number * base[1] ** 2, "area") if base and base[0] == "length" else None
    known = _UNIT_FACTORS.get(unit) or _UNIT_FACTORS.get(_singular(unit))
    if known:
        return number * known[1], known[0]
    return (number, f"count:{_root(unit)}") if unit else None


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 2 else word


def _measure_value(form: Form, text: str, option: str) -> str:
    """A measure with a unit, or a count of a noun the question names ("35 members" for "more members")."""
    found = []
    for m in _QUANTITY.finditer(text):
        if not m.group("num") or re.fullmatch(r"1[0-9]\d\d|20\d\d", m.group("num")) and not m.group("unit"):
            continue
        measured = _measure(m.group(0))
        named = _named_before(text[: m.start()], form.terms)
        counted = measured is not None and measured[1].startswith("count:") and measured[1][6:] in form.terms
        if named and not counted and (measured is None or measured[1].startswith("count:")):
            found.append(
                (m.start(), f"{m.group('num')} {named}")
            )  # "a population of 12,345 at ..." -> "12,345 population"
            continue
        if measured is None:
            continue
        family = measured[1]
        if family.startswith("count:") and family[6:] not in form.terms:
            continue  # "52 stories" answers no question about members
        found.append((m.start(), m.group(0).strip()))
    if not found:
        return ""
    counts = {v for _, v in found if (q := _measure(v)) is None or q[1].startswith("count:")}
    if len(counts) > 1:
        return ""  # "began with 12 members and now has 40 members": which count is meant the sentence leaves open
    anchors = [m.start() for m in _TOKEN.finditer(text) if _root(m.group(0).lower()) in form.terms]
    if anchors:
        return min(found, key=lambda f: (min(abs(f[0] - a) for a in anchors), f[0]))[1]
    return found[0][1]


def _named_before(before: str, terms: Sequence[str]) -> str:
    """The question's word among the last `COUNT_REACH` words before a number ("population of", "population was
    estimated at"), "" when none: the noun a bare number counts."""
    words = [_root(w) for w in _TOKEN.findall(before.lower())][-COUNT_REACH:]
    return next((w for w in reversed(words) if w in terms), "")


# country -> its demonyms and other names (a value of "the same country/nationality"); a name that is also a
# US state or a person's name (Georgia, Jordan) is left out: it would place Atlanta or Michael Jordan
_COUNTRIES: dict[str, tuple[str, ...]] = {
    "united states": ("american", "u.s.", "us", "usa", "united states of america", "america"),
    "united kingdom": ("british", "uk", "u.k.", "britain", "great britain"),
    "england": ("english",),
    "scotland": ("scottish", "scots"),
    "wales": ("welsh",),
    "ireland": ("irish",),
    "canada": ("canadian",),
    "australia": ("australian",),
    "new zealand": ("new zealander",),
    "france": ("french",),
    "germany": ("german", "west german", "east german"),
    "italy": ("italian",),
    "spain": ("spanish",),
    "portugal": ("portuguese",),
    "netherlands": ("dutch",),
    "belgium": ("belgian",),
    "switzerland": ("swiss",),
    "austria": ("austrian",),
    "sweden": ("swedish",),
    "norway": ("norwegian",),
    "denmark": ("danish",),
    "finland": ("finnish",),
    "iceland": ("icelandic",),
    "poland": ("polish",),
    "russia": ("russian",),
    "soviet union": ("soviet",),
    "ukraine": ("ukrainian",),
    "greece": ("greek",),
    "turkey": ("turkish",),
    "czech republic": ("czech",),
    "hungary": ("hungarian",),
    "romania": ("romanian",),
    "china": ("chinese",),
    "japan": ("japanese",),
    "south korea": ("south korean", "korean"),
    "india": ("indian",),
    "pakistan": ("pakistani",),
    "iran": ("iranian", "persian"),
    "israel": ("israeli",),
    "egypt": ("egyptian",),
    "mexico": ("mexican",),
    "brazil": ("brazilian",),
    "argentina": ("argentine", "argentinian"),
    "chile": ("chilean",),
    "colombia": ("colombian",),
    "cuba": ("cuban",),
    "philippines": ("filipino", "philippine"),
    "south africa": ("south african",),
    "nigeria": ("nigerian",),
    "macedonia": ("macedonian",),
    "serbia": ("serbian",),
    "croatia": ("croatian",),
    "slovenia": ("slovenian",),
    "bosnia and herzegovina": ("bosnian", "bosnia"),
    "montenegro": ("montenegrin",),
    "albania": ("albanian",),
    "bulgaria": ("bulgarian",),
    "slovakia": ("slovak", "slovakian"),
    "yugoslavia": ("yugoslav", "yugoslavian"),
    "czechoslovakia": ("czechoslovak",),
    "estonia": ("estonian",),
    "latvia": ("latvian",),
    "lithuania": ("lithuanian",),
    "belarus": ("belarusian",),
    "moldova": ("moldovan",),
    "armenia": ("armenian",),
    "azerbaijan": ("azerbaijani",),
    "kazakhstan": ("kazakh", "kazakhstani"),
    "uzbekistan": ("uzbek",),
    "afghanistan": ("afghan",),
    "bangladesh": ("bangladeshi",),
    "sri lanka": ("sri lankan",),
    "nepal": ("nepali", "nepalese"),
    "myanmar": ("burmese", "burma"),
    "thailand": ("thai",),
    "vietnam": ("vietnamese",),
    "cambodia": ("cambodian",),
    "malaysia": ("malaysian",),
    "singapore": ("singaporean",),
    "indonesia": ("indonesian",),
    "taiwan": ("taiwanese",),
    "north korea": ("north korean",),
    "mongolia": ("mongolian",),
    "saudi arabia": ("saudi",),
    "iraq": ("iraqi",),
    "syria": ("syrian",),
    "lebanon": ("lebanese",),
    "kuwait": ("kuwaiti",),
    "qatar": ("qatari",),
    "united arab emirates": ("emirati",),
    "yemen": ("yemeni",),
    "morocco": ("moroccan",),
    "algeria": ("algerian",),
    "tunisia": ("tunisian",),
    "libya": ("libyan",),
    "sudan": ("sudanese",),
    "ethiopia": ("ethiopian",),
    "kenya": ("kenyan",),
    "uganda": ("ugandan",),
    "tanzania": ("tanzanian",),
    "ghana": ("ghanaian",),
    "senegal": ("senegalese",),
    "cameroon": ("cameroonian",),
    "zimbabwe": ("zimbabwean",),
    "zambia": ("zambian",),
    "angola": ("angolan",),
    "mozambique": ("mozambican",),
    "peru": ("peruvian",),
    "venezuela": ("venezuelan",),
    "ecuador": ("ecuadorian",),
    "bolivia": ("bolivian",),
    "uruguay": ("uruguayan",),
    "paraguay": ("paraguayan",),
    "jamaica": ("jamaican",),
    "haiti": ("haitian",),
    "puerto rico": ("puerto rican",),
    "dominican republic": ("dominican",),
    "costa rica": ("costa rican",),
    "panama": ("panamanian",),
    "guatemala": ("guatemalan",),
    "honduras": ("honduran",),
    "luxembourg": ("luxembourgish",),
    "malta": ("maltese",),
    "cyprus": ("cypriot",),
    "monaco": ("monegasque",),
    "liechtenstein": (),
    "andorra": ("andorran",),
    "new caledonia": (),
    "hong kong": (),
}
_DEMONYMS = {alias: country for country, aliases in _COUNTRIES.items() for alias in (country, *aliases)}
_UK_PARTS = frozenset({"england", "scotland", "wales"})  # British and English name one nationality at two levels
_DEFINING = re.compile(
    r"\b(?:is|was|are|were)\s+(?:an?|the|one\s+of\s+the)\s+(?P<phrase>[^.;()]*?)"
    r"(?=\s+(?:who|which|that|whose|from|in|based|founded|directed|written|born|by|of|for|with|located|known"
    r"|created|produced|released|published|starring|and\s+(?:is|was|has|had))\b|[.;()]|$)"
)


def _attribute(attribute: str, ev: Evidence) -> set[str]:
    return set(ev.value.split(", ")) if ev.value else set()


def _attribute_values(attribute: str, text: str, option: str) -> set[str]:
    if attribute == "country":
        return _countries(text, option)
    if attribute in ("year", "decade"):
        spans = [s for s in typed_spans(text, (), ("DATE",)) if date_bounds(s.text) and not mentions(s.text, option)]
        years = {bounds[0].year for s in spans if (bounds := date_bounds(s.text))}
        values = {f"{y // 10}0s" if attribute == "decade" else str(y) for y in years}
        # two years in one sentence ("the sequel to the 1985 film, released in 1989"): which is the option's
        # is not said here, so no value rather than the first one
        return values if len(values) == 1 else set()
    return _types(text, option)


def _countries(text: str, option: str, defining_only: bool = False) -> set[str]:
    """The countries `text` names for its subject: the demonyms of its defining phrase ("is an American
    director"), else the country names it holds ("a town in Bavaria, Germany"); England, Scotland, Wales are
    also the United Kingdom."""
    defining = _DEFINING.search(text)
    lower = f" {defining.group('phrase').lower()} " if defining else ""
    found = (
        {country for alias, country in _DEMONYMS.items() if re.search(rf"(?<![\w.]){re.escape(alias)}(?![\w])", lower)}
        if lower
        else set()
    )
    if not found and not defining_only:
        hay = text.lower()
        for m in re.finditer(re.escape(option.lower()), hay):
            hay = hay[: m.start()] + " " * len(m.group(0)) + hay[m.end() :]
        found = {
            country
            for alias, country in _DEMONYMS.items()
            if len(alias) > 3 and alias == country and re.search(rf"(?<![\w.]){re.escape(alias)}(?![\w])", hay)
        }
    if found & _UK_PARTS:
        found.add("united kingdom")
    return found


def _types(text: str, option: str) -> set[str]:
    """The type words of `text`'s defining phrase: the head noun of each listed item ("an American film director,
    screenwriter and producer" -> director, screenwriter, producer), stemmed."""
    m = _DEFINING.search(text)
    if m is None:
        return set()
    heads = set()
    for item in re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+", m.group("phrase")):
        words = [w for w in re.findall(r"[A-Za-z][\w-]*", item) if not w[0].isupper() and w.lower() not in _STOP]
        if words:
            heads.add(_root(words[-1].lower()))
    return heads
