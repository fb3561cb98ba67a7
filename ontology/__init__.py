"""Derived SUMO ontology files, built by `ohara ontology build` (package data)."""
