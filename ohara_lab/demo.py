"""`ohara demo`: ingest the shipped sample corpus, ask one question, print the tiers."""
from __future__ import annotations

from collections.abc import Callable

from .atlas import Atlas
from .records import SIMILAR_TO
from .render import render_tiers
from .samples import corpus_dir


def run_demo(location: str, question: str, echo: Callable[[str], None] = print) -> int:
    """Returns the exit code: 0 when every sample ingested and the atlas checks clean."""
    with Atlas.open(location) as atlas:
        echo(f"Ingesting the sample corpus ({corpus_dir()}) into {location} ...")
        report = atlas.ingest([corpus_dir()], progress=False,
                              on_outcome=lambda o: echo(f"  {o.status:<9} {o.source_name}" if hasattr(o, "source_name")
                                                        else f"  {o.status:<9} {o.path.rsplit('/', 1)[-1]}"
                                                        + (f": {o.reason}" if o.reason else "")))
        stats = atlas.stats()
        echo(f"Atlas: {stats['documents']} documents, {stats['sections']} sections, {stats['paragraphs']} paragraphs,"
             f" {stats['tables']} tables, {stats['entities']} entities, "
             f"{sum(stats['edges'].values())} edges ({stats['edges'].get(SIMILAR_TO, 0)} SIMILAR_TO)")
        echo(f"\nQuery: {question}\n")
        result = atlas.query(question)
        echo(render_tiers(result))
        problems = [p for p in atlas.check() if p.severity == "error"]
        echo("\nohara check: " + ("atlas is sound" if not problems else f"{len(problems)} problem(s)"))
        echo(f"\nNext: ohara query \"patent licences\" --atlas {location} --tiers, or open notebooks/.")
    return 0 if report.ok and not problems else 1
