"""Read the Princeton WordNet 3.0 database files (as shipped by Debian's wordnet-base).

Formats (WordNet's wndb(5) and senseidx(5) manual pages):

* ``data.<pos>``: one synset per line, ``offset lex_filenum ss_type w_cnt word lex_id
  [word lex_id …] p_cnt …| gloss``; ``offset`` is the line's byte position and
  ``w_cnt`` is two hex digits. Adjective words may carry a syntactic marker
  ``(a)``, ``(p)`` or ``(ip)``. Lines starting with a space are the licence.
* ``index.sense``: ``lemma%ss_type:lex_filenum:lex_id:head:head_id offset sense_number tag_cnt``;
  ``tag_cnt`` is how often the sense was tagged in the semantic concordances —
  the corpus frequency signal we use as salience.
* ``<pos>.exc``: ``inflected base [base …]`` exception lists for morphology.

After the words come ``p_cnt`` pointers ``symbol offset pos source/target``; we
keep the hypernym ones (``@``, instance ``@i``) and, for adjective satellites,
``&`` (similar to its head adjective), so a synset SUMO does not link can borrow
the links of the synset above it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import OntologyError

POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# ss_type digit in a sense key -> data file; adjective satellites (5) live in data.adj.
_SENSE_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
_ADJ_MARKERS = ("(a)", "(p)", "(ip)")
_UP_POINTERS = {"@", "@i", "&"}
_POINTER_POS = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}

SynsetKey = tuple[str, int]  # (pos, offset)


@dataclass(frozen=True)
class Sense:
    """One lemma in one synset, with WordNet's frequency data."""

    synset: SynsetKey
    number: int  # sense number within the lemma's part of speech (1 = most frequent)
    tag_count: int  # semantic-concordance tag count


@dataclass
class WordNet:
    version: str
    synsets: dict[SynsetKey, list[str]]  # synset -> its lemmas (lower case, spaces)
    senses: dict[str, list[Sense]]  # lemma -> its senses over all parts of speech
    exceptions: dict[str, list[str]] = field(default_factory=dict)  # inflected -> base forms
    hypernyms: dict[SynsetKey, list[SynsetKey]] = field(default_factory=dict)  # synset -> synsets above it

    def total_tag_count(self, lemma: str) -> int:
        """Semantic-concordance tags of `lemma` over all its senses (0 if unknown)."""
        return sum(s.tag_count for s in self.senses.get(lemma, ()))


def normalise_lemma(word: str) -> str:
    """WordNet spelling → lexicon key: lower case, underscores to spaces, adjective marker dropped."""
    for marker in _ADJ_MARKERS:
        if word.endswith(marker):
            word = word[: -len(marker)]
            break
    return word.replace("_", " ").lower()


def read_wordnet(wordnet_dir: str | Path) -> WordNet:
    """Load synset lemmas, sense frequencies and exception lists from `wordnet_dir`."""
    root = Path(wordnet_dir)
    missing = [f"data.{n}" for n in POS_FILES.values() if not (root / f"data.{n}").is_file()]
    if not (root / "index.sense").is_file():
        missing.append("index.sense")
    if missing:
        raise OntologyError(
            f"WordNet 3.0 files missing in {root}: {', '.join(missing)} "
            "(Debian/Ubuntu: apt-get install wordnet-base wordnet-sense-index)"
        )
    synsets: dict[SynsetKey, list[str]] = {}
    hypernyms: dict[SynsetKey, list[SynsetKey]] = {}
    for pos, name in POS_FILES.items():
        _read_data_file(root / f"data.{name}", pos, synsets, hypernyms)
    senses = _read_sense_index(root / "index.sense", synsets)
    exceptions: dict[str, list[str]] = {}
    for name in POS_FILES.values():
        path = root / f"{name}.exc"
        if path.is_file():
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    bases = exceptions.setdefault(normalise_lemma(parts[0]), [])
                    for base in map(normalise_lemma, parts[1:]):
                        if base not in bases:
                            bases.append(base)
    return WordNet(version="3.0", synsets=synsets, senses=senses, exceptions=exceptions, hypernyms=hypernyms)


def _read_data_file(
    path: Path, pos: str, synsets: dict[SynsetKey, list[str]], hypernyms: dict[SynsetKey, list[SynsetKey]]
) -> None:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line or line[0] == " ":
                continue  # licence header
            fields = line.split()
            key = (pos, int(fields[0]))
            w_cnt = int(fields[3], 16)
            words = [normalise_lemma(fields[4 + 2 * i]) for i in range(w_cnt)]
            synsets[key] = list(dict.fromkeys(words))
            at = 4 + 2 * w_cnt
            ups = []
            for i in range(int(fields[at])):
                symbol, offset, ptr_pos = fields[at + 1 + 4 * i : at + 4 + 4 * i]
                if symbol in _UP_POINTERS:
                    ups.append((_POINTER_POS[ptr_pos], int(offset)))
            if ups:
                hypernyms[key] = ups


def _read_sense_index(path: Path, synsets: dict[SynsetKey, list[str]]) -> dict[str, list[Sense]]:
    senses: dict[str, list[Sense]] = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 3:
                continue
            lemma, _, lex_sense = parts[0].partition("%")
            pos = _SENSE_POS.get(lex_sense[:1])
            if pos is None:
                continue
            key = (pos, int(parts[1]))
            if key not in synsets:
                continue
            count = int(parts[3]) if len(parts) > 3 else 0
            senses.setdefault(normalise_lemma(lemma), []).append(Sense(key, int(parts[2]), count))
    return senses
