"""`pdfindex web`'s guard against a real server: the token (made by `--new-token`, only
its hash stored; Bearer on /mcp, the login cookie for pages), Host and Origin (DNS
rebinding), the rate limit, the refusal to serve a network address without a token,
and a request log that never holds a secret."""

from __future__ import annotations

import hashlib
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from pdfindex.web.tokens import TOKEN_FILE
from tests import pdfgen
from tests.webserver import WebServer, http_client, web_server

MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def _pdfindex(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pdfindex", *args], capture_output=True, text=True, check=False
    )


def _project(root: Path) -> Path:
    (root / "files").mkdir(parents=True)
    pdfgen.write_pdf(root / "files" / "notes.pdf", ["Guarded notes about zeppelins."])
    return root


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A project with a token made by `pdfindex web --new-token`."""
    root = _project(tmp_path_factory.mktemp("guarded"))
    made = _pdfindex("web", "--root", str(root), "--new-token")
    assert made.returncode == 0, made.stderr
    return root, made.stdout.strip()


@pytest.fixture(scope="module")
def server(guarded: tuple[Path, str]) -> Iterator[WebServer]:
    with web_server(guarded[0], "--web-rate", "0") as running:
        yield running


@pytest.fixture
def http(server: WebServer) -> Iterator[httpx2.Client]:
    """A client of its own per test: a login's cookie stays in its jar."""
    with httpx2.Client(base_url=server.url, follow_redirects=False) as client:
        yield client


def _mcp(http: httpx2.Client, headers: dict[str, str]) -> httpx2.Response:
    return http.post("mcp", json=MCP_INIT, headers={**MCP_HEADERS, **headers})


# --new-token


def test_new_token_prints_a_long_random_token(guarded: tuple[Path, str]) -> None:
    assert len(guarded[1]) >= 40


def test_only_the_tokens_hash_is_stored(guarded: tuple[Path, str]) -> None:
    stored = (guarded[0] / "index" / TOKEN_FILE).read_text().strip()
    assert stored == hashlib.sha256(guarded[1].encode()).hexdigest()


def test_the_token_is_in_no_file_of_the_project(guarded: tuple[Path, str]) -> None:
    holding = [p for p in guarded[0].rglob("*") if p.is_file() and guarded[1] in _text(p)]
    assert holding == []


def test_the_hash_file_is_readable_by_its_owner_only(guarded: tuple[Path, str]) -> None:
    mode = stat.S_IMODE((guarded[0] / "index" / TOKEN_FILE).stat().st_mode)
    assert mode == 0o600


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


# Refusing to start


def test_a_network_address_without_a_token_is_refused(tmp_path: Path) -> None:
    refused = _pdfindex("web", "--root", str(_project(tmp_path)), "--host", "0.0.0.0")
    assert refused.returncode == 2
    assert "--new-token" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


# /mcp: the bearer token


def test_mcp_without_a_token_is_401(http: httpx2.Client) -> None:
    assert _mcp(http, {}).status_code == 401


def test_mcp_401_says_how_to_authenticate(http: httpx2.Client) -> None:
    assert _mcp(http, {}).headers["www-authenticate"].startswith("Bearer")


def test_mcp_with_a_wrong_token_is_401(http: httpx2.Client) -> None:
    assert _mcp(http, {"Authorization": "Bearer not-the-token"}).status_code == 401


def test_mcp_with_the_login_cookie_is_still_401(
    http: httpx2.Client, guarded: tuple[Path, str]
) -> None:
    cookie = _login(http, guarded[1]).cookies["pdfindex_session"]
    assert _mcp(http, {"Cookie": f"pdfindex_session={cookie}"}).status_code == 401


def test_mcp_with_the_token_lists_every_tool(server: WebServer, guarded: tuple[Path, str]) -> None:
    async def script() -> int:
        async with http_client(server.url, token=guarded[1]) as client:
            return len((await client.list_tools()).tools)

    assert anyio.run(script) == 19


# Host and Origin (DNS rebinding), with the right token


def test_a_foreign_origin_is_403(http: httpx2.Client, guarded: tuple[Path, str]) -> None:
    headers = {"Authorization": f"Bearer {guarded[1]}", "Origin": "http://evil.example"}
    assert _mcp(http, headers).status_code == 403


def test_the_servers_own_origin_passes(
    http: httpx2.Client, server: WebServer, guarded: tuple[Path, str]
) -> None:
    headers = {"Authorization": f"Bearer {guarded[1]}", "Origin": f"http://{server.host}"}
    assert _mcp(http, headers).status_code == 200


def test_a_rebound_host_name_is_421(http: httpx2.Client, guarded: tuple[Path, str]) -> None:
    headers = {"Authorization": f"Bearer {guarded[1]}", "Host": "evil.example:8765"}
    assert _mcp(http, headers).status_code == 421


# Pages: the login form and its cookie


def _login(http: httpx2.Client, token: str, next_path: str = "/") -> httpx2.Response:
    return http.post("login", data={"token": token, "next": next_path})


def test_a_page_without_login_goes_to_the_form(http: httpx2.Client) -> None:
    assert http.get("/").headers["location"] == "/login?next=/"


def test_the_login_form_is_served(http: httpx2.Client) -> None:
    assert 'name="token"' in http.get("login").text


def test_a_wrong_token_at_login_is_401(http: httpx2.Client) -> None:
    assert _login(http, "not-the-token").status_code == 401


def test_the_right_token_at_login_sets_a_strict_httponly_cookie(
    http: httpx2.Client, guarded: tuple[Path, str]
) -> None:
    cookie = _login(http, guarded[1]).headers["set-cookie"].lower()
    assert ("httponly" in cookie, "samesite=strict" in cookie) == (True, True)


def test_the_cookie_is_not_the_token(http: httpx2.Client, guarded: tuple[Path, str]) -> None:
    assert guarded[1] not in _login(http, guarded[1]).headers["set-cookie"]


def test_login_goes_on_to_a_path_of_this_server_only(
    http: httpx2.Client, guarded: tuple[Path, str]
) -> None:
    assert _login(http, guarded[1], "//evil.example/x").headers["location"] == "/"


def test_the_cookie_opens_the_page(http: httpx2.Client, guarded: tuple[Path, str]) -> None:
    cookie = _login(http, guarded[1]).cookies["pdfindex_session"]
    assert http.get("/", headers={"Cookie": f"pdfindex_session={cookie}"}).status_code == 200


def test_a_forged_cookie_does_not(http: httpx2.Client) -> None:
    forged = "9999999999.00112233445566778899aabbccddeeff"
    page = http.get("/", headers={"Cookie": f"pdfindex_session={forged}"})
    assert page.status_code == 303


def test_the_pages_api_without_credentials_is_401(http: httpx2.Client) -> None:
    assert http.get("api/search", params={"q": "zeppelin"}).status_code == 401


def test_the_pages_events_without_credentials_are_401(http: httpx2.Client) -> None:
    assert http.get("events").status_code == 401


def test_the_pages_api_takes_the_bearer_token(
    http: httpx2.Client, guarded: tuple[Path, str]
) -> None:
    answer = http.get("api/anything", headers={"Authorization": f"Bearer {guarded[1]}"})
    assert answer.status_code != 401


# The log


def test_each_request_is_logged(server: WebServer, http: httpx2.Client) -> None:
    _mcp(http, {})
    assert "POST /mcp 401" in _logs(server)


def test_the_log_holds_neither_the_token_nor_a_cookie(
    server: WebServer, http: httpx2.Client, guarded: tuple[Path, str]
) -> None:
    cookie = _login(http, guarded[1]).cookies["pdfindex_session"]
    http.get("/", headers={"Cookie": f"pdfindex_session={cookie}"})
    http.get("api/x", params={"token": guarded[1]})  # a token in a URL, by mistake
    logs = _logs(server)
    assert [secret for secret in (guarded[1], cookie) if secret in logs] == []


def test_a_secret_looking_query_parameter_is_masked(server: WebServer, http: httpx2.Client) -> None:
    http.get("api/x", params={"token": "in-the-url", "q": "kept"})
    assert "/api/x?token=%2A%2A%2A&q=kept" in _logs(server)


def _logs(server: WebServer) -> str:
    root = server.stderr.parent
    return "".join(_text(p) for p in sorted((root / "logs").glob("*.log*"))) + _text(server.stderr)


# Loopback without a token, and the rate limit


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    root = _project(tmp_path_factory.mktemp("open"))
    env = {"PDFINDEX_WEB_BURST": "3"}
    with web_server(root, "--web-rate", "0.5", env=env) as running:
        yield running


def test_on_loopback_without_a_token_a_rebound_host_is_still_421(open_server: WebServer) -> None:
    with httpx2.Client(base_url=open_server.url) as http:
        assert http.get("/", headers={"Host": "evil.example"}).status_code == 421


def test_past_the_rate_limit_a_client_gets_429_with_retry_after(open_server: WebServer) -> None:
    with httpx2.Client(base_url=open_server.url) as http:
        answers = [http.get("login") for _ in range(6)]
    limited = [a for a in answers if a.status_code == 429]
    assert limited[0].headers["retry-after"].isdigit()
