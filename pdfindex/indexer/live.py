"""Keeps the index in step with the files folder while a process runs (serve, watch).

The observer's threads only record which paths changed (a file, or a folder created,
moved or deleted); one writer thread waits for quiet (debounce) and then runs an
incremental reindex of those paths alone (and what is under a changed folder), which finds
out itself what changed (size+mtime, then hash). At 40,000 files a rescan of every file
took 16 s; one path, milliseconds. The whole folder is scanned at start, when the files
folder is replaced or its observer stopped, when asked (index_now), and every
`full_every` seconds, in case the kernel dropped events (an inotify queue overflow).
A file still being written is indexed once it is quiet; if it was caught half-written,
its next write events bring it back.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from pdfindex.errors import IndexLocked, IndexWriteError, ReadOnlyIndex, SourceTaken
from pdfindex.indexer.progress import Step
from pdfindex.indexer.update import Changes, Indexer
from pdfindex.memory import release_freed_memory
from pdfindex.models import Summary

log = logging.getLogger(__name__)
_IGNORED = {"opened", "closed_no_write"}  # our own reads trigger these
_DIRECTORY_NOISE = {"modified", "attrib", "closed"}
FOLDER_CHECK = 2.0  # seconds between two looks at which folder the files folder is
# watchdog holds an unmatched `moved from` 0.5 s (InotifyMoveEventGrouper.delay) before
# it says `deleted`; a run waits past it after a folder event (see LiveIndex.record).
MOVE_WAIT = 0.8
FULL_EVERY = 3600.0  # seconds between whole-folder scans of a live index (a safety net)


def _identity(folder: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the folder at that path now; None when there is none."""
    try:
        info = os.stat(folder)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


class _ChangeRecorder(FileSystemEventHandler):
    """Hands each changed path (both ends of a move) to `record` as (folder name, path
    relative to the folder), `name` "" for the files folder."""

    def __init__(self, record: Callable[[Changes, bool], None], name: str, folder: Path) -> None:
        self._record = record
        self._name = name
        self._folder = os.fsdecode(folder)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED:
            return
        if event.is_directory and event.event_type in _DIRECTORY_NOISE:
            return
        ends = [event.src_path, getattr(event, "dest_path", "")]
        changes = {(self._name, self._relative(end)) for end in ends if end}
        self._record(changes, event.is_directory)

    def _relative(self, path: bytes | str) -> str:
        """`path` relative to the followed folder; "" for the folder itself (or a path
        outside it, which only a whole scan can place)."""
        text = os.fsdecode(path)
        prefix = self._folder.rstrip(os.sep) + os.sep
        if not text.startswith(prefix):
            return ""
        return text[len(prefix) :].strip(os.sep).replace(os.sep, "/")


class LiveIndex:
    """A catch-up scan, then (with `watch`) a watchdog observer driving one writer thread."""

    def __init__(
        self,
        indexer: Indexer,
        watch: bool = True,
        quiet: float = 1.0,
        max_delay: float = 10.0,
        on_summary: Callable[[Summary], None] | None = None,
        on_step: Callable[[Step], None] | None = None,
        full_every: float = FULL_EVERY,
    ) -> None:
        self.indexer = indexer
        self.full_every = full_every  # seconds between whole-folder scans (a safety net)
        self.watch = watch
        self.quiet = quiet
        self.max_delay = max_delay
        self.on_summary = on_summary
        self.on_step = on_step  # called on the writer thread after each file of a run
        self.step: Step | None = None  # where the running reindex is; None between runs
        self.caught_up = threading.Event()
        self.last_summary: Summary | None = None
        self.last_error: str | None = None
        self.read_only: ReadOnlyIndex | None = None  # the database refused the last run's writes
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._first_event: float | None = None
        # What changed since the last run began; None: anything may have (a whole scan).
        self._changes: Changes | None = set()
        self._folder_event = False  # a folder event among them: quiet for MOVE_WAIT
        self._last_full = time.monotonic()
        self._last_event = 0.0
        self._busy = False
        self._runs = 0  # reindex runs finished, for index_now
        self._thread: threading.Thread | None = None
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._watched: tuple[int, int] | None = None  # the folder the observer follows
        self.folder_note: str | None = None  # the files folder was replaced or removed

    # -- life cycle ------------------------------------------------------------------

    def start(self) -> LiveIndex:
        pool = self.indexer.new_pool()
        self.indexer.shared_pool = pool  # before its workers start: close() stops them
        pool.warm()  # a landed file is extracted without waiting for a worker to start
        self._thread = threading.Thread(target=self._run, name="pdfindex-writer", daemon=True)
        self._thread.start()
        if self.watch:
            self._watch_folder()
        return self

    def _watch_folder(self) -> None:
        """Follow the folder now at the files folder's path (inotify follows a folder,
        not a path: one renamed away would be followed where it went)."""
        self._stop_observer()
        folder = self.indexer.settings.files_dir
        self._watched = _identity(folder)
        if self._watched is None:
            return
        observer = Observer()
        observer.schedule(_ChangeRecorder(self.record, "", folder), str(folder), recursive=True)
        for name, extra in self.indexer.folders.items():  # the `folders` setting's, each too
            if _identity(extra) is not None:
                recorder = _ChangeRecorder(self.record, name, extra)
                observer.schedule(recorder, str(extra), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer

    def add_folders(self, folders: dict[str, Path]) -> None:
        """Index and follow more folders from now on (the client's roots), each a source
        as the `folders` setting's are: the observer follows them and a scan runs."""
        new = {name: f for name, f in folders.items() if name not in self.indexer.folders}
        if not new:
            return
        self.indexer.folders.update(new)
        if self.watch:
            self._watch_folder()
        self.notify()

    def _stop_observer(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=10)
            self._observer = None

    def check_folder(self) -> None:
        """Notice the files folder replaced (renamed away, another made in its place) or
        removed: follow the new one and rescan, and say so in `folder_note`. An observer
        that stopped (its thread died) is started again, with a whole scan (what changed
        meanwhile was not seen); so is one every `full_every` seconds."""
        if self.watch and self._observer is not None and not self._observer.is_alive():
            log.warning("the watcher stopped: following the files folder again; rescanning")
            self._watch_folder()
            self.notify()
            return
        if time.monotonic() - self._last_full >= self.full_every:
            self.notify()  # a whole scan: events the kernel dropped are found
        if not self.watch or _identity(self.indexer.settings.files_dir) == self._watched:
            return
        folder = self.indexer.settings.files_dir
        was = self._watched
        self._watch_folder()
        when = time.strftime("%H:%M:%S")
        if self._watched is None:
            self.folder_note = (
                f"the files folder {folder} is gone (since {when}); "
                "its documents stay listed until it is back"
            )
            log.error("%s", self.folder_note)
            return
        self.folder_note = (
            f"the files folder {folder} was replaced at {when}: following the new one"
            if was is not None
            else f"the files folder {folder} is back (at {when}): following it"
        )
        log.warning("%s; rescanning", self.folder_note)
        self.notify()

    def close(self) -> None:
        """Stop the observer, let the writer commit what it has, join every thread."""
        self._stop_observer()
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=60)
            self._thread = None
        pool, self.indexer.shared_pool = self.indexer.shared_pool, None
        if pool is not None:
            pool.close()

    @property
    def watching(self) -> bool:
        return self._observer is not None and self._observer.is_alive()

    def watcher_state(self) -> str:
        """The watcher in words, for the status: running, off, or what became of the
        files folder."""
        state = "running" if self.watching else "off"
        return f"{state} ({self.folder_note})" if self.folder_note else state

    @property
    def pending(self) -> bool:
        """Changes seen but not yet committed (or being committed now)."""
        with self._changed:
            return self._pending_locked()

    def wait_for(self, check: Callable[[], bool], timeout: float) -> bool:
        """Wait until `check()` holds (re-checked after each file the writer finishes and
        at least every 0.2 s, for commits) or nothing is pending any more; False on
        timeout. For one file a call asks about, never for the whole scan."""
        deadline = time.monotonic() + timeout
        while not check():
            with self._changed:
                left = deadline - time.monotonic()
                if left <= 0 or self._stop.is_set() or not self._pending_locked():
                    break
                self._changed.wait(min(left, 0.2))
        else:
            return True
        return check()

    def _pending_locked(self) -> bool:
        """`pending`, for a caller that holds the condition already."""
        return self._busy or self._first_event is not None or not self.caught_up.is_set()

    def index_now(self, timeout: float = 120.0) -> bool:
        """Run a reindex at once (no debounce) and wait for it; False on timeout. Raises
        ReadOnlyIndex when the database refused its writes (retrying will not help)."""
        with self._changed:
            target = self._runs + 1 if not self._busy else self._runs + 2
            self._changes = None  # a whole scan
            self._first_event = time.monotonic() - self.max_delay
            self._last_event = self._first_event
            self._changed.notify_all()
        deadline = time.monotonic() + timeout
        while self._runs < target:
            if self._stop.is_set() or time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        if self.read_only is not None:
            raise ReadOnlyIndex(str(self.read_only))
        return True

    def notify(self) -> None:
        """Anything under the folders may have changed: the next run scans them whole."""
        self.record(None)

    def record(self, changes: Changes | None, folder: bool = False) -> None:
        """Called (from observer threads) with the paths that changed (None: unknown, a
        whole scan); the writer thread reindexes them after the quiet period. After a
        `folder` event the quiet period is at least MOVE_WAIT: a file moved into a folder
        the observer does not follow yet (just made) leaves its old path as a deletion
        that watchdog holds back for 0.5 s, and both ends belong in one run (a move)."""
        now = time.monotonic()
        with self._changed:
            self._folder_event = self._folder_event or folder
            if changes is None or self._changes is None:
                self._changes = None
            else:
                self._changes |= changes
            if self._first_event is None:
                self._first_event = now
            self._last_event = now
            self._changed.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every change seen so far is committed; False on timeout."""
        deadline = time.monotonic() + timeout
        while self.pending:
            if self._stop.is_set() or time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True

    # -- the writer thread -------------------------------------------------------------

    def _run(self) -> None:
        with self._changed:
            self._changes = set()  # the catch-up scan looks at everything
        self._reindex("catch-up scan", None)
        self.caught_up.set()
        while not self._stop.is_set():
            self.check_folder()
            with self._changed:
                if not self._stop.is_set() and self._first_event is None:
                    self._changed.wait(FOLDER_CHECK)
                    if self._first_event is None:
                        continue  # a look at the folder every FOLDER_CHECK seconds
                while not self._stop.is_set():
                    now = time.monotonic()
                    first = self._first_event or now
                    quiet = max(self.quiet, MOVE_WAIT) if self._folder_event else self.quiet
                    wait = min(self._last_event + quiet - now, first + self.max_delay - now)
                    if wait <= 0:
                        break
                    self._changed.wait(wait)
                if self._stop.is_set():
                    return
                self._first_event = None
                self._busy = True
                changes, self._changes = self._changes, set()
                self._folder_event = False
            try:
                self._reindex("change", changes)
            finally:
                with self._changed:
                    self._busy = False

    def _progress(self, step: Step) -> None:
        self.step = step
        if self.on_step is not None:
            try:
                self.on_step(step)
            except Exception:  # a display that fails must not stop the indexing
                log.exception("progress callback failed")
        with self._changed:
            self._changed.notify_all()  # wakes wait_for

    def _changes_waiting(self) -> bool:
        """New changes arrived: the elements pass yields to them (text comes first)."""
        with self._changed:
            return self._first_event is not None

    def _reindex(self, reason: str, changes: Changes | None) -> None:
        """One reindex of `changes` (None: of every file)."""
        with self._changed:
            self._busy = True
            self.read_only = None
        if changes is None:
            self._last_full = time.monotonic()
        try:
            summary = self.indexer.reindex(
                commit_interval=5.0,
                progress=self._progress,
                should_stop=self._stop.is_set,
                elements_should_stop=self._changes_waiting,
                changes=changes,
            )
            release_freed_memory()  # before it says idle: a serving process keeps its size,
            # not its scan's peak (the catch-up scan decodes every record)
        except IndexLocked as exc:
            self.last_error = str(exc)
            log.warning("%s postponed: %s", reason, exc)
            self.record(changes)  # try again after the next quiet period
            return
        except SourceTaken as exc:  # a second folder under one source name: one line
            self.last_error = str(exc)
            log.error("%s refused: %s", reason, exc)
            return
        except Exception as exc:  # keep serving whatever happens to one scan
            failed = exc if isinstance(exc, IndexWriteError) else IndexWriteError.about(exc)
            if failed is not None:  # a full disk, a read-only database: one line
                self.last_error = str(failed)
                self.read_only = failed if isinstance(failed, ReadOnlyIndex) else None
                log.error("%s failed: %s", reason, failed)
                return
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.exception("%s failed", reason)
            return
        finally:
            self.step = None
            with self._changed:
                self._busy = False
                self._runs += 1
                self._changed.notify_all()
        if not summary.finished:  # files left for the next run: its scope too
            with self._changed:
                if changes is None or self._changes is None:
                    self._changes = None
                else:
                    self._changes |= changes
        self.last_error = None
        self.last_summary = summary
        changed = summary.added + summary.updated + summary.moved + summary.removed + summary.failed
        if changed or summary.touched or reason == "catch-up scan":
            log.info("%s: %s", reason, summary.line())
            if self.on_summary is not None:
                self.on_summary(summary)
