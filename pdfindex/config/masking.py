"""The one masking rule: a database URL or connection string as settings, messages and
logs may show it, every secret in it hidden."""

from __future__ import annotations

import re
from urllib.parse import unquote


def without_password(url: str) -> str:
    """A database URL or key=value connection string as settings, messages and logs may
    show it: every secret in it replaced by `***` (the URL's `user:password@`; a
    `password`, `sslpassword` or other secret parameter under any spelling, percent-encoded
    keys such as `passwor%64` included; quoted or unquoted key=value values; the value of
    a parameter libpq does not know, which may be a misspelt password). The one masking
    rule of the package. Text that does not parse is masked generously: what cannot be
    told apart from a password is hidden with it."""
    scheme = re.match(r"\s*[A-Za-z][A-Za-z0-9+.-]*://", url)
    spans = _url_secrets(url, scheme.end()) if scheme else _conninfo_secrets(url)
    merged: list[list[int]] = []
    for start, stop in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    shown, end = [], 0
    for start, stop in merged:
        shown.append(url[end:start] + "***")
        end = stop
    return "".join(shown) + url[end:]


# Connection parameters whose value is a secret (libpq's keywords, case ignored).
_SECRET_KEY = re.compile(r"\w*(?:password|secret)|scram_\w*key", re.IGNORECASE)
# libpq's connection parameters: a URL's secret value runs to the next `&` naming one.
_LIBPQ_KEYS = frozenset(
    "application_name channel_binding client_encoding connect_timeout dbname "
    "fallback_application_name gssdelegation gssencmode gsslib host hostaddr keepalives "
    "keepalives_count keepalives_idle keepalives_interval krbsrvname load_balance_hosts "
    "max_protocol_version min_protocol_version oauth_client_id oauth_client_secret "
    "oauth_issuer oauth_scope options passfile password port replication require_auth "
    "requirepeer scram_client_key scram_server_key service ssl_max_protocol_version "
    "ssl_min_protocol_version sslcert sslcertmode sslcompression sslcrl sslcrldir sslkey "
    "sslkeylogfile sslmode sslnegotiation sslpassword sslrootcert sslsni "
    "target_session_attrs tcp_user_timeout user".split()
)
_QUERY_KEY = re.compile(r"[?&]([^=&?]*)=")
_CONNINFO_KEY = re.compile(r"\s*([^\s=]+)\s*=\s*")
# A key=value value: quoted, unquoted up to a space, or empty (backslash escapes in both).
_CONNINFO_VALUE = re.compile(r"'(?:[^'\\]|\\.)*'|(?!')(?:[^\s\\]|\\.)+|(?=\s|$)", re.DOTALL)


def _is_secret(key: str) -> bool:
    """A parameter whose value is hidden: a secret one, or one libpq does not know."""
    name = unquote(key).strip()
    return _SECRET_KEY.fullmatch(name) is not None or name not in _LIBPQ_KEYS


def _url_secrets(url: str, after_scheme: int) -> list[tuple[int, int]]:
    """Where a URL's secrets are: from the first `:` after the scheme to the last `@`
    (a password holding `/ ? # @` unencoded is still all inside), and the value of each
    secret query parameter, up to the next `&` that names a libpq parameter."""
    spans = []
    colon, at = url.find(":", after_scheme), url.rfind("@")
    if after_scheme <= colon < at:
        spans.append((colon + 1, at))
    keys = list(_QUERY_KEY.finditer(url, after_scheme))
    for n, key in enumerate(keys):
        if _is_secret(key.group(1)):
            later = (k for k in keys[n + 1 :] if k.group()[0] == "&")
            named = (k.start() for k in later if unquote(k.group(1)).strip() in _LIBPQ_KEYS)
            stop = next(named, len(url))
            spans.append((key.end(), stop))
    return spans


def _conninfo_secrets(text: str) -> list[tuple[int, int]]:
    """Where a key=value string's secrets are (libpq's syntax: values unquoted up to a
    space, or in single quotes; backslash escapes in both). A value holding a URL or
    key=value string of its own (dbname may) is searched too; past a syntax error,
    everything is hidden."""
    spans: list[tuple[int, int]] = []
    position = 0
    while text[position:].strip():
        key = _CONNINFO_KEY.match(text, position)
        found = _CONNINFO_VALUE.match(text, key.end()) if key else None
        if key is None or found is None:  # not libpq's syntax: hide the rest
            spans.append((len(text) - len(text[position:].lstrip()), len(text)))
            break
        if _is_secret(key.group(1)):
            spans.append(found.span())
        elif "=" in found.group() or "://" in found.group():
            inner = found.group()
            masked = without_password(inner)
            if masked != inner:
                spans.append(found.span())
        position = found.end()
    return spans
