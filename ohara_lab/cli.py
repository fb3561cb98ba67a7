"""`ohara`: the command line, a one-to-one mirror of `ohara_lab.Atlas`.

Named errors are turned into one line on stderr and an exit code here, once:
0 success, 1 a failure of the work (a file failed, the atlas has problems),
2 a usage error, 130 an ingest interrupted by Ctrl-C (resumable).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .cli_edge import atlas_to_fill, fail_cleanly, say
from .cli_edge import open_atlas as _open
from .cli_edge import print_json as _print_json

ATLAS_HELP = "atlas directory or arangodb:// URL (default: $OHARA_ATLAS or ./atlas)"


def _use_env_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    # Settings are built in many places (commands, eval workers, notebooks run by
    # papermill); the variable reaches all of them, the option only this process.
    if value is not None:
        from .settings import use_env_file  # noqa: PLC0415 - keeps `ohara --help` from importing the package

        use_env_file(value.resolve())
        click.echo(f"ohara: settings read from {value.resolve()}", err=True)
    return value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ohara-lab")
@click.option("--env-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), expose_value=False,
              callback=_use_env_file, is_eager=True, envvar="OHARA_ENV_FILE", show_envvar=True,
              help="read settings from this .env file; no .env file is read unless named")
def main() -> None:
    """ohara-lab: auditable retrieval over a Space-Time Graph of documents."""


# ---------------------------------------------------------------------- ingest


@main.command()
@click.argument("paths", nargs=-1, metavar="PATH_OR_URL...")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--force", is_flag=True, help="rebuild documents that are already ingested")
@click.option("--crawl", "crawl_domain", is_flag=False, flag_value="", default=None, metavar="[DOMAIN]",
              help="ingest one document per crawled host (all hosts, or those under DOMAIN); see `ohara crawl`")
@click.option("--allow-private", is_flag=True, help="allow URLs on loopback, private and link-local addresses")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
@click.option("--dry-run", is_flag=True, help="send nothing: print the LLM requests, tokens and price a real run "
                                              "would have, per file and in total")
@click.option("--follow-links", is_flag=True, help="also read links inside a directory that point outside it")
@fail_cleanly
def ingest(paths: tuple[str, ...], atlas: str | None, force: bool, crawl_domain: str | None, allow_private: bool,
           as_json: bool, dry_run: bool, follow_links: bool) -> None:
    """Ingest files, directories (recursively) and http(s) URLs into the atlas."""
    if dry_run:
        _estimate(paths, atlas, force, as_json)
        return
    if not paths and crawl_domain is None:
        raise click.UsageError("give at least one PATH_OR_URL, or --crawl [DOMAIN]")
    with atlas_to_fill(atlas, **_private(allow_private)) as a:
        def line(o: Any) -> None:
            if not as_json:
                detail = f": {o.reason}" if o.reason else ""
                counts = "" if o.status == "failed" or not o.counts else \
                    f" ({o.counts.get('paragraphs', 0)} paragraphs, {o.counts.get('entities', 0)} entities)"
                say(f"{o.status:<9} {o.path}{counts}{detail}", err=o.status == "failed")

        report = a.ingest(list(paths), force=force, progress=not as_json, on_outcome=line,
                          follow_links=follow_links) if paths else None
        if crawl_domain is not None:
            bundles = a.ingest_crawl(crawl_domain or None, force=force, on_outcome=line)
            report = bundles if report is None else type(bundles)(report.outcomes + bundles.outcomes)
        if as_json:
            _print_json({"outcomes": [o.to_dict() for o in report.outcomes], "counts": report.counts(),
                         "notes": report.notes, "llm_budget": report.llm_budget,
                         "calibration": report.calibration.to_dict() if report.calibration else None})
        else:
            click.echo(", ".join(f"{n} {k}" for k, n in sorted(report.counts().items())) or "nothing to ingest")
            for note in report.notes:
                click.echo(note, err=True)
            if report.calibration:
                click.echo(report.calibration.summary(), err=True)
    sys.exit(0 if report.ok else 1)


def _estimate(paths: tuple[str, ...], atlas: str | None, force: bool, as_json: bool) -> None:
    from .render import render_estimate  # noqa: PLC0415

    with atlas_to_fill(atlas) as a:
        estimate = a.estimate_ingest(list(paths), force=force)
    if as_json:
        _print_json(estimate.to_dict())
    else:
        click.echo(render_estimate(estimate))
    sys.exit(0 if estimate.ok else 1)


def _private(allow: bool) -> dict[str, Any]:
    """The settings override of --allow-private (absent flag: keep OHARA_WEB_ALLOW_PRIVATE)."""
    return {"web_allow_private": True} if allow else {}


@main.command()
@click.argument("url")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--depth", type=int, default=None, help="link hops from URL (default: OHARA_CRAWL_DEPTH; -1 = unbounded)")
@click.option("--max-pages", type=int, default=None, help="requests this run makes, and URLs it queues, at most (default: OHARA_CRAWL_MAX_PAGES)")
@click.option("--delay", type=float, default=None, help="seconds between requests to one host (default: OHARA_CRAWL_DELAY_S)")
@click.option("--same-host/--any-host", default=None, help="follow links on URL's host only (default) or anywhere")
@click.option("--allow-private", is_flag=True, help="allow loopback, private and link-local addresses (intranets, tests)")
@click.option("--json", "as_json", is_flag=True, help="print the crawl report as JSON")
@fail_cleanly
def crawl(url: str, atlas: str | None, depth: int | None, max_pages: int | None, delay: float | None,
          same_host: bool | None, allow_private: bool, as_json: bool) -> None:
    """Crawl a site breadth-first into the atlas (robots.txt obeyed; resumes after a kill; re-crawls only changes).

    Exit 1 when no page of the run has content (every one failed or was disallowed).
    """
    overrides = {k: v for k, v in (("crawl_depth", depth), ("crawl_max_pages", max_pages), ("crawl_delay_s", delay),
                                   ("crawl_same_host", same_host)) if v is not None}

    def line(page: Any) -> None:
        if not as_json:
            detail = f": {page.error}" if page.error else ""
            click.echo(f"{page.state:<10} {page.url} (depth {page.depth}){detail}", err=page.state == "failed")

    with _open(atlas, **_private(allow_private)) as a:
        report = a.crawl(url, on_page=line, **overrides)
    if as_json:
        _print_json(report.to_dict())
    else:
        verb = "resumed" if report.resumed else "ran"
        counts = ", ".join(f"{n} {k}" for k, n in report.counts.items())
        click.echo(f"crawl run {report.run} {verb}: {report.visited} request(s); pages: {counts}")
        for host, note in report.delays_capped.items():
            click.echo(f"{host}: {note}")
        if report.links_dropped:
            click.echo(f"{report.links_dropped} link(s) not queued: frontier full or page budget spent "
                       "(OHARA_CRAWL_MAX_FRONTIER, --max-pages)")
    sys.exit(0 if report.counts.get("fetched", 0) + report.counts.get("unchanged", 0) else 1)


@main.command()
@click.argument("url")
@click.option("--to", "to", type=click.Choice(["html", "pdf", "png"]), default="html", show_default=True,
              help="rendered DOM, printed PDF or screenshot")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="file to write (default: a name made from the URL, in the current directory)")
@click.option("--force", is_flag=True, help="replace the output file when it exists")
@click.option("--allow-private", is_flag=True, help="allow loopback, private and link-local addresses")
@fail_cleanly
def capture(url: str, to: str, out: Path | None, force: bool, allow_private: bool) -> None:
    """Save a page as headless Chromium renders it (needs a system Chromium); `Atlas.capture` without an atlas."""
    from .settings import Settings  # noqa: PLC0415
    from .web import load  # noqa: PLC0415

    settings = Settings.from_env().override(**_private(allow_private))
    click.echo(f"wrote {load('capture').capture(url, to, out, settings=settings, overwrite=force)}")


@main.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def stats(atlas: str | None, as_json: bool) -> None:
    """Counts of documents, nodes, entities and edges by relation."""
    with _open(atlas, read_only=True) as a:
        data = a.stats()
    if as_json:
        _print_json(data)
        return
    for key, value in data.items():
        if isinstance(value, dict):
            click.echo(f"{key}:")
            for k, v in value.items():
                click.echo(f"  {k:<14} {v}")
        else:
            click.echo(f"{key:<18} {value}")


@main.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--fix", is_flag=True, help="first repair what is mechanical (missing HAS_CHILD/BELONGS_TO, stale"
                                          " counts and rollups, stale analytics), reporting each fix")
@fail_cleanly
def check(atlas: str | None, as_json: bool, fix: bool) -> None:
    """Integrity check: edges, memberships, full-text index, duplicates, entity counts, analytics. Exit 1 on errors."""
    with _open(atlas, read_only=not fix) as a:
        problems = a.check(fix=fix)
    errors = [p for p in problems if p.severity == "error"]
    if as_json:
        _print_json([p.to_dict() for p in problems])
    else:
        for p in problems:
            click.echo(f"{p.severity:<8} {p.code:<22} {p.detail}")
        click.echo("atlas is sound" if not errors else f"{len(errors)} problem(s)")
    sys.exit(1 if errors else 0)


@main.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--method", type=click.Choice(["leiden", "louvain", "label_propagation"]), default=None,
              help="community detection (default: OHARA_COMMUNITY_METHOD)")
@click.option("--seed", type=int, default=None, help="seed of communities and k-means (default: OHARA_ANALYTICS_SEED)")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
@fail_cleanly
def analyze(atlas: str | None, method: str | None, seed: int | None, as_json: bool) -> None:
    """Communities, paragraph clusters, Adamic-Adar links and knowledge gaps, stored in the atlas."""
    with _open(atlas) as a:
        report = a.analyze(method=method, seed=seed)
    if as_json:
        _print_json(report.to_dict())
        return
    for key, value in report.counts.items():
        click.echo(f"{key:<22} {value}")
    click.echo(f"{'modularity':<22} {report.params.get('modularity')}")
    click.echo("seconds: " + ", ".join(f"{k} {v}" for k, v in report.seconds.items()))


@main.command(name="ls")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def list_documents(atlas: str | None, as_json: bool) -> None:
    """List the atlas's documents."""
    with _open(atlas, read_only=True) as a:
        docs = a.documents()
    if as_json:
        _print_json([{"id": d.id, "title": d.title, "published_date": d.published_date,
                      "status": d.ingestion_status, "source_file": d.source_file} for d in docs])
        return
    for d in docs:
        click.echo(f"{d.id:<32} {d.published_date or '----':<10} {d.ingestion_status:<8} {d.title}")


@main.command(name="rm")
@click.argument("document_ids", nargs=-1, required=True)
@click.option("--atlas", help=ATLAS_HELP)
@fail_cleanly
def remove(document_ids: tuple[str, ...], atlas: str | None) -> None:
    """Delete documents with all their nodes and edges."""
    with _open(atlas) as a:
        n = a.remove(document_ids)
    click.echo(f"removed {n} document(s)")
    sys.exit(0 if n == len(document_ids) else 1)


@main.command()
@click.argument("target", type=click.Path(path_type=Path))
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--format", "fmt", type=click.Choice(["wiki", "json"]), default="wiki", show_default=True,
              help="wiki: a Markdown folder for Obsidian/Quartz; json: one file with every collection")
@fail_cleanly
def export(target: Path, atlas: str | None, fmt: str) -> None:
    """Export the atlas as a Markdown wiki (TARGET = folder) or JSON (TARGET = file)."""
    with _open(atlas, read_only=True) as a:
        counts = a.export_wiki(target) if fmt == "wiki" else a.export_json(target)
    click.echo(f"wrote {target}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@main.command()
@click.option("--atlas", default="./demo-atlas", show_default=True, help="where the demo atlas is built")
@click.option("--query", "query_text", default="Which licence versions replaced the earlier ones, and when?",
              show_default=True, help="the question the demo asks")
@fail_cleanly
def demo(atlas: str, query_text: str) -> None:
    """Ingest the documents ohara-lab ships, ask one question, print the tiers."""
    from .demo import run_demo  # noqa: PLC0415

    sys.exit(run_demo(atlas, query_text, echo=click.echo))


@main.command(name="settings")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@fail_cleanly
def show_settings(as_json: bool) -> None:
    """Every setting: environment variable, current value, range (numbers), help. Exit 2 when one is invalid."""
    from .settings import Settings, describe  # noqa: PLC0415

    current = Settings.from_env().to_dict()
    if as_json:
        _print_json(current)
        return
    for doc in describe():
        click.echo(f"{doc.env:<38} {str(current[doc.name]):<24} {doc.bounds:<18} {doc.help}")


# ---------------------------------------------------------------------- retrieval


def _weights(pairs: tuple[str, ...]) -> dict[str, float]:
    """--weight NAME=VALUE pairs -> settings overrides (bm25, sumo, entity_pivot, struct, cross_doc, vector, temporal)."""
    from .settings import weight_field  # noqa: PLC0415

    out: dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"expected NAME=VALUE, got {pair!r}", param_hint="--weight")
        try:
            out[weight_field(name)] = float(value)
        except ValueError:
            raise click.BadParameter(f"{name}: {value!r} is not a number", param_hint="--weight") from None
    return out


def _query_text(text: str, what: str) -> str:
    """The query itself, or stdin for `-` (an argument is capped near 128 KiB by the OS), within OHARA_QUERY_MAX_CHARS."""
    from .errors import UsageError  # noqa: PLC0415
    from .retrieval.query_reduce import check_query_size  # noqa: PLC0415
    from .settings import Settings  # noqa: PLC0415

    if text == "-":
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError(f"{what} is empty")
    check_query_size(text, Settings.from_env())
    return text


@main.command()
@click.argument("text")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--tiers", "show_tiers", is_flag=True, help="show Principal / Integrity / Explorer with provenance")
@click.option("--verbose", is_flag=True, help="show each result's phase contributions")
@click.option("--json", "as_json", is_flag=True, help="print RetrievalResult.to_dict() as JSON")
@click.option("--limit", type=int, default=None, help="results to return (default: OHARA_RESULT_LIMIT)")
@click.option("--weight", "weights", multiple=True, metavar="NAME=VALUE", help="fusion weight override (repeatable)")
@click.option("--embedder", default=None, help="embedder for the query vector (must match the atlas)")
@click.option("--cor", is_flag=True, help="Chain-of-Retrieval: follow the Explorer frontier and re-query")
@click.option("--agent", is_flag=True, help="agentic mode: choose retrieval tools step by step")
@click.option("--as-of", "as_of", metavar="YYYY-MM-DD", help="answer as of a date: only documents published by then")
@click.option("--profile", type=click.Choice(["default", "original"]), help="engine profile (original = the spec's)")
@fail_cleanly
def query(text: str, atlas: str | None, show_tiers: bool, verbose: bool, as_json: bool, limit: int | None,
          weights: tuple[str, ...], embedder: str | None, cor: bool, agent: bool, as_of: str | None,
          profile: str | None) -> None:
    """Retrieve with every phase and show why each result was found (TEXT `-` reads it from stdin)."""
    from .render import render_results, render_tiers  # noqa: PLC0415

    text = _query_text(text, "query")

    overrides: dict[str, Any] = {**({"profile": profile} if profile else {}), **_weights(weights)}
    if limit is not None:
        overrides["result_limit"] = limit
    if embedder:
        overrides["embedder"] = embedder
    if as_of:
        overrides["as_of"] = as_of
    mode = "agent" if agent else "cor" if cor else "standard"
    with _open(atlas, read_only=True) as a:
        result = a.query(text, mode=mode, **overrides)
    if as_json:
        _print_json(result.to_dict())
    elif show_tiers:
        click.echo(render_tiers(result))
    else:
        click.echo(render_results(result, verbose=verbose))


@main.command()
@click.argument("question")
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--cor", is_flag=True, help="retrieve with Chain-of-Retrieval")
@click.option("--agent", is_flag=True, help="retrieve with the agentic mode")
@click.option("--json", "as_json", is_flag=True, help="print the answer, citations and retrieval as JSON")
@fail_cleanly
def answer(question: str, atlas: str | None, cor: bool, agent: bool, as_json: bool) -> None:
    """Answer from the Principal tier with [n] citations, or say the evidence is insufficient (`-`: stdin)."""
    from .render import shorten  # noqa: PLC0415

    question = _query_text(question, "question")

    mode = "agent" if agent else "cor" if cor else "standard"
    with _open(atlas, read_only=True) as a:
        ans = a.answer(question, mode=mode)
    if as_json:
        _print_json(ans.to_dict())
        return
    click.echo(ans.text)
    for c in ans.citations:
        click.echo(f"[{c['ref']}] {c.get('title') or c['node_id']} ({c['document_id']}) score={c['score']:.3f}")
        for span in c["spans"]:
            click.echo(f"     {span['start']}-{span['end']}: \"{shorten(span['text'], 160)}\"")
        for quote in c["unverified"]:
            click.echo(f"     unverified: \"{shorten(quote, 160)}\" (not found in the cited text)")


@main.command()
@click.argument("query_text", metavar="QUERY")
@click.argument("node_id")
@click.option("--signal", type=click.Choice(["positive", "negative"]), required=True, help="thumbs up or down")
@click.option("--rank", type=int, default=None, help="the result's 1-based rank in the query's list")
@click.option("--atlas", help=ATLAS_HELP)
@fail_cleanly
def feedback(query_text: str, node_id: str, signal: str, rank: int | None, atlas: str | None) -> None:
    """Store a thumbs up/down on one result of QUERY (`Atlas.feedback`); REFEED and the analytics read them."""
    with _open(atlas) as a:
        a.feedback(query_text, node_id, rank, signal)
    click.echo(f"stored {signal} feedback on {node_id}" + (f" at rank {rank}" if rank is not None else ""))


@main.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--embedder", default=None, help="auto | minilm | wordllama | gemini (default: OHARA_EMBEDDER)")
@fail_cleanly
def embed(atlas: str | None, embedder: str | None) -> None:
    """Backfill vectors for nodes that have none for the embedder."""
    with _open(atlas) as a:
        out = a.embed(embedder=embedder)
    click.echo(f"{out['embedded']} node(s) embedded with {out['model']}")


# ---------------------------------------------------------------------- serving (the `serve` extra)


@main.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to listen on; anything but loopback needs OHARA_API_TOKEN")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="TCP port")
@fail_cleanly
def serve(atlas: str | None, host: str, port: int) -> None:
    """Serve the atlas read-only over HTTP (JSON API with an OpenAPI schema at /docs)."""
    from .serve.http_api import check_bind, serve_http  # noqa: PLC0415 - FastAPI and uvicorn load only here
    from .serve.service import AtlasService  # noqa: PLC0415
    from .settings import Settings  # noqa: PLC0415

    settings = Settings.from_env()
    check_bind(host, settings.api_token)
    service = AtlasService(atlas, settings)
    warm = service.warm()
    click.echo(f"serving {service.location} read-only on http://{host}:{port} (ready in {warm:.1f} s; "
               f"OpenAPI at /docs)", err=True)
    serve_http(service, host, port)


@main.command()
@click.option("--atlas", help=ATLAS_HELP)
@click.option("--http", "http_port", type=click.IntRange(0, 65535), default=None,
              help="serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio")
@click.option("--allow-ingest", is_flag=True, help="offer the ingest tool (only from the --ingest-root folders)")
@click.option("--ingest-root", "ingest_roots", multiple=True, type=click.Path(path_type=Path),
              help="a folder the ingest tool may read (repeatable); required by --allow-ingest")
@fail_cleanly
def mcp(atlas: str | None, http_port: int | None, allow_ingest: bool, ingest_roots: tuple[Path, ...]) -> None:
    """Serve the atlas to agents over MCP (stdio by default): query, answer, graph context, documents."""
    from .errors import UsageError  # noqa: PLC0415
    from .serve.mcp_server import run_mcp  # noqa: PLC0415 - the MCP SDK loads only here
    from .serve.service import AtlasService  # noqa: PLC0415

    if allow_ingest != bool(ingest_roots):
        raise UsageError("--allow-ingest and --ingest-root go together: name the folders ingest may read")
    service = AtlasService(atlas, ingest_roots=ingest_roots)
    service.warm()
    run_mcp(service, allow_ingest=allow_ingest, http_port=http_port)


# ---------------------------------------------------------------------- ontology


@main.group()
def ontology() -> None:
    """Build and inspect the SUMO ontology files."""


@ontology.command(name="build")
@click.option("--owl", required=True, type=click.Path(exists=True, path_type=Path), help="SUMO.owl or SUMO.owl.zip")
@click.option("--wordnet", default="/usr/share/wordnet", show_default=True, type=click.Path(path_type=Path),
              help="WordNet 3.0 data directory (Debian: wordnet-base + wordnet-sense-index)")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="output directory (default: ontology/)")
@fail_cleanly
def ontology_build(owl: Path, wordnet: Path, out: Path | None) -> None:
    """Derive the tag index, hierarchy, lexicon and categories from SUMO.owl and WordNet."""
    from .ontology.build import build_ontology  # noqa: PLC0415

    kwargs = {"out_dir": out} if out else {}
    report = build_ontology(owl, wordnet, **kwargs)
    _print_json(report.to_dict() if hasattr(report, "to_dict") else vars(report))


def _register_eval_commands() -> None:
    """`ohara eval` and `ohara reproduce` live with the evaluation harness."""
    from .eval.commands import calibrate_command, eval_command, reproduce_command  # noqa: PLC0415

    main.add_command(eval_command, "eval")
    main.add_command(calibrate_command, "calibrate")
    main.add_command(reproduce_command, "reproduce")


def _register_entity_commands() -> None:
    """`ohara entities ...` lives with entity curation."""
    from .entities.commands import entities  # noqa: PLC0415

    main.add_command(entities, "entities")


_register_eval_commands()
_register_entity_commands()

if __name__ == "__main__":  # pragma: no cover
    main()
