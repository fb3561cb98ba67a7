"""Small HTML helpers shared by the widgets: escaping, chips, badges, a page style.

Every string that came from a document goes through `esc` before it reaches
an `ipywidgets.HTML`, because documents are untrusted input.
"""
from __future__ import annotations

import html
from collections.abc import Iterable

STYLE = """<style>
.ohara-card{border:1px solid #d0d7de;border-radius:6px;padding:6px 8px;margin:4px 0;font-size:12px;line-height:1.35}
.ohara-card h4{margin:0 0 4px 0;font-size:13px}
.ohara-muted{color:#6a737d}
.ohara-chip{display:inline-block;border-radius:9px;padding:0 6px;margin:1px 2px;font-size:11px;background:#eef1f4}
.ohara-chip.tag{background:#fdf3d0;color:#6b5200}
.ohara-chip.entity{background:#fbe3ef;color:#8a1d52}
.ohara-chip.phase{background:#e3effb;color:#1b4f82}
.ohara-chip.tier{background:#e6f6ec;color:#1f6b3a}
.ohara-chip.warn{background:#fde2e1;color:#8c1c13}
.ohara-notice{border-left:4px solid #cb4b16;background:#fff4ec;padding:4px 8px;margin:4px 0;font-size:12px}
.ohara-outline{margin:2px 0;padding-left:0;list-style:none;font-size:12px}
.ohara-outline li.current{font-weight:bold;color:#268bd2}
.ohara-quote{margin:2px 0 4px 0;padding-left:6px;border-left:3px solid #d0d7de}
.ohara-span{background:#fff1a8;padding:0 1px}
.ohara-text{white-space:pre-wrap;font-size:12px;max-height:16em;overflow:auto;border-left:3px solid #d0d7de;padding-left:6px}
</style>"""


def esc(text: object) -> str:
    return html.escape("" if text is None else str(text))


def chips(values: Iterable[object], kind: str = "", limit: int = 12) -> str:
    items = list(values)
    shown = "".join(f'<span class="ohara-chip {kind}">{esc(v)}</span>' for v in items[:limit])
    more = f' <span class="ohara-muted">+{len(items) - limit}</span>' if len(items) > limit else ""
    return shown + more


def notice(message: str) -> str:
    """A visible warning line (used whenever a feature is unavailable or failed)."""
    return f'<div class="ohara-notice">{esc(message)}</div>'


