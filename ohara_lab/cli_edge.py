"""What every `ohara` command shares: the single error edge (a named error becomes one line on
stderr and its exit code), opening the atlas, printing JSON.

The commands in `cli.py` and those other packages add (`eval/commands.py`,
`entities/commands.py`) take these from here, so none of them imports another.
Error and report lines go out through `say`, which masks every secret the process
knows (issue 12): API keys, the ArangoDB password, passwords inside URLs.
"""
from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from .errors import IngestInterrupted, OharaError
from .redact import redact


def secrets() -> list[str]:
    """Secret values this process knows (settings' keys and tokens, the ArangoDB password)."""
    from .settings import Settings, environ_value  # noqa: PLC0415 - keeps `ohara --help` from importing the package

    found = [environ_value("ARANGO_PASSWORD"), environ_value("GEMINI_API_KEY")]
    with contextlib.suppress(OharaError):  # unreadable settings: mask what the environment holds
        found += Settings.from_env().secrets()
    return [s for s in found if s]


def say(text: str, err: bool = False) -> None:
    """Echo one line with every secret masked."""
    click.echo(redact(text, secrets()), err=err)


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except IngestInterrupted as e:  # not an error: the user stopped it, and is told how to go on
            say(str(e), err=True)
            sys.exit(e.exit_code)
        except OharaError as e:
            say(f"ohara: error: {e}", err=True)
            sys.exit(e.exit_code)

    return wrapper


def open_atlas(atlas: str | None, *, read_only: bool = False, **overrides: Any):  # type: ignore[no-untyped-def]
    """Read commands pass `read_only=True`: no schema work, no write lock, no atlas made at a mistyped path."""
    from .atlas import Atlas  # noqa: PLC0415
    from .settings import Settings  # noqa: PLC0415 - `ohara --help` needs no settings

    return Atlas.open(atlas, Settings.from_env(), read_only=read_only, **overrides)


@contextlib.contextmanager
def atlas_to_fill(atlas: str | None, **overrides: Any):  # type: ignore[no-untyped-def]
    """Open the atlas an ingest writes to; if this open created it and the run stored no document (every
    path failed, a dry run), delete it again: a failed first ingest leaves no empty atlas behind."""
    a = open_atlas(atlas, **overrides)
    try:
        yield a
    finally:
        if a.store.created and not a.store.list_documents():
            a.store.discard()
        else:
            a.close()


def _plain(value: Any) -> Any:
    """json's fallback: numpy scalars and arrays as the Python numbers they hold (`.item()`, `.tolist()`), any
    other object (a Path, a date) as its string; np.int64 is no int, and str() would print it quoted."""
    if hasattr(value, "tolist") and type(value).__module__ == "numpy":
        return value.tolist()
    return str(value)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=_plain))
