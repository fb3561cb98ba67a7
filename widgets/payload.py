"""What a widget tree costs to send to the browser, and how to close it.

ipywidgets sends every model's state once when its comm opens: binary buffers
(numpy arrays, via ipydatawidgets) plus the rest as JSON. `state_bytes` sums
exactly that over a widget and everything it references, using ipywidgets'
own buffer split, so the benchmark's "bytes sent" is what goes over the wire
(message framing aside).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ipywidgets import Widget
from ipywidgets.widgets.widget import _remove_buffers


def _widgets_in(value: Any) -> Iterator[Widget]:
    if isinstance(value, Widget):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _widgets_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _widgets_in(v)


def widget_closure(root: Widget) -> list[Widget]:
    """`root` and every widget reachable through its synced traits, each once."""
    seen: dict[int, Widget] = {}
    stack = [root]
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen[id(w)] = w
        for name in w.keys:
            try:
                value = getattr(w, name)
            except Exception:  # noqa: BLE001 - a trait without a value references nothing
                continue
            stack.extend(_widgets_in(value))
    return list(seen.values())


@dataclass(frozen=True)
class StateBytes:
    widgets: int
    buffer_bytes: int
    json_bytes: int

    @property
    def total(self) -> int:
        return self.buffer_bytes + self.json_bytes


def state_bytes(root: Widget) -> StateBytes:
    """Bytes of the comm-open state of `root`'s widget tree: binary buffers + JSON."""
    buffers = json_bytes = 0
    tree = widget_closure(root)
    for w in tree:
        state, _, bufs = _remove_buffers(w.get_state())
        buffers += sum(memoryview(b).nbytes for b in bufs)
        json_bytes += len(json.dumps(state, default=str).encode("utf-8"))
    return StateBytes(len(tree), buffers, json_bytes)


def close_tree(root: Widget, keep: set[int] = frozenset()) -> int:  # type: ignore[assignment]
    """Close `root` and what it references, except widgets whose id() is in `keep`; returns how many."""
    closed = 0
    for w in widget_closure(root):
        if id(w) not in keep:
            w.close()
            closed += 1
    return closed
