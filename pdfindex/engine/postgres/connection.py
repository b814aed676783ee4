"""Connections to the database, and the database's refusals in pdfindex's words.

libpq's own messages are never shown: parsing a URL whose password holds `%`, `/` or `@`
unencoded, it repeats parts of the password (`invalid percent-encoded token: "Pa55%Secret"`,
`host=Secret@db`), and a database name it misread comes back in the server's answer.
A connection error is said from the URL as pdfindex.config.masking.without_password shows it and
the kind of failure; a write the database refuses (a user that may only read, a read-only
database or hot standby) is said by the privilege or setting that refused it.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg

from pdfindex.engine.postgres.schema import TABLES
from pdfindex.errors import ConfigError, ReadOnlyIndex

CONNECT_TIMEOUT = 10  # seconds
REFUSALS = (psycopg.errors.ReadOnlySqlTransaction, psycopg.errors.InsufficientPrivilege)
WRITES = ("INSERT", "UPDATE", "DELETE")  # what the writer does to each pdfindex table
ENCODE = (
    "in a URL, a password holding / @ or % is percent-encoded (/ as %2F, @ as %40, % as "
    "%25); in a key=value string, one holding spaces or ' is single-quoted (\\' inside)"
)
# In a URL's `user:password@`, what libpq takes for the password's end, or a bad escape.
_MISREAD = re.compile(r"[/@]|%(?![0-9A-Fa-f]{2})")
# libpq's connection failures, recognised by its text (never shown) -> what to say.
_FAILURES = (
    (r"database \".*\" does not exist", "that database does not exist on the server"),
    (r"role \".*\" does not exist", "that user (role) does not exist on the server"),
    (r"password authentication failed", "the server refused the user's password"),
    (r"no password supplied", "the server asks for a password and the URL gives none"),
    (r"no pg_hba\.conf entry", "the server's pg_hba.conf admits no such connection"),
    (r"permission denied for database", "the user may not connect to that database"),
    (r"authentication", "the server refused the user's credentials"),
    (r"resolve host|translate host name|Name or service not known", "the host is not known"),
    (r"Connection refused|No such file or directory", "no server accepts connections there"),
    (r"timeout expired|timed out", f"no answer within {CONNECT_TIMEOUT} s"),
    (r"starting up|shutting down|in recovery mode", "the server is starting or stopping"),
    (r"too many (clients|connections)|connection slots", "the server has no connection free"),
    (r"SSL|GSS|certificate", "the SSL negotiation failed (sslmode, certificates)"),
    (r"invalid integer value|invalid port", f"the port is not a number ({ENCODE})"),
    (r"closed the connection", "the server closed the connection"),
)


def connect(url: str, where: str, autocommit: bool) -> psycopg.Connection[Any]:
    """A connection to `url`; a failure as ConfigError naming `where` ('database …' or
    'read replica …', shown without the password) and what failed, never libpq's text."""
    try:
        connection = psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.Error as exc:
        why = _misread(url) or failure(exc)
    else:
        # Every statement planned for its own values: psycopg prepares a statement run five
        # times, and PostgreSQL may then keep one plan for any tsquery; exact search for an
        # absent string (`grams @@ $1`) took 205 ms so at 48,000 pages, by a scan in (path,
        # page) order, against 0.2 ms. Still prepared: parsing saved (not preparing at all
        # cost `search_pdf` 0.9 ms more, planning each 0.4).
        connection.execute("SET plan_cache_mode = force_custom_plan")
        if not autocommit:
            connection.commit()
        return connection
    # Raised outside the handler, so no traceback chains libpq's message to it.
    raise ConfigError(f"cannot connect to the {where}: {why}")


def _misread(url: str) -> str | None:
    """Why libpq misread a URL whose password holds / @ or a lone % unencoded
    (None when it does not): it takes the password's end for the host or database."""
    scheme = re.match(r"\s*[A-Za-z][A-Za-z0-9+.-]*://", url)
    if scheme is None:
        return None
    colon, at = url.find(":", scheme.end()), url.rfind("@")
    if not scheme.end() <= colon < at or not _MISREAD.search(url[colon + 1 : at]):
        return None
    return f"the password in the URL is misread: {ENCODE}"


def failure(exc: psycopg.Error) -> str:
    """What a failed connection attempt means, in pdfindex's words."""
    if isinstance(exc, psycopg.ProgrammingError):  # libpq could not parse it
        return f"it cannot be read as a PostgreSQL URL or key=value string ({ENCODE})"
    text = str(exc)
    for pattern, meaning in _FAILURES:
        if re.search(pattern, text, re.IGNORECASE):
            return meaning
    return f"the connection failed (check the host, port, user and password; {ENCODE})"


def refused(
    exc: BaseException,
    connection: psycopg.Connection[Any],
    where: str,
    doing: str = "indexing",
    searchable: bool = True,
) -> ReadOnlyIndex | None:
    """The error to show for a write the database refused (a read-only transaction, a
    missing privilege), naming the setting or privilege that refused it and what was
    `doing` it (`searchable`: the index is there to search); None for any other error.
    `connection`'s failed transaction is over."""
    still = "; searches still work" if searchable else ""
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return ReadOnlyIndex(_read_only_why(connection, where, doing) + still)
    if not isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return None
    user = _value(connection, "SELECT current_user") or "?"
    primary = exc.diag.message_primary or "insufficient privilege"
    named = re.search(r"\b(pdfindex_\w+)", primary)
    first = [named.group(1)] if named and named.group(1) in TABLES else []
    for table in [*first, *TABLES]:
        missing = _missing(connection, table)
        if missing:
            lacks = " and ".join(filter(None, [", ".join(missing[:-1]), missing[-1]]))
            return ReadOnlyIndex(
                f"the database user {user} may only read the {where}: {lacks} on table "
                f"{table} {'was' if len(missing) == 1 else 'were'} refused ({doing} needs "
                f"INSERT, UPDATE and DELETE on the pdfindex tables){still}"
            )
    return ReadOnlyIndex(
        f"the database user {user} was refused a privilege that {doing} in the {where} "
        f"needs ({primary}){still}"
    )


def unreadable(exc: BaseException, connection: psycopg.Connection[Any], where: str) -> ConfigError:
    """A read the database refused (the user lacks SELECT), naming the privilege."""
    user = _value(connection, "SELECT current_user") or "?"
    primary = exc.diag.message_primary if isinstance(exc, psycopg.Error) else None
    named = re.search(r"\b(pdfindex_\w+)", primary or "")
    what = f"SELECT on table {named.group(1)} was refused" if named else primary or str(exc)
    return ConfigError(f"the database user {user} may not read the index in the {where}: {what}")


def _read_only_why(connection: psycopg.Connection[Any], where: str, doing: str) -> str:
    if _value(connection, "SELECT pg_is_in_recovery()"):
        return (
            f"the {where} is a read-only hot standby: {doing} needs database_url to name "
            "its primary (read_url may name the standby)"
        )
    if _value(connection, "SELECT current_setting('default_transaction_read_only')") == "on":
        return (
            f"the {where} is read-only (default_transaction_read_only = on): {doing} needs it off"
        )
    return f"the {where} is read-only (transaction_read_only = on): {doing} was refused"


def _missing(connection: psycopg.Connection[Any], table: str) -> list[str]:
    """The writes of WRITES the connection's user may not do on `table` (none when the
    table is not there)."""
    try:
        rows = connection.execute(
            "SELECT p FROM unnest(%s::text[]) WITH ORDINALITY AS w(p, n)"
            " WHERE to_regclass(%s) IS NOT NULL AND NOT has_table_privilege(to_regclass(%s), p)"
            " ORDER BY n",
            (list(WRITES), table, table),
        ).fetchall()
    except psycopg.Error:
        _rollback(connection)
        return []
    return [p for (p,) in rows]


def _value(connection: psycopg.Connection[Any], sql: str) -> Any:
    try:
        row = connection.execute(sql).fetchone()  # type: ignore[arg-type]
    except psycopg.Error:
        _rollback(connection)
        return None
    return row[0] if row else None


def _rollback(connection: psycopg.Connection[Any]) -> None:
    try:
        connection.rollback()
    except psycopg.Error:  # a broken connection: the refusal is what to show
        pass
