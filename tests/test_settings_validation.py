"""Issue 31, item 15: settings are checked by type and range wherever they come from
(pdfindex.toml, PDFINDEX_* variables, command-line flags): numbers are finite, time
limits at most a day, the index folder writable and not a pseudo-filesystem (/proc,
/sys, /dev), `workers` brought down to 4 per core (at most 64) with a warning. A bad
setting is one clear line and exit code 2 from the CLI, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pdfindex.config import SETTINGS, load_settings, max_workers
from pdfindex.errors import ConfigError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "files").mkdir()
    return tmp_path


def toml(root: Path, text: str) -> None:
    (root / "pdfindex.toml").write_text(text + "\n", encoding="utf-8")


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`pdfindex ARGS --root ROOT` as a process: its exit code and what it printed."""
    return subprocess.run(
        [sys.executable, "-m", "pdfindex.cli", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def one_clear_line(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("timeout = inf", ("timeout=inf", "finite")),
        ("timeout = nan", ("timeout=nan", "finite")),
        ("request_timeout = inf", ("request_timeout=inf", "finite")),
        ("lock_timeout = 1e9", ("lock_timeout", "at most 86400 seconds")),
        ("memory_mb = 1e30", ("memory_mb", "at most")),
        ("workers = 2.5", ("workers=2.5", "whole number")),
        ("workers = true", ("workers=True", "not a number")),
        ('index_dir = "/proc"', ("index_dir='/proc'", "pseudo-filesystem")),
        ('index_dir = "/sys/pdfindex"', ("index_dir='/sys/pdfindex'", "pseudo-filesystem")),
        ('log_dir = "/proc/logs"', ("log_dir='/proc/logs'", "pseudo-filesystem")),
    ],
)
def test_a_bad_value_in_pdfindex_toml_is_refused_by_name(
    root: Path, text: str, words: tuple[str, ...]
) -> None:
    toml(root, text)
    with pytest.raises(ConfigError) as refused:
        load_settings(root=root)
    for word in words:
        assert word in str(refused.value)
    assert "pdfindex.toml" in str(refused.value)  # where the value came from


@pytest.mark.parametrize(
    ("name", "raw", "word"),
    [
        ("TIMEOUT", "nan", "finite"),
        ("TIMEOUT", "inf", "finite"),
        ("REQUEST_TIMEOUT", "-inf", "finite"),
        ("INDEX_DIR", "/proc/self", "pseudo-filesystem"),
        ("INDEX_DIR", "/dev/pdfindex", "/dev"),
    ],
)
def test_a_bad_value_in_the_environment_is_refused_by_name(
    root: Path, monkeypatch: pytest.MonkeyPatch, name: str, raw: str, word: str
) -> None:
    monkeypatch.setenv(f"PDFINDEX_{name}", raw)
    with pytest.raises(ConfigError, match=f"from env PDFINDEX_{name}") as refused:
        load_settings(root=root)
    assert word in str(refused.value)


def test_a_bad_flag_is_refused_by_name(root: Path) -> None:
    with pytest.raises(ConfigError, match="timeout=inf from flag --timeout must be a finite"):
        load_settings({"timeout": float("inf")}, root=root)
    with pytest.raises(ConfigError, match="from flag --index-dir is a proc pseudo-filesystem"):
        load_settings({"index_dir": "/proc"}, root=root)


def test_finite_values_within_range_are_kept(root: Path) -> None:
    toml(root, "timeout = 30\nrequest_timeout = 0\nlock_timeout = 2.5\nworkers = 2.0")
    settings = load_settings(root=root)
    assert (settings.timeout, settings.request_timeout, settings.lock_timeout) == (30, 0, 2.5)
    assert settings.workers == 2


def test_too_many_workers_are_brought_down_with_a_warning(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = max_workers()
    assert cap == min(64, 4 * (os.cpu_count() or 1))
    for how in ("toml", "env", "flag"):
        toml(root, "workers = 100000" if how == "toml" else "")
        if how == "env":
            monkeypatch.setenv("PDFINDEX_WORKERS", "100000")
        flags = {"workers": 100000} if how == "flag" else {}
        assert load_settings(flags, root=root).workers == cap, how
        warning = capsys.readouterr().err
        assert "workers=" in warning, (how, warning)
        assert f"using {cap}" in warning, (how, warning)
        monkeypatch.delenv("PDFINDEX_WORKERS", raising=False)


def test_an_index_folder_that_is_a_file_or_read_only_is_refused(root: Path) -> None:
    (root / "a-file").write_text("not a folder")
    with pytest.raises(ConfigError, match="is not a folder"):
        load_settings({"index_dir": str(root / "a-file" / "index")}, root=root)
    if os.geteuid() == 0:
        return  # root writes anywhere: a read-only folder cannot be made here
    locked = root / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(ConfigError, match="not writable"):
            load_settings({"index_dir": str(locked / "index")}, root=root)
    finally:
        locked.chmod(0o755)


def test_an_index_in_shared_memory_is_storage(root: Path) -> None:
    """/dev/shm is a tmpfs under /dev: storage, allowed."""
    if not Path("/dev/shm").is_dir() or not os.access("/dev/shm", os.W_OK):
        pytest.skip("no writable /dev/shm here")
    folder = Path("/dev/shm") / f"pdfindex-test-{os.getpid()}"
    assert load_settings({"index_dir": str(folder)}, root=root).index_dir == folder


def test_unset_settings_take_the_tables_defaults(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no flag, variable or pdfindex.toml, each value is its Settings field's default
    (folders relative to the root), and says so."""
    for row in SETTINGS.values():
        monkeypatch.delenv(row.env, raising=False)  # conftest names this pass's engine
    settings = load_settings(root=root)
    for name, row in SETTINGS.items():
        if name == "root":
            continue
        wanted = (root / row.default).resolve() if isinstance(row.default, Path) else row.default
        assert getattr(settings, name) == wanted, name
        assert settings.sources[name] == "default", name


def test_each_setting_is_read_from_its_environment_variable(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PDFINDEX_<NAME>, as the table says, for a setting of each type."""
    values = {"log_dir": "elsewhere", "ocr_lang": "deu", "log_keep": "3", "ocr": "false"}
    for name, raw in values.items():
        monkeypatch.setenv(SETTINGS[name].env, raw)
    settings = load_settings(root=root)
    assert (settings.log_dir, settings.ocr_lang) == ((root / "elsewhere").resolve(), "deu")
    assert (settings.log_keep, settings.ocr) == (3, False)
    assert settings.sources["log_keep"] == "env PDFINDEX_LOG_KEEP"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('extractor = "pdfbox"', ("extractor='pdfbox'", "choose one of pdfium, pdfminer")),
        ("page_cache_mb = -1", ("page_cache_mb=-1", "must be 0 (no cache) or more")),
        ("writer_memory_mb = 8", ("writer_memory_mb=8", "0 (the engine's default) or 16-4096")),
        ('ocr_lang = "de u"', ("ocr_lang='de u'", "Tesseract codes")),
        ('source = "Host B"', ("source name 'Host B' (source from pdfindex.toml)",)),
        ("log_keep = 0", ("log_keep=0", "must be positive")),
        ("workers = -1", ("workers=-1", "must be 0 (all cores) or more")),
        ('root = "x"', ("unknown settings root",)),
    ],
)
def test_each_rows_checks_refuse_with_its_message(
    root: Path, text: str, words: tuple[str, ...]
) -> None:
    toml(root, text)
    with pytest.raises(ConfigError) as refused:
        load_settings(root=root)
    for word in words:
        assert word in str(refused.value)


# -- the CLI: one line, exit code 2, from each source --------------------------------


def test_the_cli_says_a_bad_toml_value_in_one_line(root: Path) -> None:
    toml(root, "timeout = inf")
    one_clear_line(cli(root, "stats"), "timeout=inf", "pdfindex.toml", "finite")
    toml(root, 'index_dir = "/proc"')
    one_clear_line(cli(root, "reindex"), "index_dir='/proc'", "pseudo-filesystem")


def test_the_cli_says_a_bad_environment_value_in_one_line(root: Path) -> None:
    done = cli(root, "serve", env={"PDFINDEX_TIMEOUT": "nan"})
    one_clear_line(done, "timeout='nan'", "env PDFINDEX_TIMEOUT", "finite")
    assert done.stdout == ""  # nothing on the protocol's stream


def test_the_cli_says_a_bad_flag_in_one_line(root: Path) -> None:
    one_clear_line(cli(root, "stats", "--timeout", "inf"), "flag --timeout", "finite")
    one_clear_line(cli(root, "stats", "--index-dir", "/proc"), "flag --index-dir", "/proc")
