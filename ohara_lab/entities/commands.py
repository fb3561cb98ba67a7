"""`ohara entities ...`: entity curation from the command line, one command per `Atlas` method.

    ohara entities ls [SEARCH] [--type ORG] [--limit 50]      Atlas.entities
    ohara entities show SLUG                                   Atlas.entity
    ohara entities merge SOURCE... --into TARGET [--reason]    Atlas.merge_entities
    ohara entities split SLUG NEW_NAME (--node ID | --document ID)...   Atlas.split_entity
    ohara entities rename SLUG NEW_NAME                        Atlas.rename_entity
    ohara entities clean [SLUG...] [--dry-run]                 Atlas.clean_entities
    ohara entities dedup                                       Atlas.dedup_entities
    ohara entities undo [STEP]                                 Atlas.undo_entities
    ohara entities log                                         Atlas.entity_log
"""
from __future__ import annotations

from typing import Any

import click

from ..cli_edge import fail_cleanly, open_atlas, print_json
from .listing import op_summary

ATLAS_HELP = "atlas directory or arangodb:// URL (default: $OHARA_ATLAS or ./atlas)"


def _done(op: Any, as_json: bool) -> None:
    if as_json:
        print_json(op_summary(op))
        return
    what = f"{op.op} {', '.join(op.sources)}" + (f" -> {op.target}" if op.target else "")
    click.echo(f"step {op.id}: {what} ({len(op.before.get('nodes', []))} nodes)"
               + (", undone" if op.undone_at else ""))


@click.group()
def entities() -> None:
    """See and curate the entity layer: every change is logged and can be undone."""


@entities.command(name="ls")
@click.argument("search", required=False)
@click.option("--type", "kind", help="only this type (PERSON, ORG, LOCATION, DATE, TECH, AMOUNT, EVENT, CONCEPT)")
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True, help="0 = all")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def ls(search: str | None, kind: str | None, limit: int, atlas: str | None, as_json: bool) -> None:
    """Entities whose name, alias or slug contains SEARCH, most mentioned first."""
    with open_atlas(atlas, read_only=True) as a:
        found = a.entities(search, kind=kind, limit=limit)
    if as_json:
        print_json([e.to_dict() for e in found])
        return
    for e in found:
        aliases = f"  aka {', '.join(e.aliases[:3])}" if e.aliases else ""
        counts = f"{e.mention_count:>6} mentions {len(e.document_ids):>4} docs"
        click.echo(f"{e.slug:<36} {e.type:<9} {counts}  {e.name}{aliases}")


@entities.command()
@click.argument("slug")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def show(slug: str, atlas: str | None, as_json: bool) -> None:
    """One entity: record, co-occurring entities, mentions, community and log entries."""
    from ..errors import CurationError  # noqa: PLC0415

    with open_atlas(atlas, read_only=True) as a:
        view = a.entity(slug)
    if view is None:
        raise CurationError(f"no entity with slug {slug!r} in the atlas")
    if as_json:
        print_json(view)
        return
    e = view["entity"]
    where = f"{e['mention_count']} mentions in {len(e['document_ids'])} documents"
    click.echo(f"{e['name']} ({e['type']}, {e['slug']}): {where}")
    if e["aliases"]:
        click.echo("aliases: " + ", ".join(e["aliases"]))
    if view["community"] is not None:
        click.echo(f"community {view['community']}")
    click.echo("related: " + ", ".join(f"{r['slug']} ({r['count']})" for r in view["related"]))
    for m in view["mentions"]:
        click.echo(f"  {m['node_id']}: {m['text']}")
    for op in view["log"]:
        undone = " (undone)" if op["undone_at"] else ""
        click.echo(f"  step {op['id']} {op['op']} by {op['actor']} at {op['ts']}{undone}")


@entities.command()
@click.argument("sources", nargs=-1, required=True)
@click.option("--into", "target", required=True, help="slug of the entity that survives")
@click.option("--reason", default="", help="why (kept in the log)")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print the log entry as JSON")
@fail_cleanly
def merge(sources: tuple[str, ...], target: str, reason: str, atlas: str | None, as_json: bool) -> None:
    """Fold SOURCES into --into: mentions, aliases and counts move; undo restores them."""
    with open_atlas(atlas) as a:
        _done(a.merge_entities(sources, target, reason=reason), as_json)


@entities.command()
@click.argument("slug")
@click.argument("new_name")
@click.option("--node", "nodes", multiple=True, help="node id whose mention moves (repeatable)")
@click.option("--document", "documents", multiple=True, help="document id whose mentions move (repeatable)")
@click.option("--reason", default="", help="why (kept in the log)")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print the log entry as JSON")
@fail_cleanly
def split(slug: str, new_name: str, nodes: tuple[str, ...], documents: tuple[str, ...], reason: str,
          atlas: str | None, as_json: bool) -> None:
    """Move the mentions of SLUG in some nodes or documents to an entity named NEW_NAME."""
    with open_atlas(atlas) as a:
        _done(a.split_entity(slug, new_name, nodes=nodes, documents=documents, reason=reason), as_json)


@entities.command()
@click.argument("slug")
@click.argument("new_name")
@click.option("--reason", default="", help="why (kept in the log)")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print the log entry as JSON")
@fail_cleanly
def rename(slug: str, new_name: str, reason: str, atlas: str | None, as_json: bool) -> None:
    """Give SLUG the canonical name NEW_NAME (the old name stays as an alias)."""
    with open_atlas(atlas) as a:
        _done(a.rename_entity(slug, new_name, reason=reason), as_json)


@entities.command()
@click.argument("slugs", nargs=-1)
@click.option("--dry-run", is_flag=True, help="list what would be removed, change nothing")
@click.option("--reason", default="noise cleanup", show_default=True, help="why (kept in the log)")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def clean(slugs: tuple[str, ...], dry_run: bool, reason: str, atlas: str | None, as_json: bool) -> None:
    """Remove noise entities (opaque identifiers, names without letters), or the SLUGS given, with their mentions."""
    with open_atlas(atlas) as a:
        out = a.clean_entities(list(slugs) or None, dry_run=dry_run, reason=reason)
    if dry_run:
        if as_json:
            print_json(out)
        else:
            for slug, why in out.items():
                click.echo(f"{slug:<36} {why}")
            click.echo(f"{len(out)} entities would be removed")
    elif out is None:
        click.echo("no noise entities")
    else:
        _done(out, as_json)


@entities.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def dedup(atlas: str | None, as_json: bool) -> None:
    """Merge entities sharing a normalised name into the most mentioned one, one logged step per group."""
    with open_atlas(atlas) as a:
        ops = a.dedup_entities()
    if as_json:
        print_json([op_summary(o) for o in ops])
        return
    for op in ops:
        _done(op, False)
    click.echo(f"{len(ops)} group(s) merged")


@entities.command()
@click.argument("step", type=int, required=False)
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print the log entry as JSON")
@fail_cleanly
def undo(step: int | None, atlas: str | None, as_json: bool) -> None:
    """Undo STEP of the entity log (default: the latest active step)."""
    with open_atlas(atlas) as a:
        _done(a.undo_entities(step), as_json)


@entities.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def log(atlas: str | None, as_json: bool) -> None:
    """The entity_merges log: every curation step, who, when, why, and whether it was undone."""
    with open_atlas(atlas, read_only=True) as a:
        ops = [op_summary(o) for o in a.entity_log()]
    if as_json:
        print_json(ops)
        return
    for o in ops:
        state = f"undone {o['undone_at']}" if o["undone_at"] else "active"
        what = ", ".join(o["sources"]) + (f" -> {o['target']}" if o["target"] else "")
        click.echo(f"{o['id']:>4} {o['op']:<7} {o['ts']} {o['actor']:<12} {state:<30} {what}  {o['reason']}")
