"""Interoperability check of `graphex mcp` with an independent client: the
official Python MCP SDK. Lists the tools, proposes a node, queries, asks for
the proposal's status, calls every other tool, and runs a review
conversation to the end (propose, a reviewer asks for changes through the
CLI, comment, revise, accept) and the explorations. Exits non-zero on any
mismatch. The reviewer's passphrase comes from INTEROP_REVIEWER_PASSPHRASE.

usage: python scripts/mcp_interop.py GRAPHEX_BINARY STORE_DIR AGENT_IDENTITY
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# One group per tool module of the server; add new tools to their group.
EXPECTED = set().union(
    {"graphex_query", "graphex_status", "graphex_glossary", "graphex_conventions", "graphex_proposal_status"},
    {"graphex_propose_node", "graphex_propose_edge", "graphex_propose_update", "graphex_propose_remove_edge"},
    {"graphex_path", "graphex_search", "graphex_inspect", "timeline_status"},
    {"trust_status", "cost_estimate", "cost_report", "policy_check"},
    {"begin_exploration", "end_exploration", "propose_changeset", "review_list", "review_comment"},
)


def failed(result):
    return getattr(result, "is_error", None) or getattr(result, "isError", None)


def text(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main(binary, store, identity):
    params = StdioServerParameters(
        command=binary,
        args=["--store", store, "mcp", "--agent", "python-sdk", "--trust", "95", "--session", "interop"],
        env={"GRAPHEX_AGENT_IDENTITY": identity, "GRAPHEX_STATE_DIR": os.environ["GRAPHEX_STATE_DIR"]},
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
            await conversation(session, ok, binary, store)
            await explorations(session, ok)
    print(f"mcp interop ok: {len(EXPECTED)} tools called, proposal {proposal_id[:12]}")


def reviewer(binary, store, *args):
    """Runs a reviewer's CLI command (master level) and returns its output."""
    env = dict(os.environ, GRAPHEX_PASSPHRASE=os.environ["INTEROP_REVIEWER_PASSPHRASE"])
    env.pop("GRAPHEX_AGENT_IDENTITY", None)
    done = subprocess.run([binary, "--store", store, *args], env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"graphex {' '.join(args)}: {done.stderr}"
    return done.stdout


async def conversation(session, ok, binary, store):
    """Propose, a reviewer asks for changes, comment, revise, accept."""
    said = await ok("graphex_propose_node", {"name": "interop-retry", "node_type": "module",
                                             "description": "Retries", "rationale": "first try"}, "submitted")
    first = said.split()[1]
    listed = json.loads(await ok("review_list", {}, first))["proposals"]
    assert listed[0]["id"] == first and listed[0]["state"] == "pending", listed
    reviewer(binary, store, "request-changes", first[:12], "--comment", "say who owns it", "--change", "1")
    listed = json.loads(await ok("review_list", {"state": "changes-requested"}, first))["proposals"]
    assert listed[0]["comment"] == "say who owns it" and listed[0]["change"] == 1, listed
    await ok("review_comment", {"proposal": first[:12], "comment": "orders-team owns it", "change": 1}, "\"comment\"")
    said = await ok("graphex_propose_node", {"name": "interop-retry", "node_type": "module",
                                             "description": "Retries, owned by orders-team",
                                             "rationale": "as asked", "revises": first[:12]}, "submitted")
    second = said.split()[1]
    card = reviewer(binary, store, "pending")
    assert "What changed since round 1" in card and "orders-team owns it" in card, card
    reviewer(binary, store, "accept", second[:12])
    listed = json.loads(await ok("review_list", {}, second))["proposals"]
    states = {p["id"]: p["state"] for p in listed}
    assert states[second] == "accepted" and states[first] == "revised", states


async def explorations(session, ok):
    """Changes gathered in explorations, submitted as one or abandoned."""
    x = json.loads(await ok("begin_exploration", {"name": "cache layer", "description": "add a cache"},
                            "exploration"))["exploration"]
    await ok("graphex_propose_node", {"name": "interop-cache", "node_type": "module", "description": "Cache",
                                      "exploration": x}, "change 1 added")
    await ok("graphex_propose_edge", {"from": "interop-cache", "relation": "uses", "to": "redis",
                                      "exploration": x}, "change 2 added")
    said = await ok("end_exploration", {"exploration": x, "result": "accept"}, "2 change(s)")
    assert "submitted" in said, said
    y = json.loads(await ok("begin_exploration", {"name": "docs"}, "exploration"))["exploration"]
    await ok("graphex_propose_update", {"name": "redis", "set": {"description": "the cache"}, "exploration": y},
             "change 1 added")
    await ok("propose_changeset", {"message": "describe redis", "intent": "documentation"}, "submitted")
    z = json.loads(await ok("begin_exploration", {"name": "dropped"}, "exploration"))["exploration"]
    await ok("end_exploration", {"exploration": z, "result": "abandon"}, "abandoned")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
