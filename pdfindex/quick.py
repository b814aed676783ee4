"""The `pdfindex` command's first step: a `pdfindex search` is handed to a running
`pdfindex watch`, `serve` or `web` of the same settings when there is one
(pdfindex.cli.resident), which answers from its open index in a few milliseconds; a
process that loads click, the settings and the engine itself takes ~110 ms. Everything
else, and any search the resident process does not answer (none runs, other settings,
`--help`, an error of its own), goes to the click CLI as before. This module loads only
os, sys, json and _socket.

PDFINDEX_RESIDENT=0 never hands a search over.
"""

from __future__ import annotations

import os
import sys

SOCKET_NAME = "search.sock"  # in the index folder, where pdfindex.cli.resident listens
OPT_OUT = "PDFINDEX_RESIDENT"
ANSWER_WITHIN = 120.0  # seconds a handed-over search may take before this process does it
MOST_REPLY = 64 << 20  # bytes of answer read at most


def main() -> None:
    code = handed_over(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from pdfindex.cli import main as cli

    cli()


def handed_over(argv: list[str]) -> int | None:
    """The exit code of `pdfindex search ...` answered by a resident process, its output
    written here; None when none answered (this process must search itself)."""
    leading = _leading(argv)  # settings flags before the command's name, `--root X search`
    argv = [*argv[len(leading) : len(leading) + 1], *leading, *argv[len(leading) + 1 :]]
    if argv[:1] != ["search"] or os.environ.get(OPT_OUT) == "0":
        return None
    if not hasattr(os, "getuid"):  # no Unix sockets of one user's (Windows)
        return None
    if "-h" in argv or "--help" in argv:  # click prints help itself
        return None
    root = os.path.abspath(
        os.path.expanduser(_flag(argv, "--root") or os.environ.get("PDFINDEX_ROOT") or ".")
    )
    address = socket_path(root, argv[1:])
    try:  # a door of this user's only (the index folder is theirs)
        if address is None or os.stat(address).st_uid != os.getuid():
            return None
    except OSError:
        return None
    import json

    try:  # the C module socket.py wraps: socket.py loads selectors and builds enums (~6 ms)
        import _socket as socket
    except ImportError:  # an interpreter without it
        import socket  # type: ignore[no-redef]

    request = {  # the root made absolute here: the resident process has its own folder
        "argv": ["search", "--root", root, *_without(argv[1:], "--root")],
        "root": root,
        "program": program_name(),
        "leading": [arg.split("=", 1)[0] for arg in leading if arg.startswith("--")],
        "env": {k: v for k, v in os.environ.items() if k.startswith("PDFINDEX_")},
        "columns": [columns(1), columns(2)],
    }
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(ANSWER_WITHIN)
        conn.connect(address)
        conn.sendall(json.dumps(request).encode() + b"\n")
        conn.shutdown(socket.SHUT_WR)
        chunks, size = [], 0
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > MOST_REPLY:
                return None
        reply = json.loads(b"".join(chunks))
    except (OSError, ValueError):  # none listening, stale, timed out, or garbled
        return None
    finally:
        conn.close()
    if not isinstance(reply, dict) or not isinstance(reply.get("code"), int):
        return None  # "elsewhere": other settings than the resident process's
    printed = reply.get("output")
    if not isinstance(printed, list) or not all(
        isinstance(c, list) and len(c) == 2 and c[0] in (1, 2) and isinstance(c[1], str)
        for c in printed
    ):
        return None
    try:
        for fd, text in printed:  # stdout and stderr, in the order written
            stream = sys.stderr if fd == 2 else sys.stdout
            stream.write(text)
            stream.flush()
    except BrokenPipeError:  # `| head`: as click does, exit 1 without a word
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return int(reply["code"])


def socket_path(root: str, args: list[str]) -> str | None:
    """Where a resident process of these flags' settings listens: the index folder (flag,
    environment, pdfindex.toml, default, as pdfindex.config resolves it) under the root.
    The resident process checks that the search's settings are its own; this only finds
    its door. None when pdfindex.toml cannot be read (the CLI will say why)."""
    index_dir = _flag(args, "--index-dir") or os.environ.get("PDFINDEX_INDEX_DIR")
    toml_file = os.path.join(root, "pdfindex.toml")
    if index_dir is None and os.path.isfile(toml_file):
        import tomllib

        try:
            with open(toml_file, "rb") as handle:
                index_dir = tomllib.load(handle).get("index_dir")
        except (OSError, ValueError):
            return None
        if index_dir is not None and not isinstance(index_dir, str):
            return None
    folder = os.path.join(root, os.path.expanduser(index_dir or "index"))
    return os.path.join(folder, SOCKET_NAME)


def _flag(args: list[str], name: str) -> str | None:
    """The value of `--name X` or `--name=X` among the options (before `--`), the last
    one given as click takes it."""
    value = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(name + "="):
            value = arg[len(name) + 1 :]
    return value


def program_name() -> str:
    """What click calls this program in usage lines (its _detect_program_name): the
    script's name, or `python -m PACKAGE`."""
    package = getattr(sys.modules["__main__"], "__package__", None)
    path = sys.argv[0] if sys.argv and sys.argv[0] else "pdfindex"
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    return "python -m " + (package if name == "__main__" else f"{package}.{name}").lstrip(".")


def _leading(argv: list[str]) -> list[str]:
    """The `--name X` and `--name=X` options before the command's name: every command
    takes the settings flags there too (the resident process checks that they are)."""
    at = 0
    while at < len(argv) and argv[at].startswith("--") and len(argv[at]) > 2:
        at += 1 if "=" in argv[at] else 2
    return argv[:at] if at < len(argv) else []


def _without(args: list[str], name: str) -> list[str]:
    """The arguments without `--name X` and `--name=X` among the options (before `--`)."""
    kept, skip, options = [], False, True
    for arg in args:
        if skip:
            skip = False
        elif options and arg == name:
            skip = True
        elif not (options and arg.startswith(name + "=")):
            kept.append(arg)
        options = options and arg != "--"
    return kept


def columns(fd: int) -> int | None:
    """The width output to `fd` should fit, as pdfindex.cli.terminal.columns gives it:
    COLUMNS, else the terminal's; None for a pipe or a file."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return os.get_terminal_size(fd).columns if os.isatty(fd) else None
    except OSError:
        return None
