"""Identifiers: content hashes, node ids, slugs.

Ids are derived from content, never from counters or clocks, so re-ingesting the
same file produces the same ids and the store's uniqueness rules make it a no-op.

The one key grammar: a node id is `collection/key`, `collection` one of `COLLECTIONS` and
`key` matching `KEY` (letters, digits, '-' and '_': content hashes, `<doc>-<position>`
and slugs). Ids are built (`node_id`, `entity_id`, `document_id`, ...) and taken apart
(`split_id`, `collection_of`, `in_collection`, `slug_of`, `parse_id`) only here;
`tests/test_names.py` fails on `"entities/" + slug` or `nid.startswith("documents/")`
anywhere else.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

COLLECTIONS = ("documents", "sections", "paragraphs", "tables", "entities")
DOCUMENTS, SECTIONS, PARAGRAPHS, TABLES, ENTITIES = COLLECTIONS

# The key of a node id. Nothing else is ever looked up, so '..', '/', '%2F' and friends are
# refused before they reach a store (serve/service.py checks every id a caller sends).
KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,199}")


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of bytes already read (ingest hashes what it parses, from one read)."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def query_hash(query: str) -> str:
    """What feedback is keyed by: the query, trimmed and lower-cased, hashed (32 hex digits)."""
    return sha256_text(query.strip().lower())[:32]


def document_key(file_hash: str) -> str:
    """A document's key: the first 20 hex digits of its file hash (80 bits)."""
    return file_hash[:20]


def node_id(collection: str, key: str) -> str:
    """`collection/key`, the id format shared by every store."""
    return f"{collection}/{key}"


def split_id(nid: str) -> tuple[str, str]:
    """`collection/key` -> (collection, key); no check (`parse_id` checks)."""
    collection, _, key = nid.partition("/")
    return collection, key


def collection_of(nid: str) -> str:
    """The collection part of a `collection/key` id."""
    return split_id(nid)[0]


def in_collection(nid: str, *collections: str) -> bool:
    """Whether `nid` is an id in one of `collections` (`in_collection(i, PARAGRAPHS, TABLES)`)."""
    return any(nid.startswith(c + "/") for c in collections)


def is_key(key: str) -> bool:
    """Whether `key` follows the key grammar (`KEY`)."""
    return KEY.fullmatch(key) is not None


def parse_id(nid: str) -> tuple[str, str]:
    """(collection, key) of a well-formed node id; ValueError for anything else."""
    collection, key = split_id(nid)
    if collection not in COLLECTIONS or not is_key(key):
        raise ValueError(f"not a node id: {nid[:80]!r}")
    return collection, key


def document_id(key_or_id: str) -> str:
    """A document's key or full id -> its full id (`documents/<key>`)."""
    return key_or_id if in_collection(key_or_id, DOCUMENTS) else node_id(DOCUMENTS, key_or_id)


def section_id(key: str) -> str:
    return node_id(SECTIONS, key)


def entity_id(slug: str) -> str:
    """`entities/<slug>`."""
    return node_id(ENTITIES, slug)


def slug_of(nid: str) -> str:
    """The slug of an entity id (the key of any id)."""
    return split_id(nid)[1]


def child_key(doc_key: str, position: int) -> str:
    """Key of the node at reading-order `position` inside a document."""
    return f"{doc_key}-{position:05d}"


def _ascii_fold(text: str) -> str:
    if text.isascii():  # NFKD leaves ASCII as it is and it has no combining marks: most names, no work
        return text
    folded = unicodedata.normalize("NFKD", text)
    folded = folded.replace("đ", "d").replace("Đ", "D").replace("ß", "ss")
    return "".join(c for c in folded if not unicodedata.combining(c))


def slugify(text: str) -> str:
    """Lowercase, runs of anything but [a-z0-9] become '-', trimmed.

    Accented letters are folded to ASCII first ("Hà Nội" -> "ha-noi"); a name with
    no ASCII letters or digits at all gets a stable hash slug instead of an empty one
    (the original silently failed on those).
    """
    slug = re.sub(r"[^a-z0-9]+", "-", _ascii_fold(text).lower()).strip("-")
    if not slug:
        slug = "u-" + hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:10]
    return slug


def norm_key(text: str) -> str:
    """Lowercase with everything but [a-z0-9] removed: the entity dedup key."""
    key = re.sub(r"[^a-z0-9]+", "", _ascii_fold(text).lower())
    return key or slugify(text)


def question_key(text: str) -> str:
    """A question normalised as spec §2.13 says: lower-case, only [a-z0-9 ], runs of spaces collapsed."""
    kept = re.sub(r"[^a-z0-9 ]+", "", _ascii_fold(text).lower().replace("\t", " ").replace("\n", " "))
    return " ".join(kept.split())


# File systems allow 255 bytes per name; a slug leaves room for "-12" and ".md".
MAX_SLUG_BYTES = 120


def wiki_slug(text: str) -> str:
    """Slug for wiki file names: lowercase, spaces to '-', non-word dropped, '--' collapsed, capped."""
    s = _ascii_fold(text).strip().lower().replace(" ", "-")
    s = re.sub(r"[^\w-]", "", s)
    s = re.sub(r"-{2,}", "-", s).strip("-")
    return cap_slug(s or "untitled")


def cap_slug(slug: str, max_bytes: int = MAX_SLUG_BYTES) -> str:
    """`slug` if it fits in `max_bytes` of UTF-8, else its longest prefix that does plus '-' and 8 hex of its hash.

    The hash keeps two long names that share a prefix apart; the cut never
    splits a character (a CJK character is three bytes).
    """
    raw = slug.encode("utf-8")
    if len(raw) <= max_bytes:
        return slug
    digest = hashlib.sha1(raw).hexdigest()[:8]
    head = raw[: max_bytes - len(digest) - 1].decode("utf-8", "ignore").rstrip("-")
    return f"{head}-{digest}"
