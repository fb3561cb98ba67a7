"""Retrieval phases: plain functions `(state, store, settings) -> list[Hit]`."""
