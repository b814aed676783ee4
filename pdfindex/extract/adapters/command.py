"""Custom adapters: a program that prints a file's text (seed 001's `custom_adapters`,
declared in pdfindex.toml, `pdfindex.config.adapters`).

The program runs without a shell: its argument list is `command` then `args`, where
`$input` becomes the file's path and nothing else is substituted, so no file name is
ever read by a shell. The path is the one the worker opened and checked
(`/proc/self/fd/N`, passed down to the program), so the program reads the very file the
scan found even if its name is swapped for a link meanwhile; a program that guesses the
format from the extension must be told it (`pandoc -f docx`).

Limits: the file's time limit (what is left of `timeout`), after which the program and
anything it started are killed; `memory_mb` of address space (RLIMIT_AS, set in the
child before it starts); its output is read up to MAX_OUTPUT bytes. A non-zero exit or a
time-out fails that file, with the last line the program wrote to stderr.
"""

from __future__ import annotations

import ctypes
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pdfindex.config.adapters import INPUT, CustomAdapter
from pdfindex.extract.adapters.base import Extraction, finish
from pdfindex.models import FileStatus

MAX_OUTPUT = 64 * 1024 * 1024  # bytes of text read from a program; the rest is cut
STDERR_KEPT = 64 * 1024  # the tail of stderr kept for the error message
CHUNK = 1 << 16
_PR_SET_PDEATHSIG = 1  # prctl: a signal the child gets when its parent (the worker) dies


class CommandAdapter:
    """Runs one custom adapter's program on a file."""

    def __init__(self, spec: CustomAdapter, seconds: float, memory_mb: int) -> None:
        self.spec, self.seconds, self.memory_mb = spec, seconds, memory_mb
        self.name = spec.name
        self.extensions = spec.extensions
        self.description = spec.description

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def binary(self) -> str:
        return self.spec.command

    def argv(self, path: Path) -> list[str]:
        """The program and its arguments: `$input` replaced by the file's path, nothing else."""
        return [self.spec.command, *(arg.replace(INPUT, str(path)) for arg in self.spec.args)]

    def extract(self, path: Path) -> Extraction:
        shown = f"custom adapter {self.name!r} ({self.spec.command})"
        fd = _inherited_fd(path)
        try:
            process = subprocess.Popen(
                self.argv(path),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(fd,) if fd is not None else (),
                start_new_session=True,  # its own process group: a time-out kills it all
                preexec_fn=_child_limits(self.memory_mb),  # noqa: PLW1509 (one thread)
            )
        except OSError as exc:
            return self._failed(f"{shown} cannot be started: {exc.strerror or exc}")
        out, err, timed_out = _collect(process, time.monotonic() + self.seconds)
        if timed_out:
            return self._failed(
                f"timeout: {shown} ran past the time limit of {self.seconds:g} s and was "
                "stopped (raise `timeout` to give it longer)"
            )
        if process.returncode != 0:
            code = process.returncode
            how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
            said = _last_line(err)
            return self._failed(f"{shown} {how}" + (f": {said}" if said else ""))
        text = bytes(out[:MAX_OUTPUT]).decode("utf-8", errors="replace")
        extraction = finish(text.split("\f") if "\f" in text else [text], {}, self.version)
        if len(out) > MAX_OUTPUT:
            extraction.notes.append(
                f"text: {shown} printed more than {MAX_OUTPUT:,} bytes; the rest is cut"
            )
        return extraction

    def _failed(self, error: str) -> Extraction:
        return Extraction(status=FileStatus.FAILED, error=error, engine=self.version)


def _inherited_fd(path: Path) -> int | None:
    """The descriptor behind `/proc/self/fd/N` (or `/dev/fd/N`), which the program must
    inherit to open that name as the same file; None for an ordinary path."""
    if str(path.parent) in ("/proc/self/fd", "/dev/fd") and path.name.isdigit():
        return int(path.name)
    return None


def _child_limits(memory_mb: int) -> Callable[[], None]:
    """What runs in the child before the program: its address space capped at
    `memory_mb` (never above the worker's own cap), and on Linux a SIGKILL when the
    worker dies (the pool kills a worker past its limits: the program goes with it)."""
    import resource

    wanted = memory_mb * 1024 * 1024
    prctl = None
    if sys.platform.startswith("linux"):
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            prctl = None

    def limits() -> None:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return limits


def _collect(process: subprocess.Popen[bytes], deadline: float) -> tuple[bytearray, bytes, bool]:
    """(stdout up to MAX_OUTPUT + 1 bytes, stderr's tail, whether time ran out), reading
    both pipes as they fill; the program's whole process group is killed on a time-out
    and once its output is past MAX_OUTPUT (what was read is kept)."""
    assert process.stdout is not None
    assert process.stderr is not None
    out, err = bytearray(), bytearray()
    timed_out = False
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _events in selector.select(min(left, 1.0)):
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if key.data is err and len(err) > STDERR_KEPT:
                    del err[: len(err) - STDERR_KEPT]
            if len(out) > MAX_OUTPUT:
                break
    if timed_out or len(out) > MAX_OUTPUT:
        _kill_group(process)
    process.stdout.close()
    process.stderr.close()
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()) + 1.0)
    except subprocess.TimeoutExpired:  # its output closed, but it goes on
        _kill_group(process)
        process.wait()
        timed_out = True
    if len(out) > MAX_OUTPUT and not timed_out:
        process.returncode = 0  # killed by us for its size: what it printed is the text
    return out, bytes(err), timed_out


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _last_line(stderr: bytes) -> str:
    """The last non-empty line the program wrote to stderr, at most 300 characters."""
    lines = [line.strip() for line in stderr.decode("utf-8", errors="replace").splitlines()]
    said = next((line for line in reversed(lines) if line), "")
    return said if len(said) <= 300 else said[:299] + "…"
