"""Entity noise: names no entity may have, and type cues that overrule the NER (issue 27).

The rules are data. `noise_rules.json` beside this module lists every rule with a name,
a kind and the kind's parameters; this module gives each kind its meaning and nothing
else, so a rule is tuned, added or switched off (`"enabled": false`) by editing the file.
Three lists, applied in this order:

* **repair**: `unbalanced_brackets` closes the bracket a span was cut inside
  ("Contribution(s" is "Contribution(s)"), `edge_punctuation` strips what no name starts
  or ends with ("Hong Kong-" from "Hong Kong-based" is "Hong Kong"). Neither changes the
  slug, so the mention keeps its entity and no ranking moves;
* **drop**: a mention whose name is noise is removed (`stopword` "You",
  `lowercase_word`, `enumerator_prefix` "D. Preserve" read off a lettered list,
  `shouted_vocabulary` "HOLDER" from a disclaimer in capitals; `trailing_word` "Accepting
  Warranty or" is on file but off);
* **retype**: a kept mention whose type contradicts a strong cue gets the type the cue
  names (`name_suffix`: "Public License" is a law or work, not a PERSON;
  `defined_term`: a term the document defines, '"Licensor" shall mean', is not a
  LOCATION; `document_vocabulary`: "Program" is a common noun of a licence that writes
  "program" too and "Program" throughout).

Some rules read the whole document (its lower-case words and the terms it defines),
so the screen runs once per document at ingest (`screen_document`), after any
extractor, LLM or offline; it is deterministic and returns what each rule repaired,
dropped or retyped, counted per rule name, which the document records
(`Document.meta["entity_noise"]`) and `ohara stats` sums.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..records import Mention

RULES_FILE = Path(__file__).with_name("noise_rules.json")
_LOWER_WORD = re.compile(r"\b[a-z][a-z'’\-]*[a-z]\b")
_CAPITALISED_WORD = re.compile(r"\b[A-Z][a-z][a-z'’\-]*\b")
# Where a list item may open: the text's start, a line's, or after a sentence ("... the publisher. D. Preserve").
# A sentence ends after a word, not after an initial: "E. F. Gordon" is one name.
_ITEM_START = r"(?:^|(?<=\n)|(?<=[a-z0-9)\]][.;:!?]\s))\s*(?:[-*+]\s+)?"


@dataclass(frozen=True)
class Vocabulary:
    """What a document says about its own words: how often it writes each in lower case and capitalised
    (singular and plural counted together), and which terms it defines."""

    lower: Mapping[str, int] = field(default_factory=dict)
    capitalised: Mapping[str, int] = field(default_factory=dict)
    defined: frozenset[str] = frozenset()

    def lower_count(self, word: str) -> int:
        return self.lower.get(_stem(word), 0)

    def capitalised_count(self, word: str) -> int:
        return self.capitalised.get(_stem(word), 0)


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


@dataclass
class Screened:
    """A document's mentions after the screen, and what each rule did (rule name -> mentions)."""

    mentions: list[list[Mention]]
    counts: Counter[str] = field(default_factory=Counter)


class NoiseRules:
    """The rules of one rules file; `NoiseRules.load()` reads the packaged one once per process."""

    def __init__(self, data: dict[str, Any]):
        self.version = int(data.get("version", 1))
        lists = {key: [dict(r) for r in data.get(key, []) if r.get("enabled", True)] for key in _KINDS}
        self.repair, self.drop, self.retype = lists["repair"], lists["drop"], lists["retype"]
        for key, rules in lists.items():
            for rule in rules:
                if rule.get("kind") not in _KINDS[key]:
                    raise ValueError(f"{RULES_FILE.name}: {key} rule {rule.get('name')!r} has unknown kind "
                                     f"{rule.get('kind')!r}")
        self._patterns = [re.compile(p) for r in self.retype if r["kind"] == "defined_term" for p in r["patterns"]]

    @classmethod
    @cache
    def load(cls, path: Path = RULES_FILE) -> NoiseRules:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @property
    def names(self) -> list[str]:
        return [r["name"] for r in (*self.repair, *self.drop, *self.retype)]

    def vocabulary(self, texts: Sequence[str]) -> Vocabulary:
        lower = Counter(_stem(w) for t in texts for w in _LOWER_WORD.findall(t))
        capitalised = Counter(_stem(w) for t in texts for w in _CAPITALISED_WORD.findall(t))
        defined = {m.group("term").strip().lower() for t in texts for p in self._patterns for m in p.finditer(t)}
        return Vocabulary(lower, capitalised, frozenset(defined))

    def repaired(self, m: Mention) -> tuple[list[str], Mention | None]:
        """The repair rules that changed `m`'s name, in order, and the mention repaired (None when nothing
        is left of it). The name as found is not kept as an alias: it is the noise."""
        fired: list[str] = []
        canonical, name = m.canonical, m.name
        for rule in self.repair:
            repair = _REPAIR_KINDS[rule["kind"]]
            # The repairs read the mention, never change it: `m` itself until a rule has changed its name.
            fixed = repair(rule, m if canonical == m.canonical else replace(m, canonical=canonical))
            if fixed != canonical:
                fired.append(str(rule["name"]))
                name = fixed if name == canonical else repair(rule, replace(m, canonical=name)) or fixed
                canonical = fixed
        if not fired:
            return [], m
        return fired, (replace(m, canonical=canonical, name=name) if len(canonical) > 1 else None)

    def drop_reason(self, m: Mention, text: str = "", vocabulary: Vocabulary | None = None) -> str | None:
        """The name of the first drop rule `m` breaks, read in the node `text` of a document; None if none."""
        for rule in self.drop:
            if _DROP_KINDS[rule["kind"]](rule, m, text, vocabulary or Vocabulary()):
                return str(rule["name"])
        return None

    def retyped(self, m: Mention, vocabulary: Vocabulary) -> tuple[str, str] | None:
        """(rule name, new type) of the first retype rule whose cue contradicts `m.type`; None if none."""
        for rule in self.retype:
            new = _RETYPE_KINDS[rule["kind"]](rule, m, vocabulary)
            if new is not None and new != m.type:
                return str(rule["name"]), new
        return None

    def screen(self, texts: Sequence[str], mentions: Sequence[Sequence[Mention]]) -> Screened:
        """Every node's mentions (`mentions[i]` found in `texts[i]`) with noise dropped and types fixed."""
        vocabulary = self.vocabulary(texts)
        out = Screened([])
        for text, found in zip(texts, mentions):
            kept: list[Mention] = []
            for m in found:
                fired, fixed = self.repaired(m)
                out.counts.update(fired)
                if fixed is None:
                    continue
                m = fixed  # noqa: PLW2901 - the repaired mention goes on through the rules
                reason = self.drop_reason(m, text, vocabulary)
                if reason:
                    out.counts[reason] += 1
                    continue
                change = self.retyped(m, vocabulary)
                if change:
                    out.counts[change[0]] += 1
                kept.append(replace(m, type=change[1]) if change else m)
            out.mentions.append(kept)
        return out


def screen_document(texts: Sequence[str], mentions: Sequence[Sequence[Mention]]) -> Screened:
    """`NoiseRules.load().screen`: the packaged rules over one document's nodes."""
    return NoiseRules.load().screen(texts, mentions)


# --------------------------------------------------------------------------- repair kinds

_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def _balance(rule: dict[str, Any], m: Mention) -> str:
    """The name with every bracket it opens closed at its end and every bracket it closes opened at its start."""
    name = m.canonical
    for opening, closing in rule["pairs"]:
        depth, unopened = 0, 0
        for ch in name:
            if ch == opening:
                depth += 1
            elif ch == closing:
                if depth:
                    depth -= 1
                else:
                    unopened += 1
        name = opening * unopened + name + closing * depth
    return name


def _edge_punctuation(rule: dict[str, Any], m: Mention) -> str:
    """The name without the punctuation it may not start or end with, nor brackets wrapping all of it."""
    name, chars = m.canonical, rule["chars"]
    while name:
        if name[0] in chars and not _opens_inside(name):
            name = name[1:]
        elif name[-1] in chars and not _may_end(rule, m.type, name):
            name = name[:-1]
        elif _opens_inside(name) and _match(name, 0) == len(name) - 1:
            name = name[1:-1]  # "(2%)"
        else:
            break
        name = name.strip()
    return name


def _match(name: str, at: int) -> int:
    """Where the bracket opened at `at` closes, -1 if it does not."""
    opening, closing, depth = name[at], _BRACKETS[name[at]], 0
    for i in range(at, len(name)):
        depth += (name[i] == opening) - (name[i] == closing)
        if depth == 0:
            return i
    return -1


def _opens_inside(name: str) -> bool:
    """The name opens with a bracket it closes itself: "(500) Days of Summer"."""
    return name[:1] in _BRACKETS and _match(name, 0) > 0


def _may_end(rule: dict[str, Any], etype: str, name: str) -> bool:
    last = name[-1]
    if last in rule.get("end_by_type", {}).get(etype, ""):
        return True  # "5%"
    if last in rule.get("closing_kept", ""):
        opening = "([{"[")]}".index(last)]
        return name.count(opening) >= name.count(last)  # "Hemorrhage (In My Hands)", not "2%)"
    return last == "." and bool(re.match(rule["abbreviation"], name.split()[-1]))


_REPAIR_KINDS = {"unbalanced_brackets": _balance, "edge_punctuation": _edge_punctuation}


# --------------------------------------------------------------------------- drop kinds


def _stopword(rule: dict[str, Any], m: Mention, text: str, v: Vocabulary) -> bool:
    name = m.canonical
    # In capitals a function word is an acronym: US, IT, WHO.
    return name.lower() in _word_set(rule) and not (len(name) > 1 and name.isupper())


def _lowercase_word(rule: dict[str, Any], m: Mention, text: str, v: Vocabulary) -> bool:
    name = m.canonical
    return " " not in name and name.isalpha() and name.islower()


def _trailing_word(rule: dict[str, Any], m: Mention, text: str, v: Vocabulary) -> bool:
    words = m.canonical.split()
    return len(words) > 1 and words[-1] in _word_set(rule)


def _enumerator_prefix(rule: dict[str, Any], m: Mention, text: str, v: Vocabulary) -> bool:
    """The name opens an item of a lettered list in its node ("D. Preserve all the ..."), label first."""
    if not re.match(rule["label"], m.canonical):
        return False
    found = list(re.finditer(f"{_ITEM_START}({rule['label']})", text))
    labels = {x.group(1).strip() for x in found}  # "J. J. Carlock" repeats one letter; a list counts on
    return len(labels) >= rule["min_items"] and any(text.startswith(m.canonical, x.start(1)) for x in found)


def _shouted_vocabulary(rule: dict[str, Any], m: Mention, text: str, v: Vocabulary) -> bool:
    name = m.canonical
    return (" " not in name and name.isalpha() and name.isupper() and len(name) >= rule["min_letters"]
            and v.lower_count(name) > 0)


_DROP_KINDS = {
    "stopword": _stopword,
    "lowercase_word": _lowercase_word,
    "trailing_word": _trailing_word,
    "enumerator_prefix": _enumerator_prefix,
    "shouted_vocabulary": _shouted_vocabulary,
}


# --------------------------------------------------------------------------- retype kinds


def _name_suffix(rule: dict[str, Any], m: Mention, v: Vocabulary) -> str | None:
    words = m.canonical.split()
    if m.type in rule["from"] and len(words) > 1 and words[-1] in rule["last_words"]:
        return str(rule["to"])
    return None


def _defined_term(rule: dict[str, Any], m: Mention, v: Vocabulary) -> str | None:
    name = m.canonical.lower()
    if m.type in rule["from"] and (name in v.defined or (name.endswith("s") and name[:-1] in v.defined)):
        return str(rule["to"])  # "Contributions" of a document that defines "Contribution"
    return None


def _document_vocabulary(rule: dict[str, Any], m: Mention, v: Vocabulary) -> str | None:
    name = m.canonical
    if m.type not in rule["from"] or " " in name or not (name[:1].isupper() and name[1:].isalpha()
                                                         and name[1:].islower()):
        return None
    if v.lower_count(name) >= rule["min_lower"] and v.capitalised_count(name) >= rule["min_capitalised"]:
        return str(rule["to"])
    return None


_RETYPE_KINDS = {
    "name_suffix": _name_suffix,
    "defined_term": _defined_term,
    "document_vocabulary": _document_vocabulary,
}


_KINDS: dict[str, dict[str, Any]] = {"repair": _REPAIR_KINDS, "drop": _DROP_KINDS, "retype": _RETYPE_KINDS}


@cache
def _words_of(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(words)


def _word_set(rule: dict[str, Any]) -> frozenset[str]:
    return _words_of(tuple(rule["words"]))
