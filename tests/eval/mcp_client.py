"""A minimal MCP client over stdio for the benchmark scripts: spawns `code-intel serve --repo REPO`
and speaks JSON-RPC 2.0 to it, one JSON object a line (the MCP stdio transport).

What it speaks: `initialize` (protocol 2025-06-18, no client capabilities) and the
`notifications/initialized` notification when it starts, then any request (`request`) — in
practice `tools/call` (`call_tool`, `timed_call_tool`). A request waits for the response with
its id; notifications and requests the server sends meanwhile are read and dropped (the client
declares no capabilities, so the server has nothing to ask of it). The server's stderr is
discarded.

Errors: `McpError` when the server closes its stdout (it exited: see its exit code in the
message), sends a line that is not JSON, or answers a request with a JSON-RPC error (`request`
and the tool calls raise it then; the tool's own failures are results with `isError`, not
errors, and come back as structured content like any other). `subprocess` errors (the binary
missing) are raised as they are.

Use (the scripts in tests/eval import it directly; scripts/ put tests/eval on sys.path first):

    from mcp_client import McpClient

    with McpClient(binary, repo, env=env, client_name="my-bench") as server:
        ms, body = server.timed_call_tool("find_definitions", {"symbol": "load"})
        rss = server.proc_status()["VmRSS"]

`env` is the server's whole environment (the scripts pass a small fixed one so that the user's
settings do not leak into a measurement); `close()` (or leaving the `with`) closes the server's
stdin, which ends it, and waits for it to exit.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

PROTOCOL_VERSION = "2025-06-18"


class McpError(RuntimeError):
    """The server ended, sent something that is not JSON-RPC, or answered with an error."""


class McpClient:
    """`code-intel serve --repo REPO` and a JSON-RPC connection to it over its stdin/stdout."""

    def __init__(self, binary: str, repo: str, *, env: dict[str, str] | None = None,
                 client_name: str = "bench") -> None:
        """Starts the server and initializes the session (blocks until `initialize` answers).

        `env` None inherits this process's environment. Raises `McpError` if the server does
        not answer `initialize`."""
        self.proc = subprocess.Popen([binary, "serve", "--repo", str(repo)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)
        self.pid = self.proc.pid
        self._next_id = 0
        self.request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                    "clientInfo": {"name": client_name, "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def __enter__(self) -> McpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, msg: dict) -> None:
        """Writes one JSON-RPC message (a line) and flushes it."""
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        """Sends a request and returns the whole response message (`{"jsonrpc", "id",
        "result"}`); raises `McpError` on a JSON-RPC error or when the server ends first."""
        self._next_id += 1
        rid = self._next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.poll()
                raise McpError(f"{method}: the server closed its output (exit code {code})")
            try:
                msg = json.loads(line)
            except json.JSONDecodeError as e:
                raise McpError(f"{method}: not JSON from the server: {line[:200]!r}") from e
            if msg.get("id") != rid or "method" in msg:
                continue
            if "error" in msg:
                raise McpError(f"{method}: JSON-RPC error {msg['error']}")
            return msg

    def call_tool(self, name: str, arguments: dict) -> dict:
        """`tools/call`: the result's structured content (`{}` when it has none)."""
        return self.timed_call_tool(name, arguments)[1]

    def timed_call_tool(self, name: str, arguments: dict) -> tuple[float, dict]:
        """`tools/call`: (wall milliseconds from sending to the response, structured content)."""
        t = time.perf_counter()
        r = self.request("tools/call", {"name": name, "arguments": arguments})
        ms = (time.perf_counter() - t) * 1000
        return ms, r["result"].get("structuredContent", {})

    def proc_status(self) -> dict[str, str]:
        """The server's /proc/PID/status as field -> value (`"VmRSS": "123456 kB"`; Linux)."""
        out = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            k, _, v = line.partition(":")
            out[k] = v.strip()
        return out

    def rss_mib(self) -> float:
        """The server's resident memory (VmRSS) in MiB; NaN when /proc does not say."""
        rss = self.proc_status().get("VmRSS")
        return int(rss.split()[0]) / 1024 if rss else float("nan")

    def close(self, timeout: float = 60) -> None:
        """Closes the server's stdin (it exits on end of input) and waits up to `timeout` s."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait(timeout=timeout)
