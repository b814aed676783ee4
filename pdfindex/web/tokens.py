"""The web server's token: made by `pdfindex web --new-token`, of which only the SHA-256
is kept (a file in the index folder, readable by its owner only), and the login cookie,
which is an expiry signed with a key the server draws at start (never the token).

A token is 32 random bytes: a plain SHA-256 of it cannot be reversed by guessing, so it
needs no slow hash; comparisons go through `hmac.compare_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path

TOKEN_FILE = "web-token.sha256"
COOKIE_SECONDS = 12 * 3600  # a login lasts half a day (or until the server restarts)


def token_file(index_dir: Path) -> Path:
    return index_dir / TOKEN_FILE


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token(index_dir: Path) -> str:
    """A fresh token; its hash replaces the stored one (the old token stops working at
    the server's next start)."""
    token = secrets.token_urlsafe(32)
    index_dir.mkdir(parents=True, exist_ok=True)
    path = token_file(index_dir)
    part = path.with_name(path.name + ".part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(digest(token) + "\n")
    os.chmod(part, 0o600)  # an older .part may have had wider rights
    os.replace(part, path)
    return token


def stored_hash(index_dir: Path) -> str | None:
    """The stored token hash, or None when no token was made."""
    try:
        text = token_file(index_dir).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    return text or None


class Keys:
    """What the running server checks a request's credentials against."""

    def __init__(self, token_hash: str | None) -> None:
        self.token_hash = token_hash
        self._cookie_key = secrets.token_bytes(32)  # cookies die with the process

    @property
    def required(self) -> bool:
        return self.token_hash is not None

    def token_ok(self, token: str) -> bool:
        if self.token_hash is None:
            return False
        return hmac.compare_digest(digest(token), self.token_hash)

    def new_cookie(self, now: float | None = None) -> str:
        expires = int((now if now is not None else time.time()) + COOKIE_SECONDS)
        return f"{expires}.{self._sign(expires)}"

    def cookie_ok(self, value: str, now: float | None = None) -> bool:
        expires_text, _, signature = value.partition(".")
        if not expires_text.isdigit() or not signature:
            return False
        expires = int(expires_text)
        if expires < (now if now is not None else time.time()):
            return False
        return hmac.compare_digest(signature, self._sign(expires))

    def _sign(self, expires: int) -> str:
        return hmac.new(self._cookie_key, str(expires).encode(), hashlib.sha256).hexdigest()
