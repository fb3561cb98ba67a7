"""Words in text: the token pattern, the stopword lists, a crude stemmer, the Markdown H1 title.

Two stopword lists with two jobs. `QUERY_STOPWORDS` are phase 0's (spec §3.1):
words dropped from a query before BM25, kept short so that content words survive;
`QUESTION_WORDS` add the question words the offline behaviours drop too.
`LEXICON_STOPWORDS` are words the SUMO lexicon never maps on their own: WordNet
gives many function words a rare noun reading that SUMO then links to a class
("in" → inch, "it" → information technology, "may" → the month, "will" → a legal
document, "can" → a container), and a handful of light verbs and discourse words
("make", "take", "thing", "way") carry hundreds of senses that all land on very
general classes. That list is the usual English function-word list plus the light
verbs and vague nouns among WordNet's most frequently tagged lemmas
(``index.sense`` tag counts), read off by hand, plus calendar words ("week",
"year"): dates are the temporal extractor's job, and as SUMO tags (``Week``, a leaf
class) they crowd out what a paragraph is about. They still take part in
multi-word phrases ("state of the art", "body of water").
"""
from __future__ import annotations

import re

TOKEN = re.compile(r"[a-z0-9]+")
MIN_TOKEN_CHARS = 3

QUERY_STOPWORDS = frozenset(
    "a an the and or of in on to is are how it connects show me with for this that be as was has have had will would"
    " could should but not from by at which what when where who its also".split())
QUESTION_WORDS = frozenset(
    "does did do were been being into than then there their they them these those about over such can may might"
    " must why whom whose".split())

FUNCTION_WORDS = frozenset("""
a about above across after afterwards again against all almost alone along already also although always am
among amongst an and another any anybody anyhow anyone anything anyway anywhere are around as at back be
became because become becomes becoming been before beforehand behind being below beside besides between
beyond both but by can cannot could did do does doing done down due during each either else elsewhere
enough etc even ever every everybody everyone everything everywhere except few first for former formerly
from further had has have having he hence her here hereafter hereby herein hers herself him himself his
how however i if in indeed instead into is it its itself just last latter least less many may me meanwhile
might more moreover most mostly much must my myself namely neither never nevertheless next no nobody
none noone nor not nothing now nowhere of off often on once one only onto or other others otherwise our
ours ourselves out over own per perhaps quite rather really same several shall she should since so some
somebody somehow someone something sometime sometimes somewhere still such than that the their theirs them
themselves then thence there thereafter thereby therefore therein these they this those though through
throughout thus to together too toward towards under unless until up upon us very via was we well were
what whatever when whence whenever where whereas whereby wherever whether which while whither who whoever
whole whom whose why will with within without would yet you your yours yourself yourselves
two three four five six seven eight nine ten hundred thousand million billion second third
""".split())

LIGHT_WORDS = frozenset("""
get got make made take took taken give gave given go went gone come came say said see saw seen know knew
known seem seemed tell told think thought find found look let put set keep kept want try tried need
include includes included provide provided show shown use used mean means become begin began begun
thing things way ways lot kind sort type part case fact point example number time times
also new good great large small high low big little old long able likely certain various different
possible important general particular main major same such use following
day days week weeks month months year years hour hours minute minutes today yesterday tomorrow
""".split())

LEXICON_STOPWORDS = FUNCTION_WORDS | LIGHT_WORDS

# An ATX level-1 heading: up to three spaces, one '#', the title, optional closing '#'s.
H1 = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.M)

_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ies", "ed", "es", "s", "ly")


def tokenize(text: str, stopwords: frozenset[str] = QUERY_STOPWORDS) -> list[str]:
    """`[a-z0-9]+` runs of the lower-cased text, minus tokens under 3 chars and `stopwords`."""
    return [t for t in TOKEN.findall(text.lower()) if len(t) >= MIN_TOKEN_CHARS and t not in stopwords]


def stem(token: str) -> str:
    """Crude suffix stripping so "networks"/"network", "trained"/"training" meet (a stem keeps 4+ chars)."""
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def sentences(text: str) -> list[str]:
    """Sentences of a paragraph (split after . ! ? before a capital or digit)."""
    flat = " ".join(text.split())
    return [s.strip() for s in _SENTENCE_END.split(flat) if s.strip()]


def first_h1(markdown: str) -> str | None:
    """The text of the first level-1 heading, if any."""
    m = H1.search(markdown)
    return m.group(1).strip() if m else None
