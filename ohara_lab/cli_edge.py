"""What every `ohara` command shares: the single error edge (a named error becomes one line on
stderr and its exit code), opening the atlas, printing JSON.

The commands in `cli.py` and those other packages add (`eval/commands.py`,
`entities/commands.py`) take these from here, so none of them imports another.
"""
from __future__ import annotations

import json
import sys
from functools import wraps
from typing import Any, Callable

import click

from .errors import OharaError


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except OharaError as e:
            click.echo(f"ohara: error: {e}", err=True)
            sys.exit(e.exit_code)

    return wrapper


def open_atlas(atlas: str | None, *, read_only: bool = False, **overrides: Any):  # type: ignore[no-untyped-def]
    """Read commands pass `read_only=True`: no schema work, no write lock, no atlas made at a mistyped path."""
    from .atlas import Atlas  # noqa: PLC0415
    from .settings import Settings  # noqa: PLC0415 - `ohara --help` needs no settings

    return Atlas.open(atlas, Settings.from_env(), read_only=read_only, **overrides)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
