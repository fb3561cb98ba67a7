"""Build the English term → SUMO class lexicon from WordNet 3.0 and SUMO's WordNet links.

For a term *w* (a WordNet lemma: a word or a multi-word phrase) and a class *c*::

    weight(w, c) = salience(w) · Σ_s  p(s | w) · POS(s) · R(s, c)

* ``s`` ranges over the synsets holding *w*; ``R(s, c)`` is the strongest SUMO link
  between ``s`` and ``c``: equivalence 1.0 > subsuming 0.6 > instance 0.35
  (SUMO–WordNet mapping, Niles & Pease 2003: ``=`` the synset means the class,
  ``+`` the class subsumes it, ``@`` the synset is an instance of it). A synset
  the OWL file does not link (the export is lossy: "hospital" the building, most
  verbs) borrows the links of its nearest linked hypernym, up to 3 hops, as
  subsuming links decayed by 0.7 per extra hop.
* ``POS(s)``: noun 1.0, verb 0.6, adjective 0.3, adverb 0.15 — topics are
  carried by nouns, and SUMO files most adjective/adverb synsets under catch-all
  attribute classes.
* ``p(s | w) ∝ tag_count(w, s) + 1 / (sense_number + 1)``: WordNet's semantic-
  concordance counts (``index.sense``), smoothed by the sense order so that
  untagged senses keep WordNet's own ranking (sense 1 is the most frequent).
* ``salience(w) = 1 / (1 + ln(1 + T(w) / 100))`` with ``T(w)`` the lemma's total
  tag count — an IDF-like damping: "river" (T = 55) keeps 0.70 of its weight,
  "time" (603) 0.35, "be" (16,667) 0.16.
* Links to classes too general to tag with (`general_classes`) are dropped, so a
  sense that only maps to ``Object`` or ``SubjectiveAssessmentAttribute`` adds
  nothing; stop words (`text.LEXICON_STOPWORDS`) and one- or two-letter words are not
  terms at all.
* Each term keeps its 5 heaviest classes, and only those with ≥ 10 % of its top
  weight.

An inflected form that is also a lemma ("transactions" = proceedings, "minutes",
"species") gets the mix of its own entry and its base form's ("transaction"),
in proportion to their tag counts (the surface form counted twice), so the
tagger, which keeps surface lemmas as they are, is not trapped by a rare sense.

SUMO's own class labels (and the words of a label-less class's CamelCase name)
fill the gaps WordNet leaves — "air-to-air missile", "computer program" — with
weight 0.8, and so do the single-word keys of the hand-written alias table
(`aliases.ALIASES`, first target present) for words newer than WordNet 3.0
("bitcoin", "blockchain"); neither ever overrides a WordNet lemma.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from ..text import LEXICON_STOPWORDS as STOPWORDS
from .aliases import ALIASES
from .hierarchy import main_root, subtree_sizes
from .morphy import base_forms
from .names import camel_phrase
from .owl import SumoGraph
from .wordnet import SynsetKey, WordNet

RELATION_WEIGHTS = {"equivalence": 1.0, "subsuming": 0.6, "instance": 0.35}
POS_WEIGHTS = {"n": 1.0, "v": 0.6, "a": 0.3, "r": 0.15}
HYPERNYM_HOPS = 3
HYPERNYM_DECAY = 0.7
SALIENCE_TAU = 100.0
LABEL_WEIGHT = 0.8
MAX_CLASSES_PER_TERM = 5
MIN_RELATIVE_WEIGHT = 0.1
# A class with this many descendants (Entity, Physical, Object, Process,
# Artifact, SelfConnectedObject, ContentBearingPhysical) says nothing about a text.
GENERAL_MIN_DESCENDANTS = 800
# SUMO's catch-all for evaluative words: ≥ 1,000 linked synsets, most of them
# adjectives or adverbs (SubjectiveAssessmentAttribute: 10,301, 66 %).
CATCH_ALL_MIN_LINKS = 1000
CATCH_ALL_MIN_MODIFIER_SHARE = 0.5

_HAS_LETTER = re.compile(r"[a-z]")
# Labels SUMO generated from acronyms ("AA m", "BG m71TO w") are not English.
_JUNK_LABEL_TOKEN = re.compile(r"^[a-z]\d*$|[a-z][A-Z]")

Entry = list[tuple[str, float]]


@dataclass
class Lexicon:
    terms: dict[str, Entry]  # term -> [(class, weight)], heaviest first
    exceptions: dict[str, str]  # irregular inflection -> lexicon term ("geese" -> "goose")
    wordnet_terms: int
    label_terms: int
    merged_inflections: int
    borrowed_synsets: int  # synsets that took their links from a hypernym


def general_classes(sumo: SumoGraph) -> set[str]:
    """Classes never used as tags.

    The main root (the class with the largest subtree, ``Entity``), its direct
    subclasses (``Physical``, ``Abstract``), every class with at least
    `GENERAL_MIN_DESCENDANTS` descendants, and SUMO's catch-all classes for
    evaluative words (`CATCH_ALL_MIN_LINKS`, `CATCH_ALL_MIN_MODIFIER_SHARE`).
    """
    classes = list(sumo.classes)
    sizes = subtree_sizes(classes, sumo.parents)
    root = main_root(classes, sizes)
    links = Counter(link.cls for link in sumo.links)
    modifiers = Counter(link.cls for link in sumo.links if link.pos in ("a", "r"))
    return {
        c
        for c in classes
        if c == root
        or root in sumo.parents.get(c, ())
        or sizes[c] >= GENERAL_MIN_DESCENDANTS
        or (links[c] >= CATCH_ALL_MIN_LINKS and modifiers[c] > CATCH_ALL_MIN_MODIFIER_SHARE * links[c])
    }


def salience(total_tag_count: int) -> float:
    return 1.0 / (1.0 + math.log1p(total_tag_count / SALIENCE_TAU))


def is_term_candidate(term: str) -> bool:
    """Words the lexicon may hold: has a letter, is not a stop word, is longer than two letters."""
    if not _HAS_LETTER.search(term) or term in STOPWORDS:
        return False
    return " " in term or len(term) > 2


def build_lexicon(sumo: SumoGraph, wordnet: WordNet, general: set[str]) -> Lexicon:
    synset_classes, borrowed = _synset_classes(sumo, wordnet, general)
    raw: dict[str, dict[str, float]] = {}
    for lemma in sorted(wordnet.senses):
        if not is_term_candidate(lemma):
            continue
        senses = wordnet.senses[lemma]
        priors = [s.tag_count + 1.0 / (s.number + 1) for s in senses]
        norm = sum(priors)
        acc: dict[str, float] = {}
        for sense, prior in zip(senses, priors):
            pos_weight = POS_WEIGHTS[sense.synset[0]]
            for cls, rel_weight in synset_classes.get(sense.synset, {}).items():
                acc[cls] = acc.get(cls, 0.0) + prior / norm * rel_weight * pos_weight
        if acc:
            sal = salience(wordnet.total_tag_count(lemma))
            raw[lemma] = {c: w * sal for c, w in acc.items()}

    merged = _merge_inflections(raw, wordnet)
    terms: dict[str, Entry] = {}
    for term, weights in raw.items():
        entry = _prune(merged.get(term, weights))
        if entry:
            terms[term] = entry
    wordnet_terms = len(terms)

    label_terms: dict[str, set[str]] = {}
    for cls in sumo.classes.values():
        if cls.local_name in general:
            continue
        phrases = [lab for lab in cls.labels if not any(_JUNK_LABEL_TOKEN.search(t) for t in lab.split())]
        if not cls.labels:
            phrases.append(camel_phrase(cls.local_name))
        for phrase in phrases:
            term = " ".join(phrase.lower().split())
            if term not in terms and is_term_candidate(term):
                label_terms.setdefault(term, set()).add(cls.local_name)
    for key, targets in ALIASES.items():
        target = next((t for t in targets if t in sumo.classes and t not in general), None)
        if target is not None and key.isalpha() and key not in terms and is_term_candidate(key):
            label_terms.setdefault(key, set()).add(target)
    for term in sorted(label_terms):
        terms[term] = [(c, LABEL_WEIGHT) for c in sorted(label_terms[term])][:MAX_CLASSES_PER_TERM]

    exceptions: dict[str, str] = {}
    for inflected in sorted(wordnet.exceptions):
        if inflected in terms or inflected in STOPWORDS:
            continue
        base = next((b for b in wordnet.exceptions[inflected] if b in terms), None)
        if base is not None:
            exceptions[inflected] = base
    return Lexicon(
        terms={t: terms[t] for t in sorted(terms)},
        exceptions=exceptions,
        wordnet_terms=wordnet_terms,
        label_terms=len(label_terms),
        merged_inflections=len(merged),
        borrowed_synsets=borrowed,
    )


def _synset_classes(
    sumo: SumoGraph, wordnet: WordNet, general: set[str]
) -> tuple[dict[SynsetKey, dict[str, float]], int]:
    direct: dict[SynsetKey, dict[str, float]] = {}
    for link in sumo.links:
        if link.cls in general:
            continue
        weights = direct.setdefault((link.pos, link.offset), {})
        weights[link.cls] = max(weights.get(link.cls, 0.0), RELATION_WEIGHTS[link.relation])
    # Only synsets with no link at all borrow: one whose links all point at general
    # classes has been mapped, just not usefully.
    linked = {(link.pos, link.offset) for link in sumo.links}
    out = dict(direct)
    borrowed = 0
    for synset in wordnet.synsets:
        if synset in linked:
            continue
        frontier, seen = [synset], {synset}
        for hop in range(1, HYPERNYM_HOPS + 1):
            frontier = [h for s in frontier for h in wordnet.hypernyms.get(s, ()) if h not in seen]
            seen.update(frontier)
            found: dict[str, float] = {}
            for up in frontier:
                for cls, weight in direct.get(up, {}).items():
                    inherited = min(weight, RELATION_WEIGHTS["subsuming"]) * HYPERNYM_DECAY ** (hop - 1)
                    found[cls] = max(found.get(cls, 0.0), inherited)
            if found or any(up in linked for up in frontier):
                if found:
                    out[synset] = found
                    borrowed += 1
                break
    return out, borrowed


def _merge_inflections(raw: dict[str, dict[str, float]], wordnet: WordNet) -> dict[str, dict[str, float]]:
    merged: dict[str, dict[str, float]] = {}
    for term, weights in raw.items():
        if " " in term:
            continue
        base = next((b for b in base_forms(term, wordnet.exceptions) if b != term and b in raw), None)
        if base is None:
            continue
        own = 2.0 * (wordnet.total_tag_count(term) + 1)
        other = wordnet.total_tag_count(base) + 1.0
        share = own / (own + other)
        mix = {c: w * share for c, w in weights.items()}
        for cls, w in raw[base].items():
            mix[cls] = mix.get(cls, 0.0) + w * (1.0 - share)
        merged[term] = mix
    return merged


def _prune(weights: dict[str, float]) -> Entry:
    ranked = sorted(weights.items(), key=lambda cw: (-cw[1], cw[0]))[:MAX_CLASSES_PER_TERM]
    top = ranked[0][1]
    return [(c, round(w, 4)) for c, w in ranked if w >= MIN_RELATIVE_WEIGHT * top and round(w, 4) > 0]
