"""An opt-in pytest plugin that lists the `all(...)` calls in test modules that ran over nothing.

`assert all(f.temporal == 0 for f in result.fused)` passes when `result.fused` is empty: the check ran
over nothing. `tests/test_tests_honest.py` catches the conditional kind (`if x: assert ...`) from the
syntax tree; this kind shows only at run time:

    python -m pytest -p tests.vacuity_probe tests/<area>

It gives each test module its own `all` that records, per call site, whether the iterable was empty,
and names at the end the sites whose every call was (a site that is sometimes empty is listed too,
with its counts). A listed site asserts its input first (`assert rows and all(...)`) or is built on a
fixture where the input cannot be empty. Issue 29.6's run over the quick suite found one.
"""

from __future__ import annotations

import builtins
import sys
from collections import Counter
from collections.abc import Iterable
from typing import Any

_EMPTY: Counter[str] = Counter()
_FILLED: Counter[str] = Counter()
_PATCHED: list[Any] = []  # the test modules given `_recording_all`, given `all` back at the end


def _recording_all(iterable: Iterable[Any]) -> bool:
    frame = sys._getframe(1)
    site = f"{frame.f_code.co_filename.rsplit('/tests/', 1)[-1]}:{frame.f_lineno}"
    seen = False
    for item in iterable:
        seen = True
        if not item:
            _FILLED[site] += 1
            return False
    (_FILLED if seen else _EMPTY)[site] += 1
    return True


def pytest_collection_modifyitems(items: list[Any]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and "/tests/" in (getattr(module, "__file__", "") or "") and module not in _PATCHED:
            module.all = _recording_all
            _PATCHED.append(module)


def pytest_unconfigure(config: Any) -> None:
    for module in _PATCHED:
        module.all = builtins.all


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.section("all() over nothing")
    if not _EMPTY:
        terminalreporter.write_line("none: every all() in the test modules run saw at least one item")
    for site in sorted(_EMPTY):
        terminalreporter.write_line(f"tests/{site}: empty {_EMPTY[site]}x, non-empty {_FILLED.get(site, 0)}x")
