"""A files folder replaced or removed under `serve` is noticed (issue 31, item 5): the
watcher follows the new folder, the library is rescanned, and the status says so."""

from __future__ import annotations

import shutil
from pathlib import Path

from pdfindex.server import AppContext
from pdfindex.tools.catalog import library_status
from tests import pdfgen
from tests.conftest import make_settings
from tests.waiting import eventually


def test_a_replaced_files_folder_is_followed_and_rescanned(tmp_path: Path) -> None:
    files = tmp_path / "files"
    pdfgen.write_pdf(files / "old.pdf", ["an oldfolder page"])
    app = AppContext.open(make_settings(tmp_path, elements=False), watch=True).start()
    try:
        assert app.live.caught_up.wait(120)
        assert set(app.index.engine.catalog()) == {"old.pdf"}

        files.rename(tmp_path / "files-before")
        files.mkdir()
        pdfgen.write_pdf(files / "new.pdf", ["a newfolder page"])
        eventually(
            lambda: set(app.index.engine.catalog()),
            "the new folder scanned",
            holds=lambda names: names == {"new.pdf"},
        )
        live = app.live
        status = library_status(app.index, live.watcher_state(), live.pending, live.last_error)
        assert "Watcher: running (the files folder" in status
        assert "was replaced" in status

        pdfgen.write_pdf(tmp_path / "later.pdf", ["a later page"])  # the new one is watched
        shutil.move(tmp_path / "later.pdf", files / "later.pdf")
        eventually(
            lambda: set(app.index.engine.catalog()),
            "later.pdf indexed (the new folder watched)",
            holds=lambda names: "later.pdf" in names,
        )

        shutil.rmtree(files)
        eventually(live.watcher_state, "the removed folder noticed", holds=lambda s: "is gone" in s)
        assert "Watcher: off (the files folder" in library_status(
            app.index, live.watcher_state(), live.pending, live.last_error
        )
        assert set(app.index.engine.catalog()) == {"new.pdf", "later.pdf"}  # kept meanwhile
    finally:
        app.close()
