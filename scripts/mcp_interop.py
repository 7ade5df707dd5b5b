"""Interoperability check of `graphex mcp` with an independent client: the
official Python MCP SDK. Lists the tools, proposes a node, queries, and asks
for the proposal's status. Exits non-zero on any mismatch.

usage: python scripts/mcp_interop.py GRAPHEX_BINARY STORE_DIR AGENT_IDENTITY
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED = {
    "graphex_query", "graphex_status", "graphex_propose_node", "graphex_propose_edge",
    "graphex_propose_update", "graphex_propose_remove_edge", "graphex_glossary", "graphex_conventions",
    "graphex_proposal_status",
}


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
    print(f"mcp interop ok: {len(EXPECTED)} tools, proposal {proposal_id[:12]}, query answered")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
