"""Models users already have: fastembed's embedding models (`semantic_model`) and
cross-encoders (`rerank_model`), by their fastembed names (`BAAI/bge-small-en-v1.5`).

The only module that imports fastembed, and only when such a model is configured (its
import takes a second or more). A model is read from fastembed's usual cache
(FASTEMBED_CACHE_PATH, else `fastembed_cache` in the temp folder) without any network
call first; when it is not there, fastembed downloads it, unless HF_HUB_OFFLINE is set;
when neither works, one ConfigError line names the model, the cache and how to fetch it.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from pdfindex.errors import ConfigError
from pdfindex.semantic.model import providers, whole_text, windows

NAME = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")  # ORG/NAME, as fastembed lists them
EXTRA = "pip install -e '.[fastembed]'"
_TRUE = ("1", "true", "yes", "on")


def is_model_name(value: str) -> bool:
    """Whether a setting's value reads as a fastembed model name (`ORG/NAME`)."""
    return NAME.fullmatch(value.strip()) is not None


def model_id(name: str) -> str:
    """The cache key of a fastembed model's vectors: its name, as a file name can hold it
    (another model is another key, so switching models embeds again)."""
    return "fastembed-" + re.sub(r"[^\w.-]+", "--", name.strip())


def cache_folder() -> Path:
    """fastembed's cache, as fastembed finds it (without importing fastembed)."""
    given = os.environ.get("FASTEMBED_CACHE_PATH", "").strip()
    return Path(given) if given else Path(tempfile.gettempdir()) / "fastembed_cache"


def offline() -> bool:
    """HF_HUB_OFFLINE set: no download is tried (fastembed reads it too)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def load(kind: str, setting: str, name: str, threads: int = 0, folder_too: bool = False) -> Any:
    """fastembed's model object for `name` (`kind`: TextEmbedding or TextCrossEncoder):
    from the cache, else downloaded into it; one clear ConfigError line otherwise.
    `folder_too`: the setting could also have named a folder (said when it is neither)."""
    try:
        import fastembed
        from fastembed.rerank.cross_encoder import TextCrossEncoder
        from loguru import logger
    except ImportError as exc:
        raise ConfigError(f"{setting} = {name!r} needs fastembed ({exc.name}): {EXTRA}") from exc
    logger.disable("fastembed")  # its errors are said once, by the ConfigError below
    cls = TextCrossEncoder if kind == "TextCrossEncoder" else fastembed.TextEmbedding
    known = {m["model"].lower(): m["model"] for m in cls.list_supported_models()}
    if name.strip().lower() not in known:
        neither = "no folder of that name under the root, nor " if folder_too else "not "
        raise ConfigError(
            f"{setting} = {name!r}: {neither}a model fastembed {fastembed.__version__} "
            f'knows as a {cls.__name__} (python -c "from fastembed import {kind}; '
            f"print([m['model'] for m in {kind}.list_supported_models()])\")"
        )
    folder = cache_folder()
    args = dict(
        model_name=known[name.strip().lower()],
        cache_dir=str(folder),
        threads=threads or None,
        providers=providers(),
    )
    try:
        return cls(**args, local_files_only=True)
    except (ValueError, OSError):
        pass  # not in the cache (or not whole): a download next, when allowed
    if not offline():
        try:
            return cls(**args)
        except Exception:  # fastembed and the hub raise many kinds
            pass
    why = "HF_HUB_OFFLINE is set" if offline() else "and it could not be downloaded"
    raise ConfigError(
        f"{setting} = {name!r} is not in fastembed's cache {folder} ({why}): on a machine "
        f'with network access run python -c "from fastembed import {kind}; '
        f"{kind}('{args['model_name']}', cache_dir='fastembed_cache')\" and copy that "
        f"folder's contents to {folder} (or point FASTEMBED_CACHE_PATH at them)"
    )


class Embedder:
    """A fastembed embedding model with the interface of `model.Model`: `passages` cuts a
    page into windows of the model's own length, `embed` / `embed_query` give unit
    vectors (a model that wants a question prefix gets it from fastembed)."""

    def __init__(self, name: str, threads: int = 0, folder_too: bool = False) -> None:
        self._model = load("TextEmbedding", "semantic_model", name, threads, folder_too)
        self.name, self.id = name.strip(), model_id(name)
        inner = self._model.model  # fastembed's ONNX model: its tokenizer and session
        self.max_tokens = int(inner.tokenizer.truncation["max_length"])
        self._whole = whole_text(Tokenizer.from_str(inner.tokenizer.to_str()))
        self.device = inner.model.get_providers()[0]
        self.dim = int(self.embed_query("dimension").shape[0])

    def passages(self, text: str, most: int) -> list[str]:
        """The first `most` windows of the page that the model reads whole."""
        return windows(self._whole, text, most, self.max_tokens)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of page passages (float32, one row per text)."""
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        rows = list(self._model.passage_embed(texts, batch_size=len(texts)))
        return _unit(np.asarray(rows, dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        """A question's unit vector."""
        return _unit(np.asarray(list(self._model.query_embed([text])), dtype=np.float32))[0]


class CrossEncoder:
    """A fastembed cross-encoder: reads a question with each text, scores how well the
    text answers it."""

    def __init__(self, name: str, threads: int = 0) -> None:
        self._model = load("TextCrossEncoder", "rerank_model", name, threads)
        self.name = name.strip()

    def scores(self, query: str, texts: list[str]) -> list[float]:
        """Each text's score, from 0 to 1 (the logistic of the model's logit: the same
        order, and a score that reads like the others)."""
        logits = self._model.rerank(query, texts, batch_size=16) if texts else []
        return [1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, float(x))))) for x in logits]


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)
