"""Interoperability check of `graphex mcp` with an independent client: the
official Python MCP SDK. Lists the tools, proposes a node, queries, and asks
for the proposal's status. Exits non-zero on any mismatch.

usage: python scripts/mcp_interop.py GRAPHEX_BINARY STORE_DIR AGENT_IDENTITY
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# One group per tool module of the server; add new tools to their group.
EXPECTED = set().union(
    {"graphex_query", "graphex_status", "graphex_glossary", "graphex_conventions", "graphex_proposal_status"},
    {"graphex_propose_node", "graphex_propose_edge", "graphex_propose_update", "graphex_propose_remove_edge"},
    {"graphex_path", "graphex_search", "graphex_inspect", "timeline_status"},
    {"trust_status", "cost_estimate", "cost_report", "policy_check"},
)


def failed(result):
    return getattr(result, "is_error", None) or getattr(result, "isError", None)


def text(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main(binary, store, identity):
    params = StdioServerParameters(
        command=binary,
        args=["--store", store, "mcp", "--agent", "python-sdk", "--trust", "95", "--session", "interop"],
        env={"GRAPHEX_AGENT_IDENTITY": identity},
    )
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            assert tools == EXPECTED, f"tools differ: {sorted(tools ^ EXPECTED)}"

            proposed = await session.call_tool("graphex_propose_node", {
                "name": "python-interop-check", "node_type": "concept",
                "description": "Proposed by the Python MCP SDK", "rationale": "interop check",
            })
            assert not failed(proposed), text(proposed)
            proposal_id = text(proposed).split()[1]

            status = await session.call_tool("graphex_proposal_status", {"id": proposal_id[:12]})
            assert "pending" in text(status), text(status)

            query = await session.call_tool("graphex_query", {"query": "orders-service -> depends-on -> *", "budget": 500})
            assert not failed(query), text(query)
            assert "## Project Context: orders-service" in text(query), text(query)

            bad = await session.call_tool("graphex_query", {"query": "orders-service -> ->"})
            assert failed(bad), "a malformed query must be a tool error"

            async def ok(tool, args, expect):
                result = await session.call_tool(tool, args)
                assert not failed(result), f"{tool}: {text(result)}"
                assert expect in text(result), f"{tool}: {expect!r} not in {text(result)}"
                return text(result)

            await ok("graphex_query", {"query": "orders-service -> * -> *", "depth": 2, "type": "service"}, "## Project Context")
            await ok("graphex_path", {"from": "orders-service", "to": "redis", "undirected": True}, "hop(s)")
            await ok("graphex_search", {"text": "ordr srv"}, "orders-service")
            await ok("graphex_inspect", {"name": "orders-service"}, "orders-service")
            await ok("timeline_status", {"count": 5}, "\"commit\"")
            await ok("trust_status", {}, "\"tier\": \"agent-readable\"")
            estimate = await ok("cost_estimate", {"node": "orders-service"}, "\"tokens\"")
            inspected = await ok("graphex_inspect", {"name": "orders-service", "format": "json"}, "\"hash\"")
            assert json.loads(estimate)["tokens"] == json.loads(inspected)["tokens"], (estimate, inspected)
            await ok("cost_report", {"input_tokens": 900, "output_tokens": 40, "cached_tokens": 100,
                                     "projection": json.loads(inspected)["hash"][:12]}, "cost record")
            await ok("policy_check", {"changes": [{"op": "add_edge", "from": "orders-service", "relation": "uses",
                                                   "to": "no-such-node"}], "paths": ["services/orders/src/main.rs"]},
                     "dangling")
            await ok("graphex_propose_update", {"name": "redis", "set": {"description": "cache"}}, "submitted")
    print(f"mcp interop ok: {len(EXPECTED)} tools called, proposal {proposal_id[:12]}")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
