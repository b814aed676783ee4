"""A real `pdfindex web` subprocess on a free port, for the web tests: started with its
flags and environment, found by its start-up line, stopped with SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcpclient import CATCH_UP
from tests.waiting import eventually

STARTED = re.compile(r"at (https?://\S+/) \(MCP at")


@dataclass
class WebServer:
    process: subprocess.Popen[bytes]
    url: str  # http://127.0.0.1:PORT/
    stderr: Path

    @property
    def host(self) -> str:
        """The `Host` header a client of `url` sends (127.0.0.1:PORT)."""
        return self.url.split("/")[2]

    def stop(self) -> int:
        """SIGTERM, then the exit code (the index is closed on the way out)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(60)


def run_web(root: Path, *flags: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`python -m pdfindex web --root ROOT FLAGS...`, its stderr in ROOT/web-stderr.txt."""
    out = (root / "web-stderr.txt").open("wb")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "pdfindex", "web", "--root", str(root), *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=out,
            env={**os.environ, **(env or {})},
        )
    finally:
        out.close()


@contextmanager
def web_server(root: Path, *flags: str, env: dict[str, str] | None = None) -> Iterator[WebServer]:
    """A running server on a free port of 127.0.0.1, stopped (and checked to stop
    cleanly) afterwards."""
    process = run_web(root, "--port", "0", *flags, env=env)
    stderr = root / "web-stderr.txt"

    def started() -> str | None:
        if process.poll() is not None:
            raise AssertionError(f"pdfindex web ended: {stderr.read_text()}")
        found = STARTED.search(stderr.read_text())
        return found.group(1) if found else None

    server = WebServer(process, eventually(started, "the start-up line", CATCH_UP), stderr)
    try:
        yield server
    finally:
        code = server.stop()
        assert code == 0, stderr.read_text()


@asynccontextmanager
async def http_client(url: str, token: str | None = None) -> AsyncIterator[Client]:
    """The SDK's client over Streamable HTTP to `url`mcp, with the bearer token if given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        async with Client(streamable_http_client(url + "mcp", http_client=http)) as client:
            yield client
