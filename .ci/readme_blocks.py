"""Print a block of the README that CI runs verbatim: `python3 .ci/readme_blocks.py commands|system`.

A block is the first fenced ```bash block after the marker `<!-- ci:NAME -->` in README.md. CI runs what
this prints, unchanged, so the README's commands are the ones a newcomer types (tests/test_docs.py checks
that the markers are there and that .ci/run runs both blocks through this script).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def block(name: str, text: str) -> str:
    marker = f"<!-- ci:{name} -->"
    if marker not in text:
        raise SystemExit(f"README.md has no {marker} marker")
    found = re.search(r"```bash\n(.*?)```", text.split(marker, 1)[1], re.S)
    if not found:
        raise SystemExit(f"README.md has no ```bash block after {marker}")
    return found.group(1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 .ci/readme_blocks.py commands|system")
    sys.stdout.write(block(sys.argv[1], README.read_text(encoding="utf-8")))
