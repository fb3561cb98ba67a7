"""LLM prompt templates and their JSON output schemas (package data)."""
