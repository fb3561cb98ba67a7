"""`FlatList`: the flat-list baseline of the planned user study (the original's `study.html`).

What a conventional document browser offers, and nothing spatial: a document
list with keyword search, a date-range and a SUMO-tag filter, a reader with
the section outline, and the study's task timer. Comparing task times and
accuracy here with the same tasks on the map is the study in
`refs/user_study.md`.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ohara_lab.dates import iso_bounds
from ohara_lab.records import DocumentView

from .html import STYLE, esc
from .task_timer import TaskTimer

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

ANY_TAG = "(any tag)"
SEARCH_LIMIT = 2000  # full-text hits read per search; enough to find every matching document of a study corpus
_WORD = re.compile(r"\w+", re.UNICODE)


def document_span(doc: Any) -> tuple[str, str] | None:
    """The days a document speaks of: its coverage, else its publication date."""
    lo = iso_bounds(doc.temporal_coverage_start) or iso_bounds(doc.published_date)
    hi = iso_bounds(doc.temporal_coverage_end) or iso_bounds(doc.published_date) or lo
    if lo is None or hi is None:
        return None
    return min(lo[0], hi[0]), max(lo[1], hi[1])


def in_date_range(doc: Any, date_from: str, date_to: str, include_undated: bool) -> bool:
    """True when the document's span overlaps [from, to] (either end may be empty)."""
    lo, hi = iso_bounds(date_from), iso_bounds(date_to)
    lo, hi = (lo[0] if lo else None), (hi[1] if hi else None)
    if lo is None and hi is None:
        return True
    span = document_span(doc)
    if span is None:
        return include_undated
    return (lo is None or span[1] >= lo) and (hi is None or span[0] <= hi)


class FlatList(w.VBox):
    """Document list + search + date/tag filters + reader + task timer."""

    def __init__(self, atlas: Atlas, *, participant: str = "", timer: TaskTimer | None = None):
        self.atlas = atlas
        self.docs = {d.id: d for d in atlas.documents()}
        self._nodes: dict[str, DocumentView] = {}
        tag_counts = Counter(t for d in self.docs.values() for t in dict.fromkeys(d.sumo_tags))
        self.search = w.Text(placeholder="search titles and text", description="search", continuous_update=False,
                             layout=w.Layout(width="360px"))
        self.date_from = w.Text(placeholder="YYYY[-MM[-DD]]", description="from", continuous_update=False,
                                layout=w.Layout(width="200px"))
        self.date_to = w.Text(placeholder="YYYY[-MM[-DD]]", description="to", continuous_update=False,
                              layout=w.Layout(width="200px"))
        self.include_undated = w.Checkbox(value=True, description="keep undated", indent=False)
        self.tag = w.Dropdown(options=[ANY_TAG, *[t for t, _ in tag_counts.most_common()]], value=ANY_TAG,
                              description="SUMO tag")
        self.sort = w.Dropdown(options=["title", "date"], value="title", description="sort by")
        self.count = w.HTML()
        self.document_list = w.Select(options=[], rows=14, layout=w.Layout(width="420px"))
        self.outline = w.Select(options=[], rows=14, layout=w.Layout(width="360px"))
        self.reader = w.HTML(layout=w.Layout(width="560px", max_height="420px", overflow="auto"))
        self.timer = timer or TaskTimer(condition="flat_list", participant=participant)
        super().__init__(children=[
            w.HTML(STYLE), self.timer,
            w.HBox([self.search, self.date_from, self.date_to, self.include_undated]),
            w.HBox([self.tag, self.sort, self.count]),
            w.HBox([self.document_list, self.outline, self.reader], layout=w.Layout(align_items="flex-start")),
        ])
        for control in (self.search, self.date_from, self.date_to, self.include_undated, self.tag, self.sort):
            control.observe(self._on_filter, names="value")
        self.document_list.observe(self._on_document, names="value")
        self.outline.observe(self._on_section, names="value")
        self.refresh()

    # ------------------------------------------------------------------ filtering
    def _text_matches(self, query: str) -> set[str]:
        """Documents whose title, tags or text contain every word of `query` (text via the atlas's BM25)."""
        words = [x.lower() for x in _WORD.findall(query)]
        if not words:
            return set(self.docs)
        by_title = {d.id for d in self.docs.values()
                    if all(x in f"{d.title} {d.description} {' '.join(d.sumo_tags)}".lower() for x in words)}
        # BM25 matches any word; keep documents where every word is found somewhere in the document.
        per_word = [{h.document_id for h in self.atlas.text_search([x], SEARCH_LIMIT)} for x in words]
        in_text = set.intersection(*per_word) if per_word else set()
        return by_title | in_text

    def visible_ids(self) -> list[str]:
        """Document ids passing every filter, in the chosen order."""
        matched = self._text_matches(self.search.value)
        keep = [d for d in self.docs.values()
                if d.id in matched
                and (self.tag.value == ANY_TAG or self.tag.value in d.sumo_tags)
                and in_date_range(d, self.date_from.value, self.date_to.value, self.include_undated.value)]
        if self.sort.value == "date":
            keep.sort(key=lambda d: ((document_span(d) or ("9999",))[0], d.title))
        else:
            keep.sort(key=lambda d: (d.title.lower(), d.id))
        return [d.id for d in keep]

    def refresh(self) -> None:
        ids = self.visible_ids()
        self.document_list.options = [(_doc_label(self.docs[i]), i) for i in ids]
        self.count.value = f'<span class="ohara-muted">{len(ids)} of {len(self.docs)} documents</span>'

    def _on_filter(self, change: dict[str, Any]) -> None:
        names = {self.search: "search", self.date_from: "date_from", self.date_to: "date_to",
                 self.include_undated: "include_undated", self.tag: "tag", self.sort: "sort"}
        self.timer.event(names.get(change["owner"], "filter"), change["new"])
        self.refresh()

    # ------------------------------------------------------------------ reading
    def _document_nodes(self, document_id: str) -> DocumentView:
        if document_id not in self._nodes:  # a document removed since the list was read shows no text
            self._nodes[document_id] = self.atlas.document(document_id) or DocumentView(self.docs[document_id])
        return self._nodes[document_id]

    def open_document(self, document_id: str) -> None:
        """Show a document's outline and its opening text."""
        if self.document_list.value != document_id:
            self.document_list.value = document_id  # fires _on_document
            return
        self._show_document(document_id)

    def _on_document(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.timer.event("open_document", change["new"])
            self._show_document(change["new"])

    def _show_document(self, document_id: str) -> None:
        nodes = self._document_nodes(document_id)
        options: list[tuple[str, str]] = [("(whole document)", "")]
        options += [("\u2003" * max(0, int(s.get("level") or 1) - 1) + (s.get("title") or s["id"]), s["id"])
                    for s in nodes.sections]
        self.outline.options = options
        self.outline.value = ""
        self.reader.value = self._render(document_id, None)

    def open_section(self, section_id: str) -> None:
        self.outline.value = section_id

    def _on_section(self, change: dict[str, Any]) -> None:
        doc = self.document_list.value
        if doc is None:
            return
        if change["new"]:
            self.timer.event("open_section", change["new"])
        self.reader.value = self._render(doc, change["new"] or None)

    def _render(self, document_id: str, section_id: str | None) -> str:
        doc = self.docs[document_id]
        nodes = self._document_nodes(document_id)
        if section_id:
            wanted = _descendants(section_id, nodes.sections)
            texts = [t for t in (*nodes.paragraphs, *nodes.tables) if t.get("section_id") in wanted]
        else:
            texts = [*nodes.paragraphs, *nodes.tables]
        texts.sort(key=lambda t: int(t.get("doc_position") or 0))
        titles = {s["id"]: s.get("title", "") for s in nodes.sections}
        head = (f"<h4>{esc(doc.title)}</h4><div class=\"ohara-muted\">{esc(doc.published_date or 'undated')} · "
                f"{esc(', '.join(doc.sumo_tags[:5]))}</div>")
        body, current = [], None
        for t in texts:
            if t.get("section_id") != current:
                current = t.get("section_id")
                if current in titles:
                    body.append(f"<h5>{esc(titles[current])}</h5>")
            text = t.get("content") or t.get("markdown_representation") or ""
            body.append(f'<p style="font-size:12px;white-space:pre-wrap">{esc(text)}</p>')
        return head + ("".join(body) or '<div class="ohara-muted">no text in this section</div>')


def _descendants(section_id: str, sections: Sequence[dict[str, Any]]) -> set[str]:
    children: dict[str | None, list[str]] = {}
    for s in sections:
        children.setdefault(s.get("parent_section_id"), []).append(s["id"])
    out, stack = set(), [section_id]
    while stack:
        sid = stack.pop()
        if sid not in out:
            out.add(sid)
            stack.extend(children.get(sid, []))
    return out


def _doc_label(doc: Any) -> str:
    return f"{doc.title[:60]} ({(doc.published_date or 'undated')[:10]})"
