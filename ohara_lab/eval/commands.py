"""CLI commands of the evaluation harness (registered on `ohara` by `ohara_lab.cli`)."""
from __future__ import annotations

import click


@click.command()
def eval_command() -> None:
    """Run the evaluation config matrix on a dataset (not built yet)."""
    raise click.ClickException("ohara eval is not available yet")


@click.command()
def reproduce_command() -> None:
    """Re-run every paper notebook through papermill (not built yet)."""
    raise click.ClickException("ohara reproduce is not available yet")
