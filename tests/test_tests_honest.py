"""Tests that cannot lie (issue 29.6): no assertion in tests/ reads a wall clock.

A timed assertion (`assert time.monotonic() - t0 < 1.4`) passes or fails with the machine's load, not
with the code: on CI's two shared cores it fails on correct code, and a margin wide enough never to
fail checks nothing. A test says what it means deterministically instead: count the calls, record the
order of events, meet at a barrier, or inject a clock or a sleep through a declared parameter (e.g.
`Backoff(sleep=waits.append)`).

The check reads each test module's syntax tree: a name bound to a `time` clock call (`perf_counter`,
`monotonic`, `time`, `process_time`, and their `_ns` forms), or computed from such a name, or returned
by a module-level function that returns one, may be printed or reported, but no `assert` may read it.
Timings the code under test measures itself (`timings_ms`, `latency_ms`, ...) may be checked for being
filled (`> 0`, `>= 0`, their keys) but not ordered against each other or against a budget.

Nor may a test pass vacuously: a test function whose every check sits under an `if`, with a side of that
`if` that checks nothing (no assert, `pytest.raises`, `pytest.fail`/`skip`, `raise`), passes when the
condition is false; so does one check under an `if` on a value the test computed (`if gpl2: assert ...`).
Assert the condition (on fixtures built to make it hold), then check. `if reason: pytest.skip(reason)`
and `if bad: pytest.fail(...)` are checks of their own, and an `if` on a parametrised case says which
case runs; neither is flagged.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent
TIMING_FIELDS = frozenset({"timings_ms", "latency_ms", "elapsed_ms", "elapsed_s", "duration_s", "wall_s"})
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
CLOCKS = frozenset(
    {
        "perf_counter",
        "perf_counter_ns",
        "monotonic",
        "monotonic_ns",
        "time",
        "time_ns",
        "process_time",
        "process_time_ns",
        "thread_time",
        "thread_time_ns",
    }
)


def _scopes(tree: ast.Module) -> list[ast.AST]:
    """The module and every function in it: each is one scope for the names it binds."""
    return [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))]


def _own_nodes(scope: ast.AST):
    """Nodes of `scope` itself, not those of the functions nested in it (they are scopes of their own)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.Assign,)):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
        targets = [node.target]
    else:
        return []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def timed_assertions(source: str, filename: str = "<test>") -> list[str]:
    """`file:line: assert ...` for each assertion that reads a clock-derived value."""
    tree = ast.parse(source, filename)
    modules = {"time"}  # names the `time` module is bound to
    clock_funcs: set[str] = set()  # names bound to a clock function (`from time import perf_counter`)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "time"}
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            clock_funcs |= {a.asname or a.name for a in node.names if a.name in CLOCKS}

    def reads_clock(expr: ast.AST, tainted: set[str]) -> bool:
        for n in ast.walk(expr):
            if isinstance(n, ast.Call):
                f = n.func
                if (
                    isinstance(f, ast.Attribute)
                    and f.attr in CLOCKS
                    and isinstance(f.value, ast.Name)
                    and f.value.id in modules
                ):
                    return True
                if isinstance(f, ast.Name) and f.id in clock_funcs:
                    return True
            if isinstance(n, ast.Name) and n.id in tainted:
                return True
        return False

    scopes = _scopes(tree)
    tainted_in: dict[int, set[str]] = {id(s): set() for s in scopes}
    changed = True
    while changed:  # names from names from clocks, and functions returning them, to a fixed point
        changed = False
        for scope in scopes:
            tainted = tainted_in[id(scope)]
            for node in _own_nodes(scope):
                value = getattr(node, "value", None)
                if value is None or not _targets(node):
                    continue
                new = set(_targets(node)) - tainted
                if new and reads_clock(value, tainted):
                    tainted |= new
                    changed = True
            returns_clock = isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                isinstance(n, ast.Return) and n.value is not None and reads_clock(n.value, tainted)
                for n in _own_nodes(scope)
            )
            if returns_clock and scope.name not in clock_funcs:
                clock_funcs.add(scope.name)
                changed = True
    found = []
    for scope in scopes:
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assert) and (
                reads_clock(node.test, tainted_in[id(scope)]) or orders_timings(node.test)
            ):
                found.append(f"{filename}:{node.lineno}: {ast.unparse(node)[:120]}")
    return sorted(found, key=lambda line: int(line.split(":")[1]))


def _names_timings(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in TIMING_FIELDS
    if isinstance(node, ast.Name):
        return node.id in TIMING_FIELDS
    return (
        isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in TIMING_FIELDS
    )


def _timing_field(expr: ast.AST) -> bool:
    """`expr` is a measured timing or arithmetic on one (`t.timings_ms["scene"]`, `r["latency_ms"] * 2`);
    the keys of a timings dict (`set(r.timings_ms)`) are not."""
    if isinstance(expr, ast.BinOp):
        return _timing_field(expr.left) or _timing_field(expr.right)
    if isinstance(expr, ast.Subscript) and _names_timings(expr.value):
        return True
    return _names_timings(expr) and not (
        isinstance(expr, (ast.Attribute, ast.Name)) and getattr(expr, "attr", getattr(expr, "id", "")) == "timings_ms"
    )


def orders_timings(test: ast.AST) -> bool:
    """An ordering comparison of a measured timing with anything but zero (`recolor_ms < scene_ms`)."""
    for n in ast.walk(test):
        if isinstance(n, ast.Compare) and any(isinstance(op, ORDERING) for op in n.ops):
            operands = [n.left, *n.comparators]
            if any(_timing_field(o) for o in operands) and not any(
                isinstance(o, ast.Constant) and o.value == 0 for o in operands
            ):
                return True
    return False


def test_no_assertion_in_tests_reads_a_clock():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        found += timed_assertions(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))
    assert not found, (
        "timed assertions (count calls, order events, a barrier or an injected clock instead):\n" + "\n".join(found)
    )


def _flagged(code: str) -> list[int]:
    return [int(line.split(":")[1]) for line in timed_assertions(textwrap.dedent(code))]


def test_the_check_finds_the_timed_assertions_it_is_for():
    code = """
        import time
        import time as clock
        from time import perf_counter as pc

        def measure(fn):
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0

        def test_direct():
            start = time.monotonic()
            assert time.monotonic() - start < 1.4

        def test_derived():
            t0 = pc()
            elapsed = (pc() - t0) * 1e3
            per_page = elapsed / 3
            assert per_page < 50, f"{per_page} ms"

        def test_alias_and_helper():
            assert clock.time() > 0
            took = measure(print)
            assert took < 1.0

        def test_walrus():
            assert (t := time.time_ns()) > 0

        def test_measured_by_the_code(space_map, result):
            assert space_map.timings_ms["recolor"] < space_map.timings_ms["scene"]
            assert result.to_dict()["timings_ms"]["total"] < 500
    """
    assert _flagged(code) == [13, 19, 22, 24, 27, 30, 31]


def test_the_check_leaves_deterministic_tests_alone():
    code = """
        import time

        def test_printed_only():
            t0 = time.perf_counter()
            out = sorted([3, 1, 2])
            print(f"sorted in {time.perf_counter() - t0:.3f} s")
            assert out == [1, 2, 3]

        def test_a_deadline_bounds_a_wait_but_is_not_asserted():
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                break
            assert [1] == [1]

        def test_time_is_not_the_clock(time_axis):
            assert time_axis.time(2007) > 0

        def test_timings_are_filled(result, rows):
            assert result.to_dict()["timings_ms"]["total"] > 0 and set(result.timings_ms) >= {"total"}
            assert all(r["latency_ms"] >= 0 for r in rows)
    """
    assert _flagged(code) == []


# --------------------------------------------------------------------------- no test passes vacuously

PYTEST_STOPS = frozenset({"fail", "skip", "xfail", "importorskip"})


def _stops(node: ast.AST) -> bool:
    """`node` ends the test by itself: `raise`, `pytest.fail/skip/xfail/importorskip`. Under an `if` it is
    that condition's check (`if bad: pytest.fail(...)` is `assert not bad`), or a skip that says why."""
    if isinstance(node, ast.Raise):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func
        return (f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "") in PYTEST_STOPS
    return False


def _checks(node: ast.AST) -> bool:
    """`node` is a check: an assert, a `pytest.raises/warns` block, `x.assert_*()`, or a stop (`_stops`)."""
    if isinstance(node, ast.Assert) or _stops(node):
        return True
    if isinstance(node, ast.With):
        return any(
            isinstance(i.context_expr, ast.Call)
            and isinstance(i.context_expr.func, ast.Attribute)
            and i.context_expr.func.attr in ("raises", "warns")
            for i in node.items
        )
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func
        return isinstance(f, ast.Attribute) and f.attr.startswith("assert")
    return False


def _checks_in(body: list[ast.stmt]) -> bool:
    return any(
        _checks(n)
        for stmt in body
        for n in ast.walk(stmt)
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    )


def _check_guards(body: list[ast.stmt], guards: tuple, loops: int, out: list) -> None:
    """(check, the `if`s above it, how many loops above it) for every check in `body`, not descending into
    nested functions (their checks are theirs)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if _stops(stmt):
            out.append((stmt, (), loops))  # the check of the `if` above it, which always runs
        elif _checks(stmt):
            out.append((stmt, guards, loops))
        if isinstance(stmt, ast.If):
            _check_guards(stmt.body, (*guards, (stmt, loops)), loops, out)
            _check_guards(stmt.orelse, (*guards, (stmt, loops)), loops, out)
            continue
        inner_loops = loops + isinstance(stmt, (ast.For, ast.AsyncFor, ast.While))
        for field in ("body", "orelse", "finalbody"):
            _check_guards(getattr(stmt, field, None) or [], guards, inner_loops, out)
        for handler in getattr(stmt, "handlers", None) or []:
            _check_guards(handler.body, guards, inner_loops, out)


def _case_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names `@pytest.mark.parametrize` gives the test (all its arguments under hypothesis' `@given`)."""
    names: set[str] = set()
    for deco in fn.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        func = ast.unparse(call.func if call else deco)
        if func.endswith("parametrize") and call and call.args and isinstance(call.args[0], ast.Constant):
            names |= {n.strip() for n in str(call.args[0].value).split(",")}
        elif func.endswith("given"):
            names |= {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    return names


def _from_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The test's case parameters and the names it computes from them, to a fixed point."""
    names = _case_parameters(fn)
    changed = True
    while changed:
        changed = False
        for node in ast.walk(fn):
            value = getattr(node, "value", None) if _targets(node) else None
            if isinstance(node, (ast.For, ast.AsyncFor)):
                value, bound = node.iter, [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
            else:
                bound = _targets(node)
            if (
                value is not None
                and set(bound) - names
                and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value))
            ):
                names |= set(bound)
                changed = True
    return names


def vacuous_tests(source: str, filename: str = "<test>") -> list[str]:
    """`file:line: test_name` for each test that can pass without checking what it is for:

    - every check sits under an `if` one side of which checks nothing; or
    - a check sits under an `if`, outside any loop, whose other side checks nothing and whose condition
      reads no case parameter (`@pytest.mark.parametrize`, `@given`: `if embedder != "none"` for a
      parametrised embedder says which case runs; `if gpl2:` for a set the test just computed means the
      check silently did not run)."""
    found = []
    for fn in ast.walk(ast.parse(source, filename)):
        if not (isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test")):
            continue
        checks: list = []
        _check_guards(fn.body, (), 0, checks)
        one_sided = {
            id(g): g for _, guards, _ in checks for g, _ in guards if not (_checks_in(g.body) and _checks_in(g.orelse))
        }
        if not checks or not one_sided:
            continue
        if all(guards for _, guards, _ in checks):
            found.append(f"{filename}:{fn.lineno}: {fn.name}")
            continue
        params = _from_parameters(fn)
        asserted = {
            (a.lineno, ast.unparse(c))
            for a in ast.walk(fn)
            if isinstance(a, ast.Assert)
            for c in (a.test.values if isinstance(a.test, ast.BoolOp) and isinstance(a.test.op, ast.And) else [a.test])
        }
        for g, loops in {id(g): (g, loops) for _, guards, _ in checks for g, loops in guards}.values():
            read = {n.id for n in ast.walk(g.test) if isinstance(n, ast.Name)}
            held = any(line < g.lineno and cond == ast.unparse(g.test) for line, cond in asserted)
            if id(g) in one_sided and not loops and read and not read & params and not held:
                found.append(f"{filename}:{g.lineno}: {fn.name} (`if {ast.unparse(g.test)[:60]}`)")
    return found


def test_no_test_passes_vacuously():
    found = []
    for path in sorted(TESTS.rglob("test_*.py")):
        found += vacuous_tests(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))
    assert not found, "tests that pass when an `if` is false (assert the condition, then check):\n" + "\n".join(found)


def test_the_vacuity_check_finds_conditional_only_checks():
    code = """
        import pytest

        def test_only_if_the_engine_found_something(result):
            if result.principal:
                assert result.principal[0].score > 0

        def test_in_a_loop(items):
            for item in items:
                if item.flag:
                    assert item.ok

        def test_else_passes(x):
            if x:
                with pytest.raises(ValueError):
                    int("a")
            else:
                print("nothing to check")

        def test_checks_the_superseded_only_if_the_query_reached_one(atlas):
            r = atlas.query("q")
            assert r.results
            gpl2 = {f.id for f in r.tiers.principal if f.title.endswith("Version 2")}
            if gpl2:
                assert gpl2 <= {i.id for i in r.tiers.integrity}
    """
    assert [line.split(": ", 1)[1] for line in vacuous_tests(textwrap.dedent(code))] == [
        "test_only_if_the_engine_found_something",
        "test_in_a_loop",
        "test_else_passes",
        "test_checks_the_superseded_only_if_the_query_reached_one (`if gpl2`)",
    ]


def test_the_vacuity_check_spares_tests_that_always_check():
    code = """
        import pytest

        def test_condition_asserted_first(result):
            assert result.principal, "the query must reach the principal tier"
            if result.principal:
                assert result.principal[0].score > 0

        def test_both_sides_check(gold):
            if gold <= 10:
                assert gold >= 0
            else:
                assert gold > 10

        def test_the_other_side_skips(extra):
            if extra is None:
                pytest.skip("needs the extra")
            else:
                assert extra.works()

        def test_checked_by_a_helper(atlas):
            _assert_equal(atlas)

        @pytest.mark.parametrize("embedder", ["none", "wordllama"])
        def test_a_parametrised_case_says_which_checks_run(embedder, tmp_path):
            vectors = embed(tmp_path, embedder)
            assert vectors is not None
            if embedder != "none":
                assert len(vectors) > 0

        def test_a_nested_function_is_its_own_scope(x):
            def helper():
                assert x
            if x:
                helper()
            assert x is not None
    """
    assert vacuous_tests(textwrap.dedent(code)) == []
