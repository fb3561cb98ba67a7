"""Assemble a corpus of >= 100k paragraphs of real text from Debian documentation packages.

    apt-get install -y python3.11-doc postgresql-doc-15 linux-doc   # the sources (not committed, ~300 MB)
    python benchmarks/scale_corpus.py                               # -> ~/.cache/ohara-lab/scale-corpus/

Sources, as installed by apt (each skipped with a line saying so when absent):
  python   /usr/share/doc/python3.11/html/**/*.html    Sphinx HTML (the HTML parser)
  postgres /usr/share/doc/postgresql-doc-15/html/*.html DocBook HTML (the HTML parser)
  linux    /usr/share/doc/linux-doc*/**/*.rst[.gz]      the kernel's reStructuredText, written out as
                                                        `.md` (its `===`/`---` underlined titles are
                                                        Markdown's setext headings: the Markdown parser)
Index, search and module-index pages are left out (link lists, not text). Files are copied
(decompressed) under OUT/<source>/ and listed in OUT/manifest.json in ingest order: the
sources interleaved file by file, each source in path order, so every prefix mixes the three
formats. Each entry carries an estimate of its paragraphs (blocks between blank lines of the
parsed Markdown that are not headings); `bench_scale.py` takes the shortest prefix that
reaches a size. The atlas's own paragraph count is what the benchmark reports.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_OUT = Path.home() / ".cache" / "ohara-lab" / "scale-corpus"
SKIP_NAMES = ("genindex", "search.html", "py-modindex", "bookindex", "index.html", "objects.inv")
MIN_PARAGRAPHS = 3  # files with less text than this are navigation pages
MANIFEST_VERSION = 1


@dataclass
class Entry:
    path: str  # relative to the corpus folder
    source: str
    paragraphs: int  # estimated


def _python() -> Iterator[tuple[Path, str]]:
    root = Path("/usr/share/doc/python3.11/html")
    for path in sorted(root.rglob("*.html")):
        if "_static" not in path.parts and not path.name.startswith(SKIP_NAMES):
            yield path, str(path.relative_to(root))


def _postgres() -> Iterator[tuple[Path, str]]:
    root = Path("/usr/share/doc/postgresql-doc-15/html")
    for path in sorted(root.glob("*.html")):
        if not path.name.startswith(SKIP_NAMES):
            yield path, path.name


def _linux() -> Iterator[tuple[Path, str]]:
    roots = sorted(Path("/usr/share/doc").glob("linux-doc*"))
    for root in roots:
        for path in sorted([*root.rglob("*.rst"), *root.rglob("*.rst.gz")]):
            rel = str(path.relative_to(root)).removesuffix(".gz").removesuffix(".rst") + ".md"
            yield path, f"{root.name}/{rel}"


SOURCES = {"python": (_python, "python3.11-doc"), "postgres": (_postgres, "postgresql-doc-15"),
           "linux": (_linux, "linux-doc")}


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def estimate_paragraphs(markdown: str) -> int:
    """Blocks between blank lines that are not headings or fences' delimiters."""
    blocks = [b.strip() for b in markdown.split("\n\n")]
    return sum(1 for b in blocks if b and not b.startswith("#") and not b.startswith("```"))


def _tagged(name: str, found: list[tuple[Path, str]]) -> Iterator[tuple[str, Path, str]]:
    for path, rel in found:
        yield name, path, rel


def _interleave(streams: list[Iterator[tuple[str, Path, str]]]) -> Iterator[tuple[str, Path, str]]:
    live = list(streams)
    while live:
        for stream in list(live):
            item = next(stream, None)
            if item is None:
                live.remove(stream)
            else:
                yield item


def build(out: Path, target: int) -> list[Entry]:
    from ohara_lab.errors import OharaError
    from ohara_lab.parse import parse_file

    streams = []
    for name, (walk, package) in SOURCES.items():
        found = list(walk())
        if not found:
            print(f"{name}: nothing found (apt-get install -y {package}); skipped")
            continue
        print(f"{name}: {len(found):,} files from {package}")
        streams.append(_tagged(name, found))
    entries: list[Entry] = []
    total = failed = 0
    t0 = time.perf_counter()
    for name, path, rel in _interleave(streams):
        target_path = out / name / rel
        target_path.parent.mkdir(parents=True, exist_ok=True)
        target_path.write_bytes(_read(path))
        try:
            paragraphs = estimate_paragraphs(parse_file(target_path).markdown)
        except OharaError as exc:
            failed += 1
            print(f"  skipped {target_path.relative_to(out)}: {exc}")
            target_path.unlink()
            continue
        if paragraphs < MIN_PARAGRAPHS:
            target_path.unlink()
            continue
        entries.append(Entry(str(target_path.relative_to(out)), name, paragraphs))
        total += paragraphs
        if total >= target:
            break
    by_source: dict[str, list[int]] = {}
    for e in entries:
        by_source.setdefault(e.source, []).append(e.paragraphs)
    for name, counts in by_source.items():
        print(f"  {name:<9} {len(counts):>6,} documents  {sum(counts):>8,} paragraphs (estimated)")
    print(f"total      {len(entries):>6,} documents  {total:>8,} paragraphs (estimated); {failed} files did not parse; "
          f"{time.perf_counter() - t0:.0f} s")
    (out / "manifest.json").write_text(json.dumps({"version": MANIFEST_VERSION, "target": target,
                                                   "entries": [asdict(e) for e in entries]}, indent=0),
                                       encoding="utf-8")
    return entries


def load_manifest(out: Path) -> list[Entry]:
    data = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    if data.get("version") != MANIFEST_VERSION:
        raise SystemExit(f"{out / 'manifest.json'}: an older manifest; run benchmarks/scale_corpus.py again")
    return [Entry(**e) for e in data["entries"]]


def prefix(entries: list[Entry], paragraphs: int) -> list[Entry]:
    """The shortest prefix of the manifest whose estimated paragraphs reach `paragraphs`."""
    total = 0
    for i, e in enumerate(entries):
        total += e.paragraphs
        if total >= paragraphs:
            return entries[: i + 1]
    return list(entries)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--target", type=int, default=110_000, help="estimated paragraphs to collect")
    args = parser.parse_args(argv)
    out = Path(args.out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    entries = build(out, args.target)
    if sum(e.paragraphs for e in entries) < args.target:
        print(f"only {sum(e.paragraphs for e in entries):,} paragraphs: install more sources", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
