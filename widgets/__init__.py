"""The Jupyter layer of ohara-lab (installed as `ohara_lab.widgets`).

Widgets depend on the core, never the reverse (ARCHITECTURE rule 7): nothing
under `ohara_lab/` imports this package. Each widget is an ipywidgets Box, so
`display(SpaceTimeMap(atlas))` is all a notebook needs, and each has a Python
API that does what its buttons do, so tests drive them without a browser.
"""
from __future__ import annotations

from typing import Any

_EXPORTS = {
    "SpaceTimeMap": "space_time_map",
    "QueryExplorer": "query_explorer",
    "IngestPanel": "ingest_panel",
    "AnalyticsPanel": "analytics_panel",
    "EntityCurator": "entity_curator",
    "FlatList": "flat_list",
    "TaskTimer": "task_timer",
    "open_workbench_atlas": "workbench",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    # Import on first use: pythreejs and matplotlib load only for the widget that needs them.
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
