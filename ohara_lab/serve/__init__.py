"""Serving an atlas to other programs: `ohara serve` (read-only HTTP API) and `ohara mcp` (MCP server for agents).

Both are thin shells over `AtlasService` (one read-only atlas and one engine per process);
importing this package pulls in neither FastAPI nor the MCP SDK (the `serve` extra).
"""
