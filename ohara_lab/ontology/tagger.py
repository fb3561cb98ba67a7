"""The offline SUMO tagger: a paragraph's most specific, most salient classes via the lexicon.

Steps, all deterministic:

1. **Tokenise**: lower-case words (letters first; inner ``-`` and ``'`` kept, a
   final ``'s`` dropped).
2. **Lemmatise** (`morphy`): a token that is a lexicon term stays (the build
   already mixed an inflected lemma such as "transactions" with its base form); else
   its irregular form from WordNet's ``*.exc`` lists; else the first of morphy's
   suffix rules that yields a term. A hyphenated word that is no term is split
   at its hyphens.
3. **Match** longest phrase first: at each position the longest multi-word term
   (surface words, or with the first, second or last word reduced to a base
   form, "bodies of water" → "body of water") wins, else the single word's lemma.
4. **Score** each class *c* over the matched terms *t*::

       score(c) = specificity(c) · Σ_t (1 + ln tf(t)) · weight(t, c) · context(t, c)

   ``weight`` comes from the lexicon (sense frequency × link strength × term
   salience, see `lexicon_build`); ``specificity(c) = 1 / (1 + ½·ln(1 + descendants(c)))``
   prefers deeper classes (a leaf scores 1, a class with 100 descendants 0.30);
   ``context(t, c) = 1 + ln(1 + m)`` with ``m`` the largest number of *other*
   matched terms reaching one class of *c*'s neighbourhood (*c* and its direct
   parents), a term reaching its own classes and their direct parents. Terms
   about the same thing share classes, parents or siblings, so this is a
   one-step sense disambiguation: "bank" next to "river" and "shore" leans to
   ``ShoreArea``, next to "loan" and "company" to ``Corporation``.
5. **Select** the top *k* by score (ties by name), keeping only classes with at
   least `MIN_RELATIVE_SCORE` of the best score.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from .hierarchy import Parents
from .morphy import base_forms

MIN_RELATIVE_SCORE = 0.15
_CONTEXT = tuple(1.0 + math.log1p(m) for m in range(64))  # context factor for m other terms
_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:['\-][a-z0-9]+)*")

Entry = tuple[tuple[str, float], ...]


def specificity(descendants: int) -> float:
    return 1.0 / (1.0 + 0.5 * math.log1p(descendants))


class Tagger:
    """Tag texts with SUMO classes using a term → weighted-classes lexicon."""

    def __init__(
        self,
        terms: Mapping[str, Sequence[Sequence[str | float]]],  # term -> [[class, weight], ...]
        exceptions: Mapping[str, str],
        parents: Parents,
        descendants: Mapping[str, int],
    ):
        # The lexicon as given: a term's weighted classes are worked out when a text first uses it
        # (`_entry`), not for all ~125k terms at load, most of which a corpus never meets.
        self._terms = terms
        self._entries: dict[str, Entry] = {}
        self._descendants = descendants
        self._spec: dict[str, float] = {}
        # First two words of every multi-word term → the term lengths starting so,
        # longest first; checking the two-word prefix first keeps phrase matching
        # to one dict lookup at most positions.
        prefixes: dict[str, set[int]] = {}
        phrase_words: set[str] = set()
        for term in terms:
            if " " in term:
                words = term.split(" ")
                prefixes.setdefault(f"{words[0]} {words[1]}", set()).add(len(words))
                phrase_words.update(words)
        self._phrase_words = frozenset(phrase_words)
        self._prefixes = {p: tuple(sorted(ls, reverse=True)) for p, ls in prefixes.items()}
        self._exceptions = dict(exceptions)
        self._parents = parents
        # term -> ((class, weight, neighbourhood), ...), all classes the term reaches
        self._info: dict[str, tuple[tuple[tuple[str, float, tuple[str, ...]], ...], tuple[str, ...]]] = {}
        # token -> (the term it stands for, the base form to use inside phrases)
        self._forms: dict[str, tuple[str | None, str | None]] = {}

    def _entry(self, term: str) -> Entry:
        """The term's classes with their weights times the class's specificity (step 4)."""
        entry = self._entries.get(term)
        if entry is None:
            spec = self._spec
            for c, _ in self._terms[term]:
                if str(c) not in spec:
                    spec[str(c)] = specificity(self._descendants.get(str(c), 0))
            entry = self._entries[term] = tuple((str(c), float(w) * spec[str(c)]) for c, w in self._terms[term])
        return entry

    # ------------------------------------------------------------------ text → terms
    def lemma(self, token: str) -> str | None:
        """The lexicon term a single token stands for, or None."""
        return self._token_forms(token)[0]

    def _token_forms(self, token: str) -> tuple[str | None, str | None]:
        forms = self._forms.get(token)
        if forms is not None:
            return forms
        terms = self._terms
        bases = list(base_forms(token, self._exceptions))
        lemma = token if token in terms else next((b for b in bases if b in terms), None)
        # Inside a phrase a base form need not be a term on its own ("bodies of water").
        phrase_base = (
            lemma if lemma is not None and lemma != token else next((b for b in bases if b in self._phrase_words), None)
        )
        forms = (lemma, phrase_base)
        if len(self._forms) < 500_000:  # bounded: vocabularies are Zipfian, this is never reached in practice
            self._forms[token] = forms
        return forms

    def tokens(self, text: str) -> list[str]:
        out: list[str] = []
        for raw in _TOKEN.findall(text.lower()):
            tok = raw[:-2] if raw.endswith("'s") else raw
            if "-" in tok and self.lemma(tok) is None:
                out.extend(p for p in tok.split("-") if p)
            else:
                out.append(tok)
        return out

    def terms(self, text: str) -> list[str]:
        """The lexicon terms found in `text`, in reading order (longest phrase first)."""
        toks = self.tokens(text)
        cache = self._forms
        forms = [cache[t] if t in cache else self._token_forms(t) for t in toks]
        lemmas = [f[0] for f in forms]
        bases = [f[1] for f in forms]
        terms = self._terms
        prefixes = self._prefixes
        found: list[str] = []
        i, n = 0, len(toks)
        while i < n:
            best, best_len = None, 1
            if i + 1 < n:
                tok, base, nxt, nbase = toks[i], bases[i], toks[i + 1], bases[i + 1]
                firsts = (tok,) if base is None else (tok, base)
                seconds = (nxt,) if nbase is None else (nxt, nbase)
                for first in firsts:
                    for second in seconds:
                        head = f"{first} {second}"
                        for length in prefixes.get(head, ()):
                            if length <= best_len:
                                break
                            if i + length > n:
                                continue
                            if length == 2:
                                cand: str | None = head if head in terms else None
                            else:
                                stem = " ".join((head, *toks[i + 2 : i + length - 1]))
                                last, last_base = toks[i + length - 1], bases[i + length - 1]
                                cand = f"{stem} {last}"
                                if cand not in terms:
                                    cand = f"{stem} {last_base}" if last_base else None
                                    if cand not in terms:
                                        cand = None
                            if cand is not None:
                                best, best_len = cand, length
                                break
            if best is not None:
                found.append(best)
                i += best_len
                continue
            lemma = lemmas[i]
            if lemma is not None:
                found.append(lemma)
            i += 1
        return found

    def classes_of(self, term: str) -> list[str]:
        """The classes a lexicon term points at, heaviest first."""
        return [c for c, _ in self._entry(term)] if term in self._terms else []

    # ------------------------------------------------------------------ terms → classes
    def _term_info(self, term: str) -> tuple[tuple[tuple[str, float, tuple[str, ...]], ...], tuple[str, ...]]:
        info = self._info.get(term)
        if info is None:
            # A class's neighbourhood: itself and its direct parents. Two terms whose
            # classes share a neighbourhood count as talking about the same thing.
            entry = tuple((c, w, (c, *self._parents.get(c, ()))) for c, w in self._entry(term))
            reach = tuple(dict.fromkeys(x for _, _, near in entry for x in near))
            info = self._info[term] = (entry, reach)
        return info

    def scores(self, text: str) -> dict[str, float]:
        """Every candidate class with its score (step 4 of the module docstring)."""
        counts: dict[str, int] = {}
        for term in self.terms(text):
            counts[term] = counts.get(term, 0) + 1
        infos = [(self._term_info(term), tf) for term, tf in counts.items()]
        # How many distinct terms reach each class's neighbourhood (Counter.update runs in C).
        support: Counter[str] = Counter()
        for (_, reach), _ in infos:
            support.update(reach)
        scores: defaultdict[str, float] = defaultdict(float)
        for (entry, _), tf in infos:
            tf_weight = 1.0 + math.log(tf) if tf > 1 else 1.0
            for cls, weight, near in entry:
                # This term reaches every class of its own neighbourhood: count the others.
                others = max(map(support.__getitem__, near)) - 1
                context = _CONTEXT[others] if others < len(_CONTEXT) else 1.0 + math.log1p(others)
                scores[cls] += tf_weight * weight * context
        return dict(scores)

    def tag(self, text: str, k: int = 4) -> list[str]:
        """The `k` best classes for `text` (fewer when evidence is thin)."""
        return top_k(self.scores(text), k)

    def tag_many(self, texts: Iterable[str], k: int = 4) -> list[list[str]]:
        return [self.tag(t, k) for t in texts]


def top_k(scores: Mapping[str, float], k: int, min_relative: float = MIN_RELATIVE_SCORE) -> list[str]:
    if not scores or k <= 0:
        return []
    ranked = sorted(scores.items(), key=lambda cs: (-cs[1], cs[0]))
    floor = ranked[0][1] * min_relative
    return [c for c, s in ranked[:k] if s >= floor and s > 0]
