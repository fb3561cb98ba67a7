"""Export an atlas as a Markdown wiki (Obsidian / Quartz) or as one JSON file (spec §8.1).

Fixes over the original: tables are rendered (it wrote "[Table content omitted]"),
equal titles get distinct file names instead of overwriting each other, an empty
title becomes "untitled", and the target directory is only wiped when it is a wiki
this exporter wrote (marker file), never an arbitrary folder.

File names are slugs capped by UTF-8 bytes (`ids.cap_slug`), so a 300-character
title or a long CJK heading cannot exceed the file system's 255-byte limit;
`index` is reserved in every folder. The wiki is written into a hidden sibling
folder and moved into place when complete, so a failure leaves the previous
export (or nothing) at the target, never half a wiki.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ExportError, UsageError
from .ids import cap_slug, split_id, wiki_slug
from .records import CONTRADICTS, PRECEDES, RELATED_TO, SIMILAR_TO

if TYPE_CHECKING:
    from .store.protocol import GraphStore

MARKER = ".ohara-wiki"
INDEX = "index"  # every folder's index.md; no document, section or entity may take the name


def _unique(slug: str, used: set[str]) -> str:
    out, n = slug, 2
    while out in used:
        out, n = f"{slug}-{n}", n + 1
    used.add(out)
    return out


def _check_target(directory: Path) -> None:
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is a file; give `ohara export` a directory for the wiki")
    if directory.is_dir() and any(directory.iterdir()) and not (directory / MARKER).exists():
        raise UsageError(f"{directory} is not empty and was not written by `ohara export`; choose another directory")


def _move_into_place(staging: Path, directory: Path) -> None:
    """Replace `directory` (absent, empty or an earlier export) with the finished `staging` folder."""
    if not directory.exists():
        staging.rename(directory)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{directory.name}.old-", dir=directory.parent))
    os.rename(directory, old / "wiki")
    staging.rename(directory)
    shutil.rmtree(old, ignore_errors=True)


def _front(title: str, tags: list[str], aliases: list[str] | None = None) -> str:
    lines = ["---", f"title: {json.dumps(title, ensure_ascii=False)}", f"tags: {json.dumps(tags)}"]
    if aliases:
        lines.append(f"aliases: {json.dumps(aliases, ensure_ascii=False)}")
    return "\n".join(lines + ["---", ""])


def export_wiki(store: GraphStore, directory: Path) -> dict[str, int]:
    """Write index.md, documents/<doc>/{index,<section>}.md and entities/*.md; returns file counts.

    All or nothing: ExportError (one line) when the wiki cannot be written, and the
    target is left as it was.
    """
    directory = Path(directory)
    _check_target(directory)
    staging: Path | None = None
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.new-", dir=directory.parent))
        counts = _write_wiki(store, staging)
        _move_into_place(staging, directory)
    except OSError as e:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        where = f" ({Path(e.filename).name})" if e.filename else ""
        raise ExportError(directory, f"cannot write the wiki: {e.strerror or e}{where}") from e
    return counts


def _write_wiki(store: GraphStore, directory: Path) -> dict[str, int]:
    (directory / MARKER).write_text("written by ohara export; the directory is rebuilt on every export\n")
    docs = store.list_documents()
    doc_slugs: dict[str, str] = {}
    used: set[str] = set()
    for d in docs:
        doc_slugs[d.id] = _unique(wiki_slug(d.title), used)
    mentions: dict[str, list[str]] = defaultdict(list)  # entity slug -> wiki links
    counts = {"documents": 0, "sections": 0, "entities": 0}
    titles = {d.id: d.title for d in docs}
    for d in docs:
        counts["sections"] += _export_document(store, directory, d, doc_slugs, titles, mentions)
        counts["documents"] += 1
    entities = store.get_entities()
    counts["entities"] = _export_entities(store, directory, entities, mentions)
    index = [_front("Doc Ohara Knowledge Base", ["index"]), "# Documents", ""]
    index += [f"- [[documents/{doc_slugs[d.id]}/index|{d.title}]]" for d in docs]
    index += ["", f"[[entities/index|Entities]] ({len(entities)})", ""]
    (directory / "index.md").write_text("\n".join(index), encoding="utf-8")
    return counts


def _export_document(store: GraphStore, root: Path, doc: Any, doc_slugs: dict[str, str], titles: dict[str, str],
                     mentions: dict[str, list[str]]) -> int:
    folder = root / "documents" / doc_slugs[doc.id]
    folder.mkdir(parents=True, exist_ok=True)
    nodes = store.document_nodes(doc.id)
    used: set[str] = {INDEX}
    section_slugs = {s["id"]: _unique(wiki_slug(s["title"]), used) for s in nodes["sections"]}
    lines = [_front(doc.title, ["document"]), f"# {doc.title}", "",
             f"- source: `{doc.source_file}` ({doc.parser_engine})",
             f"- published: {doc.published_date or 'undated'} · decay class {doc.effective_decay_class}", ""]
    if doc.description:
        lines += [doc.description, ""]
    lines += ["## Contents", ""]
    for s in nodes["sections"]:
        lines.append("  " * max(0, s["level"] - 1) + f"- [[{section_slugs[s['id']]}|{s['title']}]]")
    related = _related_documents(store, doc.id, doc_slugs, titles)
    if related:
        lines += ["", "## Related Connections", ""] + related
    (folder / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    by_section: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for n in sorted(nodes["paragraphs"] + nodes["tables"], key=lambda n: n["doc_position"]):
        by_section[n.get("section_id")].append(n)
    for s in nodes["sections"]:
        link = f"documents/{doc_slugs[doc.id]}/{section_slugs[s['id']]}"  # names: a wiki path, not a node id
        body = [_front(s["title"], ["section"]), f"[[documents/{doc_slugs[doc.id]}/index|← {doc.title}]]", "",
                f"# {s['title']}", ""]
        for n in by_section.get(s["id"], []):
            body += [n.get("markdown_representation") or n.get("content", ""), ""]
            for slug in n.get("entity_slugs") or []:
                mentions[slug].append(f"[[{link}|{doc.title} › {s['title']}]] - \"{_snip(n)}\"")
        (folder / f"{section_slugs[s['id']]}.md").write_text("\n".join(body), encoding="utf-8")
    return len(nodes["sections"])


def _snip(node: dict[str, Any]) -> str:
    text = " ".join((node.get("content") or node.get("markdown_representation") or "").split())
    return text[:150] + ("…" if len(text) > 150 else "")


def _related_documents(store: GraphStore, doc_id: str, doc_slugs: dict[str, str], titles: dict[str, str]) -> list[str]:
    out = []
    for e in store.edges(from_ids=[doc_id], relations=[SIMILAR_TO, CONTRADICTS, PRECEDES]) + \
            store.edges(to_ids=[doc_id], relations=[SIMILAR_TO, CONTRADICTS, PRECEDES]):
        other = e.to_id if e.from_id == doc_id else e.from_id
        if other in doc_slugs:
            verb = e.attrs.get("verb") or e.relation
            out.append(f"- **{e.relation}** ({verb}): [[documents/{doc_slugs[other]}/index|{titles[other]}]]")
    return out


def entity_files(entities: list[Any]) -> dict[str, str]:
    """Entity slug -> file name (no .md): capped, never `index`, unique, stable across exports."""
    used = {INDEX}
    return {slug: _unique(cap_slug(slug), used) for slug in sorted(e.slug for e in entities)}


def _export_entities(store: GraphStore, root: Path, entities: list[Any], mentions: dict[str, list[str]]) -> int:
    folder = root / "entities"
    folder.mkdir(parents=True, exist_ok=True)
    names = {e.slug: e.name for e in entities}
    files = entity_files(entities)
    related: dict[str, list[str]] = defaultdict(list)
    for e in store.edges(relations=[RELATED_TO]):
        a, b = split_id(e.from_id)[1], split_id(e.to_id)[1]
        related[a].append(b)
        related[b].append(a)
    by_type: dict[str, list[Any]] = defaultdict(list)
    for ent in entities:
        by_type[ent.type].append(ent)
        lines = [_front(ent.name, ["entity", ent.type], ent.aliases), f"# {ent.name}", "",
                 f"{ent.type} · {ent.mention_count} mention(s) in {len(ent.document_ids)} document(s)", "",
                 "## Mentioned in", ""] + [f"- {m}" for m in mentions.get(ent.slug, [])]
        if related.get(ent.slug):
            lines += ["", "## Related Entities", ""]
            lines += [f"- [[entities/{files.get(s, cap_slug(s))}|{names.get(s, s)}]]"
                      for s in sorted(set(related[ent.slug]))]
        (folder / f"{files[ent.slug]}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = [_front("Entities", ["index"]), "# Entities", ""]
    for kind in sorted(by_type):
        index += [f"## {kind}", ""] + [f"- [[entities/{files[e.slug]}|{e.name}]]"
                                        for e in sorted(by_type[kind], key=lambda e: e.name.lower())] + [""]
    (folder / "index.md").write_text("\n".join(index), encoding="utf-8")
    return len(entities)


def export_json(store: GraphStore, path: Path) -> dict[str, int]:
    """Every collection and edge in one JSON file."""
    out: dict[str, list[Any]] = {"documents": [], "sections": [], "paragraphs": [], "tables": [], "edges": [],
                                 "entities": []}
    for d in store.list_documents():
        out["documents"].append(d.to_dict())
        for table, rows in store.document_nodes(d.id).items():
            out[table] += rows
    out["entities"] = [e.to_dict() for e in store.get_entities()]
    out["edges"] = [e.to_dict() for e in store.edges()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_whole(path, json.dumps(out, ensure_ascii=False))
    except OSError as e:
        raise ExportError(path, f"cannot write the JSON export: {e.strerror or e}") from e
    return {k: len(v) for k, v in out.items()}


def _write_whole(path: Path, text: str) -> None:
    """Write `text` to a hidden sibling, then rename it over `path`: the file is complete or absent."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
