"""Searches answered by a running `pdfindex watch`, `serve` or `web`: it listens on a
Unix socket in its index folder (`search.sock`, this user's only), and a `pdfindex
search` of the same settings (pdfindex.quick) hands over its arguments and gets back
what the search prints and its exit code, in a few milliseconds instead of the ~110 ms
of a process that loads the engine itself.

The search runs as the click command it is (the same parsing, output and exit codes),
with the process's open index. It is answered only when the asking process has the same
root (made absolute there) and PDFINDEX_* environment, and its flags resolve to the
process's own settings (but for its own command's flags: options.searches_alike);
otherwise the reply is "elsewhere" and it searches itself.
One search at a time; a request not sent within REQUEST_WITHIN seconds, or a reply not
read within REPLY_WITHIN, is dropped.
"""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import stat
import struct
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from pdfindex.cli.options import Elsewhere, Output, Resident
from pdfindex.config import EVERY_COMMAND, SETTINGS

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex

log = logging.getLogger(__name__)

SOCKET_NAME = "search.sock"  # in the index folder; pdfindex.quick looks for it there
REQUEST_WITHIN = 5.0  # seconds to send a request in
REPLY_WITHIN = 30.0  # seconds the caller has to read the reply
MOST_REQUEST = 1 << 20  # bytes
MOST_PATH = 100  # bytes of a Unix socket's path (108 on Linux, 104 on macOS, with the NUL)
ELSEWHERE = {"elsewhere": True}


class ResidentSearch:
    """The socket and the thread answering on it, for as long as the process runs."""

    def __init__(self, index: PdfIndex, command: click.Command) -> None:
        self.index = index
        self.command = command
        self.path = str(index.settings.index_dir / SOCKET_NAME)
        self._listener: socket.socket | None = None
        self._bound: tuple[int, int] | None = None  # (device, inode) of the socket made

    def start(self) -> bool:
        """Listen, unless the path is too long or another live process listens there;
        whether this one does."""
        if not hasattr(socket, "AF_UNIX") or not hasattr(os, "getuid"):
            log.info("resident search off: no Unix sockets here")
            return False
        if len(os.fsencode(self.path)) > MOST_PATH:
            log.info("resident search off: %s is too long for a socket", self.path)
            return False
        if _listened_on(self.path):
            log.info("resident search off: another process answers on %s", self.path)
            return False
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)  # rw for this user only, from the moment it exists
        try:
            if os.path.lexists(self.path):  # left by a process that ended without closing
                os.unlink(self.path)
            listener.bind(self.path)
        except OSError as exc:
            listener.close()
            log.info("resident search off: %s: %s", self.path, exc)
            return False
        finally:
            os.umask(mask)
        listener.listen(16)
        made = os.stat(self.path)
        self._listener, self._bound = listener, (made.st_dev, made.st_ino)
        threading.Thread(target=self._serve, name="resident-search", daemon=True).start()
        log.info("resident search on %s", self.path)
        return True

    def close(self) -> None:
        """Stop listening and remove the socket, if it is still the one this made."""
        listener, self._listener = self._listener, None
        if listener is None:
            return
        try:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() waiting on it
        except OSError:
            pass
        listener.close()
        try:
            now = os.stat(self.path)
            if stat.S_ISSOCK(now.st_mode) and (now.st_dev, now.st_ino) == self._bound:
                os.unlink(self.path)
        except OSError:
            pass

    def _serve(self) -> None:
        while (listener := self._listener) is not None:
            try:
                conn, _ = listener.accept()
            except OSError:  # closed
                return
            with conn:
                try:
                    self._handle(conn)
                except Exception:  # one bad request never stops the watcher
                    log.exception("resident search: a request failed")

    def _handle(self, conn: socket.socket) -> None:
        if not _same_user(conn):
            return
        conn.settimeout(REQUEST_WITHIN)
        chunks, size = [], 0
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > MOST_REQUEST:
                return
        if not chunks:  # a probe (another process's _listened_on), or a client gone
            return
        try:
            request = json.loads(b"".join(chunks))
        except ValueError:
            log.info("resident search: a request that is not JSON, dropped")
            return
        reply = self.answer(request) if isinstance(request, dict) else ELSEWHERE
        conn.settimeout(REPLY_WITHIN)  # a caller that never reads does not hold us
        conn.sendall(json.dumps(reply).encode())

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request: the search's exit code and output, or ELSEWHERE."""
        argv, widths, program = request.get("argv"), request.get("columns"), request.get("program")
        if not isinstance(program, str) or not 0 < len(program) <= 200:
            return ELSEWHERE
        if not isinstance(argv, list) or argv[:1] != ["search"]:
            return ELSEWHERE
        leading = request.get("leading", [])  # flags given before `search`: settings only
        if not isinstance(leading, list) or not set(leading) <= _settings_flags():
            return ELSEWHERE
        if not all(isinstance(arg, str) for arg in argv):
            return ELSEWHERE
        root = request.get("root")
        if not isinstance(root, str) or argv[1:3] != ["--root", root]:
            return ELSEWHERE
        if os.path.realpath(root) != os.path.realpath(self.index.settings.root):
            return ELSEWHERE
        if request.get("env") != _own_environment():
            return ELSEWHERE
        if not (isinstance(widths, list) and len(widths) == 2):
            return ELSEWHERE
        if not all(w is None or (isinstance(w, int) and w > 0) for w in widths):
            return ELSEWHERE
        printed: list[list[Any]] = []  # [fd, text]: stdout and stderr in the order written
        out, err = _Recorded(printed, 1), _Recorded(printed, 2)
        resident = Resident(self.index, Output(out, err, (widths[0], widths[1])))
        try:
            code = self.command.main(
                args=argv[1:], prog_name=f"{program} search", standalone_mode=False, obj=resident
            )
        except Elsewhere:
            return ELSEWHERE
        except click.ClickException as exc:
            exc.show(file=err)
            code = exc.exit_code
        except click.exceptions.Abort:
            return ELSEWHERE
        return {"code": code or 0, "output": printed}


class _Recorded(io.TextIOBase):
    """A stream whose text is kept in order with the other stream's, for the process that
    asked to print as it would have (a note on stderr before the results)."""

    def __init__(self, printed: list[list[Any]], fd: int) -> None:
        self.printed, self.fd = printed, fd

    def write(self, text: str) -> int:
        if self.printed and self.printed[-1][0] == self.fd:
            self.printed[-1][1] += text
        else:
            self.printed.append([self.fd, text])
        return len(text)


def answering(index: PdfIndex) -> Callable[[], None]:
    """Start answering `pdfindex search` from `index` (serve and web, beside their
    clients); what stops it."""
    from pdfindex.cli import search

    resident = ResidentSearch(index, search)
    resident.start()
    return resident.close


def _listened_on(path: str) -> bool:
    """Whether a live process listens on the socket at `path`: only a refused connection
    (or no file) says none does; a full queue of connections (EAGAIN) or a slow answer
    is a busy one, whose socket must not be taken over."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except (ConnectionRefusedError, FileNotFoundError, NotADirectoryError):
            return False
        except OSError:
            return True
    return True


def _same_user(conn: socket.socket) -> bool:
    """Whether the process at the other end runs as this user (Linux's SO_PEERCRED;
    elsewhere the socket's mode alone keeps others out)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    credentials = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return bool(uid == os.getuid())


def _settings_flags() -> set[str]:
    """The flags every command takes before or after its name."""
    return {row.option for row in SETTINGS.values() if row.flag == EVERY_COMMAND}


def _own_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("PDFINDEX_")}
