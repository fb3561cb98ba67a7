"""`ohara mcp` driven by the MCP SDK's own client, over stdio to a subprocess (issue 15).

The client lists the tools, calls each one and checks every reply against the output
schema the server declared; ids are checked, ingest is absent unless allowed and then
confined to its roots; the document resources give back the text a result cites.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import jsonschema
import pytest

pytest.importorskip("mcp", reason="`ohara mcp` needs the 'serve' extra")

import anyio  # noqa: E402 - comes with mcp
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from ohara_lab import Atlas  # noqa: E402

from tests.support import OFFLINE  # noqa: E402

from .servers import ENV, free_port  # noqa: E402

READ_TOOLS = {"query", "answer", "get_graph_context", "explain", "stats", "list_documents"}
QUESTION = "Which licence versions replaced the earlier ones, and when?"


def with_client(args: list[str], body: Callable[[Client], Awaitable[Any]]) -> Any:
    """Start `ohara mcp ARGS` as a subprocess and run `body` with an SDK client connected over stdio."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "ohara_lab.cli", "mcp", *args], env=ENV)

    async def main() -> Any:
        with anyio.fail_after(180):
            async with Client(params) as client:
                return await body(client)

    return anyio.run(main)


async def call(client: Client, tool: str, args: dict[str, Any], schemas: dict[str, dict]) -> Any:
    """Call a tool that must succeed; its structured reply must match the tool's declared output schema."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    jsonschema.validate(result.structured_content, schemas[tool])
    data = result.structured_content
    return data["result"] if set(data) == {"result"} else data


async def error_of(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error
    return " ".join(c.text for c in result.content)


@pytest.fixture(scope="module")
def atlas_copy(samples_atlas_dir, tmp_path_factory) -> Path:
    dst = tmp_path_factory.mktemp("mcp") / "atlas"
    shutil.copytree(samples_atlas_dir, dst)
    return dst


def test_every_tool_listed_called_and_schema_valid(atlas_copy):
    async def body(client: Client) -> dict[str, Any]:
        listed = (await client.list_tools()).tools
        schemas = {t.name: t.output_schema for t in listed}
        out: dict[str, Any] = {"tools": {t.name: t for t in listed}}
        out["query"] = await call(client, "query", {"text": QUESTION, "limit": 5, "snippet_chars": 120}, schemas)
        hit = out["query"]["results"][0]["id"]
        out["full"] = await call(client, "query", {"text": QUESTION, "limit": 5, "snippet_chars": 0}, schemas)
        out["cor"] = await call(client, "query", {"text": QUESTION, "mode": "cor", "limit": 3}, schemas)
        out["answer"] = await call(client, "answer", {"question": "When was GPL version 3 published?"}, schemas)
        out["nothing"] = await call(client, "answer", {"question": "zxqv plorbt wumpus?"}, schemas)
        out["context"] = await call(client, "get_graph_context", {"node_id": hit, "depth": 2}, schemas)
        out["explain"] = await call(client, "explain", {"text": QUESTION, "node_id": hit, "limit": 5}, schemas)
        out["stats"] = await call(client, "stats", {}, schemas)
        out["docs"] = await call(client, "list_documents", {}, schemas)
        uri = out["docs"]["documents"][0]["uri"]
        out["document"] = (await client.read_resource(uri)).contents[0].text
        section = next(n["id"] for n in out["context"] if n["id"].startswith("sections/"))
        out["section_id"] = section
        out["section"] = (await client.read_resource("ohara://section/" + section.split("/", 1)[1])).contents[0].text
        out["templates"] = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        return out

    out = with_client(["--atlas", str(atlas_copy)], body)
    tools = out["tools"]
    assert set(tools) == READ_TOOLS  # no ingest unless started with --allow-ingest
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40 and tool.annotations.read_only_hint
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description") or name in ("offset",) or "anyOf" in prop, (tool.name, name)
    assert set(tools["query"].input_schema["properties"]["mode"]["enum"]) == {"standard", "cor", "agent"}

    with Atlas.open(atlas_copy, read_only=True, **OFFLINE) as atlas:
        local = atlas.query(QUESTION, result_limit=5).to_dict()
        stats = atlas.stats()
    assert set(out["full"]) == set(local)  # to_dict() forwarded whole (answerability too, when present)
    assert [(r["id"], r["score"]) for r in out["full"]["results"]] == [(r["id"], r["score"]) for r in local["results"]]
    assert [r["content"] for r in out["full"]["results"]] == [r["content"] for r in local["results"]]
    assert all(len(r["content"]) <= 120 for r in out["query"]["results"] + out["query"]["tiers"]["principal"])
    assert out["query"]["tiers"]["principal"] and "provenance" in out["query"]["tiers"]["integrity"][0]
    assert out["cor"]["results"]

    assert out["answer"]["citations"] and not out["answer"]["insufficient"] and "retrieval" not in out["answer"]
    assert out["nothing"]["insufficient"] and out["nothing"]["citations"] == [] and out["nothing"]["abstained"]
    assert "Insufficient evidence" in out["nothing"]["answer"]

    assert out["context"] and {"id", "type", "title", "snippet", "hops", "relation"} <= set(out["context"][0])
    assert "rank 1" in out["explain"] and "families:" in out["explain"]
    assert out["stats"] == stats
    assert out["docs"]["total"] == 7
    first = out["docs"]["documents"][0]
    assert out["document"].startswith(f"# {first['title']}") and f"<!-- {first['id']} -->" in out["document"]
    assert f"<!-- {out['section_id']} -->" in out["section"]
    assert out["templates"] == {"ohara://document/{key}", "ohara://section/{key}"}


def test_bad_ids_and_absent_ingest_are_refused(atlas_copy, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nThe launch code is 0000.\n")

    async def body(client: Client) -> dict[str, Any]:
        out = {"ingest": await error_of(client, "ingest", {"path": str(secret)}),
               "traversal": await error_of(client, "get_graph_context", {"node_id": "../../etc/passwd"}),
               "missing": await error_of(client, "get_graph_context", {"node_id": "paragraphs/feedbeef-00001"}),
               "weights": await error_of(client, "query", {"text": "x", "weights": {"nonsense": 1.0}}),
               "limit": await error_of(client, "query", {"text": "x", "limit": 1000})}
        for uri in ("ohara://document/..%2F..%2Fetc%2Fpasswd", "ohara://document/0123456789abcdef0123",
                    "ohara://section/../../etc/passwd"):
            with pytest.raises(MCPError):
                await client.read_resource(uri)
        return out

    out = with_client(["--atlas", str(atlas_copy)], body)
    assert "ingest" in out["ingest"].lower() and "unknown tool" in out["ingest"].lower()
    assert "node_id" in out["traversal"]
    assert "no such node paragraphs/feedbeef-00001" in out["missing"]
    assert "'nonsense' is not a fusion weight; known: bm25, sumo" in out["weights"]
    assert "limit must be between 1 and 100" in out["limit"]
    with Atlas.open(atlas_copy, read_only=True, **OFFLINE) as atlas:
        assert len(atlas.documents()) == 7


BAD_NUMBERS = [  # (tool, arguments, what the one-line error must say)
    ("query", {"text": "x", "weights": {"bm25": -1.0}}, "OHARA_BM25_WEIGHT=-1.0: bm25_weight must be a finite number in [0, 100]"),
    ("query", {"text": "x", "weights": {"vector": 1e308}}, "OHARA_VECTOR_WEIGHT=1e+308"),
    ("query", {"text": "x", "weights": {"ppr": 100.5}}, "in [0, 100]"),
    ("explain", {"text": "x", "node_id": "paragraphs/a-00001", "weights": {"temporal": -0.1}}, "OHARA_TEMPORAL_WEIGHT"),
    ("query", {"text": "x", "limit": 0}, "limit"),
    ("query", {"text": "x", "snippet_chars": -1}, "snippet_chars"),
    ("query", {"text": "x\u0000y"}, "NUL"),
    ("get_graph_context", {"node_id": "paragraphs/a-00001", "depth": 99}, "depth"),
    ("list_documents", {"offset": -1}, "offset"),
    ("list_documents", {"limit": 0}, "limit"),
]


def test_bad_numbers_in_tool_arguments_are_one_line_errors(atlas_copy):
    async def body(client: Client) -> list[str]:
        return [await error_of(client, tool, args) for tool, args, _ in BAD_NUMBERS]

    errors = with_client(["--atlas", str(atlas_copy)], body)
    for (tool, args, says), error in zip(BAD_NUMBERS, errors):
        assert says in error, (tool, args, error)
        assert "Traceback" not in error


def test_ingest_only_inside_its_roots(samples_atlas_dir, tmp_path):
    atlas = tmp_path / "atlas"
    shutil.copytree(samples_atlas_dir, atlas)
    root, outside = tmp_path / "inbox", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (root / "heron.md").write_text("# Herons of Quillon\n\nGrey herons nest by the Brevik dam every spring.\n")
    (outside / "private.md").write_text("# Private\n\nSalary figures of the Brevik dam keepers.\n")
    (root / "link.md").symlink_to(outside / "private.md")
    (root / "door").symlink_to(outside, target_is_directory=True)

    async def body(client: Client) -> dict[str, Any]:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        out: dict[str, Any] = {"tools": set(schemas)}
        out["refused"] = [await error_of(client, "ingest", {"path": p}) for p in (
            str(outside / "private.md"), "../elsewhere/private.md", "link.md", "door", "door/private.md", "/etc")]
        out["missing"] = await error_of(client, "ingest", {"path": "nothing-here.md"})
        out["ok"] = await call(client, "ingest", {"path": "heron.md"}, schemas)
        out["again"] = await call(client, "ingest", {"path": str(root / "heron.md")}, schemas)
        out["found"] = await call(client, "query", {"text": "grey herons nest Brevik dam", "limit": 3}, schemas)
        return out

    out = with_client(["--atlas", str(atlas), "--allow-ingest", "--ingest-root", str(root)], body)
    assert out["tools"] == READ_TOOLS | {"ingest"}
    assert all("outside the ingest roots" in e for e in out["refused"]), out["refused"]
    assert "no such file or folder" in out["missing"]
    assert out["ok"]["ok"] and [o["status"] for o in out["ok"]["outcomes"]] == ["ingested"]
    assert [o["status"] for o in out["again"]["outcomes"]] == ["skipped"]
    assert out["found"]["results"][0]["document_title"] == "Herons of Quillon"  # read-only side sees the write
    with Atlas.open(atlas, read_only=True, **OFFLINE) as a:
        assert sorted(d.title for d in a.documents() if "Brevik" in d.title or "Private" in d.title
                      or "Herons" in d.title) == ["Herons of Quillon"]


def test_allow_ingest_needs_a_root(atlas_copy):
    proc = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "mcp", "--atlas", str(atlas_copy), "--allow-ingest"],
                          env=ENV, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("ohara: error: --allow-ingest and --ingest-root go together: name the folders "
                                   "ingest may read")


def test_mcp_over_streamable_http_on_loopback(atlas_copy):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "mcp", "--atlas", str(atlas_copy),
                             "--http", str(port)], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    async def main() -> tuple[set[str], dict[str, Any]]:
        with anyio.fail_after(120):
            while True:  # until it listens
                try:
                    await anyio.connect_tcp("127.0.0.1", port)
                    break
                except OSError:
                    assert proc.poll() is None, proc.stderr.read()
                    await anyio.sleep(0.2)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                result = await client.call_tool("stats", {})
                return tools, result.structured_content

    try:
        tools, stats = anyio.run(main)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert tools == READ_TOOLS and stats["documents"] == 7


def test_hostile_ingest_paths_get_one_line_each(samples_atlas_dir, tmp_path):
    """Issue 28.1/28.9 over the real MCP server: a hard link to a file outside the root, a NUL in the path
    and paths longer than the system takes are refused with one line each, and nothing is ingested."""
    atlas = tmp_path / "atlas"
    shutil.copytree(samples_atlas_dir, atlas)
    root, outside = tmp_path / "inbox", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (outside / "private.md").write_text("# Private\n\nSalary figures of the Brevik dam keepers.\n")
    os.link(outside / "private.md", root / "hard.md")
    (root / "folder").mkdir()
    os.link(outside / "private.md", root / "folder" / "also-hard.md")
    paths = {"hard link": "hard.md", "NUL": "heron\x00.md", "long path": "a/" * 2100 + "x.md",
             "long name": "n" * 300 + ".md"}

    async def body(client: Client) -> dict[str, Any]:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        out = {k: await error_of(client, "ingest", {"path": p}) for k, p in paths.items() if k != "hard link"}
        out["hard link"] = await call(client, "ingest", {"path": paths["hard link"]}, schemas)
        out["folder"] = await call(client, "ingest", {"path": "folder"}, schemas)
        return out

    out = with_client(["--atlas", str(atlas), "--allow-ingest", "--ingest-root", str(root)], body)
    for what in ("hard link", "folder"):
        (o,) = out[what]["outcomes"]
        assert o["status"] == "failed" and "has 3 hard links; another name may lie outside" in o["reason"], o
    assert "holds a NUL character at position 5" in out["NUL"]
    assert "bytes long, more than the 4096 a path may be" in out["long path"]
    assert "bytes long, more than the 255 a file name may be" in out["long name"]
    for what in ("NUL", "long path", "long name"):
        assert "\n" not in out[what].strip() and "Traceback" not in out[what], out[what]
    with Atlas.open(atlas, read_only=True, **OFFLINE) as a:
        assert not [d for d in a.documents() if d.title == "Private"]
