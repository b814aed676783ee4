"""Effective settings: CLI flags > environment > pdfindex.toml in the root > defaults.

`Settings` is the one table of settings: each field declares its default, type, help
text, command-line flag, environment variable and checks (`setting`), and everything
else is read back from it (`SETTINGS`): loading and checking here, the CLI's options,
`config://settings` and the README's settings reference. Each value remembers where it
came from, so `config://settings` and `stats` can say so.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, get_origin, get_type_hints

from pdfindex.config.adapters import CustomAdapter, custom_adapters
from pdfindex.config.checks import (
    AT_MOST_A_DAY,
    MAX_MEMORY_MB,
    POSITIVE,
    Check,
    Origin,
    at_least_zero,
    at_most_max_workers,
    require,
)
from pdfindex.config.checks import (
    max_workers as max_workers,  # tests and the CLI read it from here
)
from pdfindex.config.folders import check_index_dir, folder_names, refuse_pseudo_fs
from pdfindex.config.masking import without_password
from pdfindex.errors import ConfigError

ENV_PREFIX = "PDFINDEX_"
EVERY_COMMAND = "*"  # a setting's flag that every command takes (before or after its name)
EXTRACTORS = ("pdfium", "pdfminer")
OCR_ENGINES = ("auto", "tesseract", "rapidocr")  # auto: the first that reads ocr_lang
SOURCE_NAME = re.compile(r"[a-z0-9_-]+")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _source_name(value: str, origin: Origin) -> str:
    if value:
        check_source_name(value, f"source from {origin.source}")
    return value


def setting(
    default: Any,
    help: str,
    *,
    flag: str = "",
    env: str = "",
    choices: tuple[str, ...] = (),
    checks: tuple[Check, ...] = (),
    secret: bool = False,
    option: str = "",
) -> Any:
    """A Settings field: its `default` and `help` (the CLI's and the README's), `flag`
    (EVERY_COMMAND or the one command taking `--name`; '' none), `env` (PDFINDEX_NAME
    unless given), the `choices` and `checks` every value passes whatever its source,
    `secret`: it may hold a password (shown masked, kept out of repr), and `option`: the
    flag's name when it is not `--name` (a table's flag is given once per entry)."""
    meta = dict(help=help, flag=flag, env=env, choices=choices, checks=checks, secret=secret)
    meta["option_name"] = option
    if isinstance(default, dict):
        return field(default_factory=dict, hash=False, metadata=meta)
    return field(default=default, repr=not secret, metadata=meta)


@dataclass(frozen=True)
class Settings:
    """Resolved settings; paths are absolute (folders are relative to the root unless
    given absolute)."""

    root: Path = setting(
        MISSING, "The project folder; the other folders are relative to it.", flag=EVERY_COMMAND
    )
    files_dir: Path = setting(
        Path("files"),
        "The documents: PDFs, text, Markdown, Office files, EPUB, HTML and images (the "
        "README's Formats), sub-folders included.",
        flag=EVERY_COMMAND,
    )
    index_dir: Path = setting(
        Path("index"),
        "The index, extraction cache, page-image cache and `query_documents` sessions.",
        flag=EVERY_COMMAND,
    )
    log_dir: Path = setting(
        Path("logs"),
        "One log file per session (`YYYY-MM-DD_HH-MM-SS.log`).",
        flag=EVERY_COMMAND,
    )
    extractor: str = setting(
        "pdfium",
        "Engine for index text: `pdfium` or `pdfminer` (each the other's fallback).",
        flag=EVERY_COMMAND,
        choices=EXTRACTORS,
    )
    engine: str = setting(  # a subpackage of pdfindex.engine (checked when it is opened)
        "tantivy",
        "Index engine: `tantivy` (compiled, fast at 50,000+ pages), `whoosh` (pure "
        "Python) or `postgres` (a database shared by many hosts: see the README); a switch "
        "rebuilds the index from the extraction cache.",
        flag=EVERY_COMMAND,
    )
    database_url: str = setting(
        "",
        "The database of the `postgres` engine (`postgresql://user@host/db`); "
        "shown without its password.",
        secret=True,
    )
    source: str = setting(  # pdfindex.indexer.sources
        "",
        "This files folder's name in a library that several folders (hosts) feed "
        "(`[a-z0-9_-]+`): its documents are `SOURCE/path`, and its indexer changes only "
        "those. Empty: the library's one folder.",
        flag=EVERY_COMMAND,
        checks=(_source_name,),
    )
    source_folders: dict[str, Path] = setting(
        {},
        "Where other sources' files are reachable from this host (a shared drive), for "
        'the tools that need the PDF itself: `{hostb = "/mnt/hostb/files"}` in '
        "pdfindex.toml, `hostb=/mnt/hostb/files,hostc=...` in the environment.",
    )
    folders: dict[str, Path] = setting(  # pdfindex.indexer.sources: each one a source
        {},
        "More folders of documents, beside the files folder, in the same library: "
        '`folders = ["~/papers", "~/books"]` (each named by its base name, made unique) or '
        '`{books = "~/books"}` in pdfindex.toml, `--folder` once per folder (`NAME=PATH` '
        "names one), folders separated by `:` in the environment. A document of one is "
        '`NAME/path`; see the README\'s "Several folders".',
        flag=EVERY_COMMAND,
        option="--folder",
    )
    import_outside: bool = setting(
        False,
        "`process_document` on a file outside every folder copies that one file (at most "
        "`import_mb`) into the files folder's `imported/` and indexes it there; off: it "
        "refuses, naming the `folders` setting.",
    )
    import_mb: int = setting(
        200,
        "Largest file `process_document` copies in with `import_outside` (MB).",
        checks=(POSITIVE,),
    )
    index_client_roots: bool = setting(
        False,
        "Index the folders the MCP client declares as its roots, as more `folders` "
        "(`serve` only; each named as a folder of `folders` is).",
        flag="serve",
    )
    read_url: str = setting(
        "",
        "A streaming replica (hot standby) of `database_url` that the `postgres` engine "
        "reads from (searches, catalog, page texts); writes still go to `database_url`. "
        "Empty: read `database_url` too. Shown without its password.",
        secret=True,
    )
    timeout: float = setting(
        120.0,
        "Seconds allowed to read one file, OCR included (scanned pages left when it runs "
        "out are not read, and the document's notes say so).",
        flag=EVERY_COMMAND,
        checks=(AT_MOST_A_DAY, POSITIVE),
    )
    request_timeout: float = setting(
        10.0,
        "Seconds one tool call may run before it is stopped with a named error (a page "
        "image or conversion: its worker process is killed; a conversion gets this per "
        "page asked for). `0` = no limit.",
        flag="serve",
        checks=(AT_MOST_A_DAY, at_least_zero("no limit")),
    )
    web_host: str = setting(  # pdfindex.web
        "127.0.0.1",
        "Address `pdfindex web` listens on; any but a loopback one needs a token "
        "(`pdfindex web --new-token`).",
        flag="web",
        option="--host",
    )
    web_port: int = setting(
        8765,
        "Port of `pdfindex web` (`0`: any free one, named in its start-up line).",
        flag="web",
        option="--port",
        checks=(require(lambda v: 0 <= v <= 65535, " must be a port: 0-65535"),),
    )
    web_hosts: str = setting(
        "",
        "More names the web server answers to (its `Host` header, any port), separated by "
        "`,`: the name of a reverse proxy or of this machine on the network.",
        flag="web",
    )
    web_rate: float = setting(
        20.0,
        "Requests per second one client (IP address) may make to `pdfindex web`, in bursts "
        "of `web_burst`; past it: 429 with Retry-After. `0` = no limit.",
        flag="web",
        checks=(at_least_zero("no limit"),),
    )
    web_burst: int = setting(50, "Requests one client may make at once.", checks=(POSITIVE,))
    web_certfile: str = setting(
        "",
        "TLS certificate (PEM) of `pdfindex web`; with `web_keyfile`, it serves https.",
        flag="web",
    )
    web_keyfile: str = setting("", "TLS private key (PEM) of `web_certfile`.", flag="web")
    workers: int = setting(
        0,
        "Extraction processes; `0` = all cores; more than 4 per core (64 in all) is "
        "brought down to that, with a warning.",
        flag=EVERY_COMMAND,
        checks=(at_most_max_workers, at_least_zero("all cores")),
    )
    memory_mb: int = setting(
        4096,
        "Memory cap of each extraction and page process (MB beyond its start-up size); "
        "lowered so that all of them together stay within half the machine's memory.",
        checks=(
            require(lambda v: v <= MAX_MEMORY_MB, f": at most {MAX_MEMORY_MB} (1 TiB)"),
            POSITIVE,
        ),
    )
    writer_memory_mb: int = setting(
        0,
        "What the index writer buffers before it writes a segment (MB): less memory, "
        "more segments to merge. `0` = the engine's default (tantivy 32, whoosh 256).",
        checks=(
            require(lambda v: v == 0 or 16 <= v <= 4096, ": 0 (the engine's default) or 16-4096"),
        ),
    )
    max_response_chars: int = setting(
        40_000,
        "Largest tool answer; longer ones are cut, with a way to page on.",
        checks=(POSITIVE,),
    )
    page_image_bytes: int = setting(
        1_500_000,
        "PNG budget of `get_page_image` and `get_element_image` (bytes).",
        checks=(POSITIVE,),
    )
    page_cache_mb: float = setting(
        200.0,
        "Size cap of the page-image cache in the index folder (MB); the least recently "
        "used images are removed first, and a changed PDF's old images at once. `0` = "
        "no cache.",
        checks=(at_least_zero("no cache"),),
    )
    max_sessions: int = setting(
        1000,
        "`query_documents` sessions kept: past it the least recently active are "
        "removed, one-question sessions first.",
        checks=(POSITIVE,),
    )
    session_expiry_days: float = setting(
        7.0,
        "Days a `query_documents` session may stay idle before it expires and its file is removed.",
        checks=(POSITIVE,),
    )
    log_file_mb: float = setting(
        5.0,
        "Size at which a session's log file is rotated (MB); 2 older parts are kept "
        "(`.log.1`, `.log.2`).",
        checks=(POSITIVE,),
    )
    log_keep: int = setting(
        10,
        "Session log files kept in `log_dir`, the current one included; older ones "
        "(and their parts) are removed at start.",
        checks=(POSITIVE,),
    )
    lock_timeout: float = setting(
        10.0,
        "Seconds a writer waits while another process writes the index.",
        checks=(AT_MOST_A_DAY, POSITIVE),
    )
    ocr: bool = setting(True, "Read pages without a text layer (scans) by OCR.")
    ocr_engine: str = setting(
        "auto",
        "OCR program: `tesseract`, `rapidocr` (installed with pdfindex; Chinese and "
        "English only; slower), or `auto`: Tesseract when installed and it has "
        "`ocr_lang`, else RapidOCR.",
        choices=OCR_ENGINES,
    )
    ocr_lang: str = setting(
        "eng",
        "OCR language(s), Tesseract codes: `eng`, `deu`, `eng+fra`, ... (RapidOCR: "
        "`eng`, `chi_sim`).",
        checks=(
            require(
                lambda v: re.fullmatch(r"[A-Za-z_]+(\+[A-Za-z_]+)*", v) is not None,
                ": use Tesseract codes like eng or deu+eng",
            ),
        ),
    )
    elements: bool = setting(True, "Find figures, tables and equations at index time.")
    archive_depth: int = setting(
        3,
        "Archives inside archives read, the outer one counted (`a.zip/b.zip/c.pdf`: 2); "
        "deeper ones are left out, and the archive's notes say so.",
        checks=(POSITIVE,),
    )
    archive_members: int = setting(
        10_000,
        "Entries read from one archive, nested ones included; the rest are left out, "
        "and the archive's notes say so.",
        checks=(POSITIVE,),
    )
    archive_mb: int = setting(
        2048,
        "Uncompressed MB read from one archive, nested ones included, counted as they "
        "come out: past it the archive is `failed` (a zip bomb).",
        checks=(POSITIVE,),
    )
    archive_member_mb: int = setting(
        500,
        "Uncompressed MB of one archive member; a larger one is not read (the archive's "
        "notes say so).",
        checks=(POSITIVE,),
    )
    archive_ratio: float = setting(
        100.0,
        "Compression ratio past which an archive is `failed` as a zip bomb, once it "
        "has given out 1 MB.",
        checks=(POSITIVE,),
    )
    semantic: bool = setting(
        False,
        "Hybrid ranking: sentence embeddings of each page fused with BM25 for questions "
        "(needs `pip install -e '.[semantic]'`; pages are embedded in the background, "
        'see the README\'s "Ranking modes").',
    )
    semantic_model: str = setting(
        "",
        "The embedding model: a fastembed model name (`BAAI/bge-small-en-v1.5`, from "
        "fastembed's cache, downloaded there when it can be; needs `pip install -e "
        "'.[fastembed]'`), or a folder holding `model.onnx` and `tokenizer.json` (relative "
        "to the root, or absolute); empty = the bundled all-MiniLM-L6-v2 (int8). See the "
        'README\'s "Stronger models".',
    )
    rerank_model: str = setting(
        "",
        "A fastembed cross-encoder (`Xenova/ms-marco-MiniLM-L-6-v2`) that re-orders the best "
        "pages of `search_documents` and `query_documents` (BM25's or the hybrid's) for "
        "queries without explicit syntax; needs `pip install -e '.[fastembed]'`. Empty: none.",
    )
    llm_url: str = setting(  # pdfindex.tools.answers
        "",
        "An OpenAI-compatible chat-completions endpoint that writes `query_documents`' "
        "answers when the MCP client cannot (no sampling): `http://localhost:11434/v1` "
        "(Ollama), `http://localhost:8080/v1` (llama.cpp); needs `llm_model`. Empty: the "
        "answer is extractive. Shown without its secrets.",
        checks=(
            require(
                lambda v: not v or v.startswith(("http://", "https://")),
                " must be an http:// or https:// URL",
            ),
        ),
        secret=True,
    )
    llm_api_key: str = setting(
        "",
        "The key `llm_url` takes, sent as `Authorization: Bearer KEY`; shown as `***`.",
        secret=True,
    )
    llm_model: str = setting("", "The model `llm_url` is asked for (e.g. `llama3.2`).")
    custom_adapters: tuple[CustomAdapter, ...] = setting(  # pdfindex.config.adapters
        (),
        "Programs that print a file's text, for more file types: `[[custom_adapters]]` "
        'tables in pdfindex.toml only (`name`, `extensions`, `command`, `args` with `"$input"`)'
        '; see the README\'s "Custom adapters". One for an extension a built-in adapter '
        "reads takes precedence over it.",
    )
    sources: dict[str, str] = field(default_factory=dict, compare=False)  # name -> origin

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else (os.cpu_count() or 1)

    def as_dict(self) -> dict[str, Any]:
        """Plain values with their sources, for JSON output (secrets masked)."""
        values: dict[str, Any] = {}
        for name, row in SETTINGS.items():
            value = getattr(self, name)
            if row.secret:
                value = without_password(value)
            elif isinstance(value, Path):
                value = str(value)
            elif row.kind is dict:
                value = {k: str(v) for k, v in value.items()}
            elif row.kind is tuple:  # custom_adapters
                value = [adapter.as_dict() for adapter in value]
            values[name] = {"value": value, "source": self.sources.get(name)}
        return values


@dataclass(frozen=True)
class Setting:
    """One row of the settings table, as a Settings field declares it."""

    name: str
    kind: type  # the field's type: what values are converted to
    default: Any  # None for the root (the current directory)
    help: str
    flag: str
    env: str
    choices: tuple[str, ...]
    checks: tuple[Check, ...]
    secret: bool
    option_name: str = ""  # the flag's name, when it is not --name

    @property
    def option(self) -> str:
        """The command-line flag's name (whether it has one or not)."""
        return self.option_name or "--" + self.name.replace("_", "-")

    @property
    def shown_default(self) -> str:
        """The default as a person writes it (TOML spelling), for help and docs."""
        if self.default is None:
            return "current directory"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, float):
            return f"{self.default:g}"
        if self.default == ():
            return "none"
        return str(self.default)


def _table() -> dict[str, Setting]:
    types = get_type_hints(Settings)
    rows = {}
    for declared in fields(Settings):
        if not declared.metadata:
            continue  # not a setting (sources)
        meta = dict(declared.metadata)
        meta["env"] = meta["env"] or ENV_PREFIX + declared.name.upper()
        kind = get_origin(types[declared.name]) or types[declared.name]
        default = {} if kind is dict else None if declared.default is MISSING else declared.default
        rows[declared.name] = Setting(declared.name, kind, default, **meta)
    return rows


SETTINGS: dict[str, Setting] = _table()  # name -> row, in the order declared (root first)


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


def _convert(row: Setting, raw: Any, source: str) -> Any:
    """`raw` as the setting's type, checked (its choices and checks)."""
    kind, origin = row.kind, Origin(row.name, raw, source)
    if row.name == "folders":
        return folder_names(raw, source, check_source_name)
    if kind is dict:
        return _folders(raw, source)
    if kind is tuple:
        return custom_adapters(raw, source)
    if kind in (int, float) and isinstance(raw, bool):  # TOML's true is no number
        raise origin.refuse(" is not a number")
    if kind is int and isinstance(raw, float) and not raw.is_integer():
        raise origin.refuse(" is not a whole number")
    try:
        value = _to_bool(raw) if kind is bool else kind(raw)
    except (TypeError, ValueError, OverflowError) as exc:
        raise origin.refuse(f" is not a valid {kind.__name__}") from exc
    if kind is float and not math.isfinite(value):  # nan would pass every comparison
        raise origin.refuse(" must be a finite number")
    if row.choices and value not in row.choices:
        raise origin.refuse(f": choose one of {', '.join(row.choices)}")
    for check in row.checks:
        value = check(value, origin)
    return value


def load_settings(
    overrides: dict[str, Any] | None = None, root: str | Path | None = None
) -> Settings:
    """Resolve settings from flags (`overrides`, None = unset), environment, toml, defaults."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    sources: dict[str, str] = {}
    root_env = SETTINGS["root"].env
    if root is not None:
        root_path, sources["root"] = Path(root), "flag --root"
    elif os.environ.get(root_env):
        root_path, sources["root"] = Path(os.environ[root_env]), f"env {root_env}"
    else:
        root_path, sources["root"] = Path.cwd(), "default (current directory)"
    root_path = root_path.expanduser().resolve()

    toml_values: dict[str, Any] = {}
    toml_file = root_path / "pdfindex.toml"
    if toml_file.is_file():
        import tomllib  # ~4 ms, for a root that has the file

        try:
            toml_values = tomllib.loads(toml_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise ConfigError(f"cannot read {toml_file}: {exc}") from exc
        unknown = set(toml_values) - (set(SETTINGS) - {"root"})  # the root holds the file
        if unknown:
            raise ConfigError(f"{toml_file}: unknown settings {', '.join(sorted(unknown))}")

    values: dict[str, Any] = {}
    for name, row in SETTINGS.items():
        if name == "root":
            continue  # resolved first: pdfindex.toml is in it
        if name in overrides:
            raw, source = overrides[name], f"flag {row.option}"
        elif os.environ.get(row.env):
            raw, source = os.environ[row.env], f"env {row.env}"
        elif name in toml_values:
            raw, source = toml_values[name], f"{toml_file.name}"
        else:
            raw, source = row.default, "default"
        value = _convert(row, raw, source)
        if row.kind is Path:
            value = (root_path / Path(value).expanduser()).resolve()
        elif row.kind is dict:  # source_folders and folders: folders too
            value = {k: (root_path / Path(v).expanduser()).resolve() for k, v in value.items()}
        values[name] = value
        sources[name] = source
    check_index_dir(values["index_dir"], sources["index_dir"])
    refuse_pseudo_fs("log_dir", values["log_dir"], sources["log_dir"])
    for name, folder in values["folders"].items():
        refuse_pseudo_fs(f"folders.{name}", folder, sources["folders"])
        if name == values["source"] or name in values["source_folders"]:
            raise ConfigError(
                f"folders from {sources['folders']}: the name {name!r} of {folder} is also a "
                "source name (source, source_folders); name the folder otherwise "
                f'(folders = {{other = "{folder}"}})'
            )
    return Settings(root=root_path, sources=sources, **values)


def index_settings(index_dir: str | Path, engine: str, **flags: Any) -> Settings:
    """Settings to open `engine` over the index folder `index_dir` alone (engine tests
    and benchmarks): `engine` and `flags` as command-line flags, the rest as
    load_settings reads it, with the folder as the root."""
    return load_settings({"index_dir": index_dir, "engine": engine, **flags}, root=index_dir)
