"""The CLI's single error edge: a named error becomes one line on stderr and its exit code.

Every `ohara` command (those in `cli.py` and those the evaluation harness adds) is
wrapped by `fail_cleanly`, here, so neither imports the other for it.
"""
from __future__ import annotations

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
