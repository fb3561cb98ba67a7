"""The offline extractive answer: the sentences that carry evidence for a question, and a short answer.

    chosen = select_sentences("Who founded the APA?", passages, idf=idf, entities=entities)
    short = short_answer("Who founded the APA?", chosen, entities)   # a TypedSpan or None

Candidates are every sentence of every passage, whole (no character cut before selection; only
what is shown is clipped). A sentence's evidence for question Q is

    evidence(s) = Σ_{t ∈ T(Q) ∩ T(s), t not yet covered} idf(t) / Σ_{t ∈ T(Q)} idf(t)   (IDF-weighted coverage)
                + W_ENTITY · |E(Q) ∩ E(s), not yet covered| / |E(Q)|                    (the query's entities)
                + W_TYPE   · [s holds a span of the expected answer type not in Q]        (`answer_type`)
                + W_BRIDGE · spec(b) · [s, in another document, names an entity b of a chosen sentence that Q
                                        does not name] (the multi-hop bridge; spec = idf of b's rarest word
                                        over the highest idf, so "United States" links little)

with T the stemmed content terms, E the entity names, and idf(t) = ln((N − df(t) + 0.5) / (df(t) + 0.5))
clamped at `MIN_IDF`: Robertson and Spärck Jones' term weight, the idf of BM25 (Robertson & Zaragoza,
"The Probabilistic Relevance Framework: BM25 and Beyond", 2009), with df and N over the atlas's
full-text rows (`GraphStore.term_document_counts`, `corpus_stats`), or over the given sentences when
no atlas is at hand. A bridge name b is one of the chosen sentence's entities, or (`MENTION_LINKS`) a
name of s that the chosen sentence's text holds, also inside a longer name ("Philbrook Museum of Tulsa"
links a passage on Tulsa); dates, amounts and one-word CONCEPT names ("American": an attribute, not a
second subject) link nothing, and a hop leaves the document: two passages under one title do not bridge.
A bridge name also links a passage whose "(title)" holds it as a whole run of capitalised words, the
qualifier's included (`TITLE_RUNS`: a title says what each of its sentences is about, so "Prague" links
"(Prague astronomical clock)" and "Uganda" "(Leader of Opposition (Uganda))"; no part of a run stands for
it, "York" links no "(New York)"). A link's weight is shared out among the names of the pick that names it
beyond `FAN_OUT` of them (`strength`; as PageRank shares a page's vote among its out-links, Brin & Page
1998): a sentence listing the euro's member states links on to none of them in particular.
Selection is greedy (each step takes the sentence adding most evidence, ties by
passage then position): coverage counts only what earlier picks did not cover, the bridge bonus once,
the type bonus once and once more for a hop of the chain (`HOP_TYPE`: the later hop is the one that
answers), and only for a span that neither the question nor an earlier pick names (`NEW_SPANS`: the chain's
own names are no answer, as the short answer's rule says), and a further sentence adding less than
`MIN_GAIN` is not taken (the first needs only to share a term or an entity with the question). A prior W_RANK / rank of
the passage breaks near-ties towards the retriever's order, but is no evidence (it is left out of
that test). So the answer is padded
with nothing, and holds at most `MAX_SENTENCES`.

The short answer is a span of the expected type, not in the question, in the first chosen sentence that
holds one, bridge sentences first (the later hop of a chain is the one that answers; unless one pick
already holds every word of the question, when only a bridge adding a word of it comes first), then by evidence:
that sentence's only such span, or the one clearly best (of the first
expected type, then nearest to the question's words in the sentence, at most `CLEAR_MARGIN` times as far as the next);
two about equally good spans give none.

Shown, a sentence longer than `SHOWN_CHARS` is the word-aligned window of it holding most of its evidence
(the question's words, spans of the expected type, the short answer, the bridge name), marked "…"; the
reply's quotes keep the sentence whole for the citation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .answer_type import TypedSpan, expected_types, in_question, typed_spans
from .comparison import Decision, Sentence, about, comparison_form, decide, option_evidence
from .text import QUERY_STOPWORDS, QUESTION_WORDS, sentences, stem, tokenize

MAX_SENTENCES = 3
MIN_GAIN = 0.3  # a sentence adding less evidence than this (rank prior aside) pads the answer
MIN_IDF = 0.05  # a term in nearly every row still counts a little (BM25's idf goes negative there)
# Weights read off MuSiQue's tuning half (`ohara_lab.eval.calibrate.tuning_split`), never its test half.
W_ENTITY = 0.25
W_TYPE = 0.35
W_BRIDGE = 1.0
W_RANK = 0.6  # / the passage's rank: the retriever's order breaks near-ties (it is no evidence itself)
CLEAR_MARGIN = 0.5  # the nearest span is clearly best only at most half as far from the question's words
BRIDGE_IDF = True  # scale the bridge bonus by how rare the linking name is
VALUE_TYPES = frozenset({"DATE", "AMOUNT", "NUMBER"})  # a year shared by two passages links nothing
TITLE_NAMES = True  # a passage's "(title)" line names the subject of each of its sentences
MENTION_LINKS = True  # a name an earlier pick's text holds links too, also inside a longer name ("... of Tulsa")
TITLE_RUNS = True  # a pick's name links a passage whose title holds it as a whole run of capitalised words
FAN_OUT = 10  # a pick naming more names than this shares its link weight out among them (5..15 alike on tune)
NEW_SPANS = True  # the type bonus needs a span that neither the question nor an earlier pick names
HOP_TYPE = True  # a hop of the chain holding a span of the expected type earns the type bonus again
WEAK_LINKS = True  # a one-word CONCEPT name (a group or language: "American") links nothing
STOPWORDS = QUERY_STOPWORDS | QUESTION_WORDS
_SOURCE_LINE = re.compile(r"^\s*\((?:[^()\n]|\([^()\n]*\)){1,200}\)\s*\n")  # "(Jaws (film))" too
_NAME = re.compile(r"\b[A-Z][\w'.-]*(?:\s+(?:of|the|de|von|van|and|&)?\s*[A-Z][\w'.-]*)*")

Entities = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Chosen:
    """One selected sentence: its passage (1-based), its position there, and what it added."""

    passage: int
    position: int
    text: str
    gain: float
    terms: tuple[str, ...] = ()  # query terms it covered first
    entities: tuple[str, ...] = ()  # query entities it covered first
    typed: bool = False  # held a span of the expected type
    bridge: str = ""  # the entity of an earlier pick it names
    cover: float = 0.0  # the share of the question's idf weight its terms hold (earlier picks' included)


@dataclass
class _Candidate:
    passage: int
    position: int
    text: str
    terms: set[str]
    names: set[str]
    spans: list[TypedSpan] = field(default_factory=list)
    values: set[str] = field(default_factory=set)  # its names that link nothing: dates, amounts, "American"
    source: str = ""  # its document (the passage's "(title)" line, else the passage number): a hop leaves it
    runs: frozenset[str] = frozenset()  # the runs of capitalised words of that title, its qualifier's too


def idf_from_counts(counts: Mapping[str, int], n_rows: int) -> dict[str, float]:
    """token -> ln((N − df + 0.5) / (df + 0.5)), at least `MIN_IDF`; df 0 (a word the atlas lacks) counts as 1."""
    return {t: max(MIN_IDF, math.log((n_rows - max(df, 1) + 0.5) / (max(df, 1) + 0.5))) for t, df in counts.items()}


def passage_body(passage: str) -> str:
    """A passage without its leading "(document title)" line, which is no prose."""
    return _SOURCE_LINE.sub("", passage, count=1)


def select_sentences(
    question: str,
    passages: Sequence[str],
    *,
    idf: Mapping[str, float] | None = None,
    entities: Sequence[Entities] | None = None,
    limit: int = MAX_SENTENCES,
) -> list[Chosen]:
    """The sentences adding most evidence for `question`, greedily, at most `limit`, in the order chosen.

    `idf` maps lower-case tokens to their weight (missing: computed over the passages' sentences);
    `entities[i]` are the (name, type) pairs stored for passage i+1 (its entity list and aliases).
    """
    want = expected_types(question)
    cands = _candidates(passages, entities, want.types)
    if idf is None:
        idf = _local_idf([c.text for c in cands], question)
    weights: dict[str, float] = {}
    for token in _tokens(question):
        weights[stem(token)] = max(weights.get(stem(token), 0.0), idf.get(token, max(idf.values(), default=1.0)))
    total = sum(weights.values()) or 1.0
    q_names = _question_entities(question, entities)
    top = max(idf.values(), default=1.0) or 1.0

    def specific(name: str) -> float:
        """How rare a bridge name is: its rarest word's idf over the highest (1 when no word is known).
        "United States" links every passage; "Jonas Brekke" links two."""
        known = [idf[t] for t in _WORDS.findall(name.lower()) if t in idf]
        return min(1.0, max(known) / top) if known and BRIDGE_IDF else 1.0

    fan: dict[str, int] = {}  # bridge name -> how many names the pick naming it links on through

    def strength(name: str) -> float:
        """A link's weight: its name's rarity, shared out when the pick naming it lists many names (a sentence
        naming the euro's 19 member states links on to none of them in particular)."""
        return specific(name) * min(1.0, FAN_OUT / fan.get(name, 1)) if FAN_OUT else specific(name)

    chosen: list[Chosen] = []
    covered: set[str] = set()
    named: set[str] = set()
    typed = False
    hop_typed = False
    chain: set[str] = set()  # the names of the chosen sentences: a span naming one of them is no new answer
    bridges: dict[str, str] = {}  # entity of a chosen sentence, not in the question -> its document
    picked: list[_Candidate] = []
    while len(chosen) < limit:
        best: tuple[float, int, int] | None = None
        best_c: _Candidate | None = None
        best_parts: tuple[set[str], set[str], bool, str] = (set(), set(), False, "")
        for c in cands:
            if any(c.passage == ch.passage and c.position == ch.position for ch in chosen):
                continue
            new_terms = (c.terms & set(weights)) - covered
            new_names = (c.names & q_names) - named
            links = [n for n in sorted(c.names) if bridges.get(n, c.source) != c.source]
            if MENTION_LINKS:
                links += [
                    n
                    for n in sorted(c.names - c.values)
                    if n not in links
                    and len(n) > 3
                    and not in_question(n, question)
                    and any(p.source != c.source and _has_name(p.text, n) for p in picked)
                ]
            if TITLE_RUNS:  # "Prague" of a pick links "(Prague astronomical clock)", "(Leader of Opposition (Uganda))"
                links += sorted(n for n in c.runs if n not in links and bridges.get(n, c.source) != c.source)
            bridge = max(links, key=lambda n: (strength(n), n), default="")
            # The type bonus applies once, and once more to a hop of the chain: its later hop is the one that answers.
            fresh = (
                any(not in_question(sp.text, question) and sp.text not in chain for sp in c.spans)
                if NEW_SPANS
                else bool(c.spans)
            )
            has_type = fresh and (not typed or (HOP_TYPE and bool(bridge) and not hop_typed))
            gain = (
                sum(weights[t] for t in new_terms) / total
                + W_RANK / c.passage
                + (W_ENTITY * len(new_names) / len(q_names) if q_names else 0.0)
                + (W_TYPE if has_type else 0.0)
                + (W_BRIDGE * strength(bridge) if bridge else 0.0)
            )
            if not new_terms and not new_names and not bridge:
                continue  # an answer-type span alone is no evidence that the sentence is about the question
            if chosen and gain - W_RANK / c.passage < MIN_GAIN:  # the first pick only needs some evidence
                continue  # the retriever's order ranks evidence; it is none itself
            key = (-gain, c.passage, c.position)
            if best is None or key < best:
                best, best_c, best_parts = key, c, (new_terms, new_names, has_type, bridge)
        if best is None or best_c is None:
            break
        new_terms, new_names, has_type, bridge = best_parts
        chosen.append(
            Chosen(
                best_c.passage,
                best_c.position,
                best_c.text,
                round(-best[0], 4),
                tuple(sorted(new_terms)),
                tuple(sorted(new_names)),
                has_type,
                bridge,
                round(sum(weights[t] for t in best_c.terms & set(weights)) / total, 4),
            )
        )
        covered |= new_terms
        named |= new_names
        hop_typed = hop_typed or (has_type and bool(bridge))
        typed = typed or has_type
        onward = [n for n in best_c.names if not in_question(n, question) and n not in best_c.values]
        for name in onward:
            if name not in bridges:
                bridges[name], fan[name] = best_c.source, len(onward)
        chain |= best_c.names
        picked.append(best_c)
    return chosen


def short_answer(
    question: str, chosen: Sequence[Chosen], entities: Sequence[Entities] | None = None
) -> TypedSpan | None:
    """The span of the expected type the chosen sentences name (see the module docstring), or None."""
    found = _short(question, chosen, entities)
    return found[0] if found else None


def _short(
    question: str, chosen: Sequence[Chosen], entities: Sequence[Entities] | None
) -> tuple[TypedSpan, Chosen] | None:
    want = expected_types(question)
    if not want:
        return None
    q_terms = {stem(t) for t in _tokens(question)}
    # A bridge sentence is the later hop of a chain, the one that answers: it is read first.
    # ... unless one sentence holds every word of the question: then a hop adding no word of it answers nothing.
    whole = any(c.cover >= 1.0 for c in chosen)
    for ch in sorted(chosen, key=lambda c: (-bool(c.bridge and (c.terms or not whole)), -c.gain)):
        ents = entities[ch.passage - 1] if entities and ch.passage <= len(entities) else ()
        spans = [s for s in typed_spans(ch.text, ents, want.types) if not in_question(s.text, question)]
        if not spans:
            continue
        if len(spans) == 1:
            return spans[0], ch
        rank = {t: i for i, t in enumerate(want.types)}
        first = min(rank[s.type] for s in spans)
        spans = [s for s in spans if rank[s.type] == first]
        if len(spans) == 1:
            return spans[0], ch
        anchors = [m.start() for m in re.finditer(r"[a-z0-9]+", ch.text.lower()) if stem(m.group(0)) in q_terms]
        if not anchors:
            return None
        dist = sorted(
            (min(abs(s.start - a) if a < s.start else abs(a - s.end) for a in anchors), i) for i, s in enumerate(spans)
        )
        if len(dist) > 1 and dist[0][0] > CLEAR_MARGIN * dist[1][0]:
            return None  # two spans about as near: no clearly best one
        return spans[dist[0][1]], ch
    return None


def _candidates(passages: Sequence[str], entities: Sequence[Entities] | None, types: Sequence[str]) -> list[_Candidate]:
    out = []
    for n, passage in enumerate(passages, 1):
        ents = list(entities[n - 1]) if entities and n <= len(entities) else []
        body = passage_body(passage)
        head = _SOURCE_LINE.match(passage)
        # The passage is about its title's subject, even where a sentence says only "It": the title names it.
        title = re.sub(r"\s*\([^)]*\)\s*$", "", head.group(0).strip()[1:-1]).strip() if head and TITLE_NAMES else ""
        for position, sentence in enumerate(_sentences(body)):
            names = {name for name, _ in ents if _has_name(sentence, name)} or set()
            names |= {m.group(0) for m in _NAME.finditer(sentence) if len(m.group(0)) > 2} if not ents else set()
            if len(title) > 2:
                names.add(title)
            spans = typed_spans(sentence, ents, types) if types else []
            values = {name for name, etype in ents if etype in VALUE_TYPES and name in names}
            if WEAK_LINKS:  # "American", "Canadian": an attribute of the sentence's subject, not a second subject
                typed_as: dict[str, set[str]] = {}
                for name, etype in ents:
                    typed_as.setdefault(name, set()).add(etype)
                values |= {name for name in names if typed_as.get(name) == {"CONCEPT"} and " " not in name.strip()}
            source = head.group(0).strip() if head else f"#{n}"
            runs = _title_runs(source[1:-1]) if head and TITLE_RUNS else frozenset()
            out.append(
                _Candidate(
                    n, position, sentence, {stem(t) for t in _tokens(sentence)}, names, spans, values, source, runs
                )
            )
    return out


_ABBREVIATION = re.compile(
    r"(?:\b[A-Z]|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Col|Lt|Capt|Rev|Mt|No|vs|U\.S"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec))\.$"  # "On Dec. 10, 1817, ..." is one sentence
)


def _sentences(text: str) -> list[str]:
    """`text.sentences`, rejoined where a split fell after an initial, a title or a month ("G. Stanley Hall",
    "Dr. Lund", "Dec. 10, 1817")."""
    out: list[str] = []
    for piece in sentences(text):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


_WORDS = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")


def _tokens(text: str) -> list[str]:
    """Content tokens (`tokenize` without the stopwords) plus bare numbers, which it drops under 3 chars
    ("version 3")."""
    return tokenize(text, STOPWORDS) + [n for n in _NUMBER.findall(text) if len(n) < 3]


def _has_name(text: str, name: str) -> bool:
    name = name.strip()
    return len(name) >= 2 and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


_TITLE_TOKEN = re.compile(r"[\w'.-]+|[^\w\s]")  # words (any script) and the punctuation that ends a run


def _title_runs(title: str) -> frozenset[str]:
    """The runs of capitalised words of a passage title, its qualifier's too: what the passage is about ("Prague
    astronomical clock" -> Prague; "Leader of Opposition (Uganda)" -> Leader, Opposition, Uganda; "Apollo 11";
    "Île-de-France"). Only a whole run links: "York" of "New York" is another place, "France" of "Île-de-France"
    another region."""
    runs: list[list[str]] = [[]]
    for token in _TITLE_TOKEN.findall(title):
        if token[0].isupper() or (runs[-1] and token.isdigit()):
            runs[-1].append(token)
        elif runs[-1]:
            runs.append([])
    return frozenset(run for run in (" ".join(words) for words in runs) if len(run) > 3)


def _question_entities(question: str, entities: Sequence[Entities] | None) -> set[str]:
    """Entity names (of the passages' lists) that the question names, else its capitalised names."""
    names = {
        name
        for ents in entities or ()
        for name, _ in ents
        if _has_name(question, name) or (len(name) > 3 and _has_name(question.lower(), name.lower()))
    }
    if names:
        return names
    return {m.group(0) for m in _NAME.finditer(question[1:]) if len(m.group(0)) > 2}


def _local_idf(texts: Sequence[str], question: str) -> dict[str, float]:
    """idf over the candidate sentences themselves (no atlas at hand), each sentence one row."""
    rows = [set(_tokens(t)) for t in texts]
    counts = {t: sum(t in r for r in rows) for t in _tokens(question)}
    return idf_from_counts(counts, max(len(rows), 1) + 1)


SHOWN_CHARS = 200  # a longer sentence is shown as its window of this many characters holding most evidence
QUOTE_CHARS = 1000  # the prompt schema's longest quote


def extractive_reply(
    question: str,
    passages: Sequence[str],
    *,
    idf: Mapping[str, float] | None = None,
    entities: Sequence[Entities] | None = None,
) -> tuple[dict[str, Any], TypedSpan | None, int]:
    """The `answer` prompt's reply made offline, the short answer and the passage holding it (0: none).

    The text is the short answer when there is one ("G. Stanley Hall [2].") and then the chosen
    sentences in reading order (passage, then position), each followed by its passage's marker.
    """
    chosen = select_sentences(question, passages, idf=idf, entities=entities)
    compared = _compare(question, passages, chosen)
    if compared is not None:
        chosen, found = compared
    else:
        found = _short(question, chosen, entities)
    if not chosen:
        return (
            {"answer": "The passages do not answer this question.", "cited": [], "insufficient": True, "quotes": []},
            None,
            0,
        )
    short, holder = (found[0], found[1].passage) if found else (None, 0)
    order = sorted(chosen, key=lambda c: (c.passage, c.position))
    want = expected_types(question).types
    q_stems = {stem(t) for t in _tokens(question)}
    shown = [_window(c.text, SHOWN_CHARS, _anchors(c, q_stems, want, entities, short)) for c in order]
    text = " ".join(f"{t} [{c.passage}]" for t, c in zip(shown, order))
    if short is not None and short.type == COMPARISON:
        marks = "".join(f"[{p}]" for p in sorted({c.passage for c in chosen}))  # a comparison needs both sides
        text = f"{short.text} {marks}. {text}"
    elif short is not None:
        text = f"{short.text} [{holder}]. {text}"
    quotes = [{"passage": c.passage, "text": _clip(c.text, QUOTE_CHARS)} for c in order]
    return (
        {"answer": text, "cited": sorted({c.passage for c in chosen}), "insufficient": False, "quotes": quotes},
        short,
        holder,
    )


COMPARISON = "COMPARISON"  # the type of a short answer decided by `comparison` ("Yes", "No", one option)


def _compare(
    question: str, passages: Sequence[str], chosen: list[Chosen]
) -> tuple[list[Chosen], tuple[TypedSpan, Chosen] | None] | None:
    """For a comparison question (`comparison.comparison_form`), its sentences and short answer: with a decision,
    the two options' supporting sentences and the decision; without one, the evidence selection's picks, each
    option given its best sentence where no pick is about it (a comparison answer needs both sides; the
    weakest picks make room, at most `MAX_SENTENCES`), and no short answer (a span of the expected type is no
    answer to "which of the two"). None when the question compares nothing."""
    rows = sentence_rows(passages)
    form = comparison_form(question, sorted({r.title for r in rows if r.title}))
    if form is None:
        return None
    decision: Decision | None = decide(form, rows)
    if decision is not None:
        shown = dict.fromkeys(s for e in decision.evidence for s in (e.via, e.sentence) if s is not None)
        picks = [Chosen(s.passage, s.position, s.text, 0.0) for s in shown]  # the hop's sentence, then the value's
        return picks, (TypedSpan(0, len(decision.short), decision.short, COMPARISON, "comparison"), picks[0])
    titles = {(r.passage, r.position): r for r in rows}
    picks = list(chosen)
    for evidence in option_evidence(form, rows):
        if not evidence or any(
            about(titles.get((c.passage, c.position), Sentence(c.passage, c.position, c.text)), evidence[0].option)
            for c in picks
        ):
            continue
        best = evidence[0].via or evidence[0].sentence
        if len(picks) >= MAX_SENTENCES:
            picks.pop(min(range(len(picks)), key=lambda i: (picks[i].gain, -i)))
        picks.append(Chosen(best.passage, best.position, best.text, 0.0))
    return picks, None


def sentence_rows(passages: Sequence[str]) -> list[Sentence]:
    """Every sentence of every passage, with its passage's title (the "(title)" line, its qualifier kept)."""
    rows = []
    for n, passage in enumerate(passages, 1):
        head = _SOURCE_LINE.match(passage)
        title = head.group(0).strip()[1:-1].strip() if head else ""
        rows += [Sentence(n, i, text, title) for i, text in enumerate(_sentences(passage_body(passage)))]
    return rows


def _anchors(
    ch: Chosen, q_stems: set[str], want: Sequence[str], entities: Sequence[Entities] | None, short: TypedSpan | None
) -> list[tuple[int, int]]:
    """Character ranges of a chosen sentence that carry its evidence: the question's words, the spans of the
    expected type (the short answer's counted thrice) and the bridge name."""
    out = [(m.start(), m.end()) for m in _WORDS.finditer(ch.text.lower()) if stem(m.group(0)) in q_stems]
    ents = entities[ch.passage - 1] if entities and ch.passage <= len(entities) else ()
    for span in typed_spans(ch.text, ents, want) if want else []:
        out += [(span.start, span.end)] * (3 if short is not None and span.text == short.text else 1)
    if ch.bridge:
        out += [(m.start(), m.end()) for m in re.finditer(re.escape(ch.bridge), ch.text)]
    return out


def _window(text: str, limit: int, anchors: Sequence[tuple[int, int]]) -> str:
    """`text` when it fits in `limit` characters, else the word-aligned window of about `limit` holding the
    most anchor ranges whole (the earliest of equals), marked "…" where it was cut."""
    if len(text) <= limit:
        return text
    starts = [0] + [m.end() for m in re.finditer(r"\s+", text)]
    best, best_start = -1, 0
    for start in starts:
        if start and len(text) - start < limit // 2:
            break
        held = sum(1 for a, b in anchors if a >= start and b <= start + limit)
        if held > best:
            best, best_start = held, start
    end = best_start + limit
    if end < len(text):
        cut = text.rfind(" ", best_start, end)
        end = cut if cut > best_start else end
    piece = text[best_start:end].strip()
    return ("…" if best_start else "") + piece + ("…" if end < len(text) else "")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
