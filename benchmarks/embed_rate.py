"""How fast each embedding model embeds pages, the way `pdfindex reindex` does it: each
page cut into PASSAGES windows of the model's length, BATCH_PAGES pages per model run.

    python -m benchmarks.embed_rate                         # bundled vs fastembed's MiniLM
    python -m benchmarks.embed_rate --pages 400 --model BAAI/bge-small-en-v1.5

Models: `bundled` (all-MiniLM-L6-v2 int8, onnxruntime directly) and fastembed names,
loaded from fastembed's cache (FASTEMBED_CACHE_PATH); without network, `--offline-minilm`
lays out the bundled weights as fastembed's `sentence-transformers/all-MiniLM-L6-v2` in a
temporary cache (tests/fastembedcache.py), so the two paths run the same weights. Pages
are the synthetic corpus's text (benchmarks/corpus.py), 2,800 characters each; its
made-up words cut into more tokens than English does. Prints JSON: pages/s, passages per
page, load seconds, the provider (CUDAExecutionProvider: the GPU), peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.corpus import SEED, page_paragraphs

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
PAGE_CHARS = 2800


def pages(count: int, seed: int = SEED) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(page_paragraphs(rng))[:PAGE_CHARS] for _ in range(count)]


def measure(name: str, texts: list[str], threads: int = 0) -> dict[str, Any]:
    """Load model `name` (`bundled` or a fastembed name) and embed `texts` as pages."""
    from pdfindex.semantic.fastembed_models import Embedder
    from pdfindex.semantic.library import BATCH_PAGES, PASSAGES
    from pdfindex.semantic.model import Model

    started = time.perf_counter()
    model = Model(None, threads) if name == "bundled" else Embedder(name, threads)
    loaded = time.perf_counter() - started
    model.embed(model.passages(texts[0], PASSAGES))  # warm up
    started, passages = time.perf_counter(), 0
    for start in range(0, len(texts), BATCH_PAGES):
        batch = texts[start : start + BATCH_PAGES]
        cuts = [p for text in batch for p in model.passages(text, PASSAGES)]
        passages += len(cuts)
        model.embed(cuts)
    seconds = time.perf_counter() - started
    return {
        "model": name,
        "device": model.device,
        "pages": len(texts),
        "pages_per_s": round(len(texts) / seconds, 2),
        "passages_per_page": round(passages / len(texts), 2),
        "load_s": round(loaded, 2),
        "dim": model.dim,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--model", action="append", help="bundled or a fastembed name")
    parser.add_argument("--threads", type=int, default=0, help="0: all cores")
    parser.add_argument("--offline-minilm", action="store_true")
    args = parser.parse_args(argv)
    models = args.model or ["bundled", MINILM]
    if args.offline_minilm or (args.model is None and "FASTEMBED_CACHE_PATH" not in os.environ):
        from tests import fastembedcache

        cache = Path(tempfile.mkdtemp(prefix="fastembed-"))
        fastembedcache.minilm(cache)
        os.environ["FASTEMBED_CACHE_PATH"] = str(cache)
        os.environ["HF_HUB_OFFLINE"] = "1"
    texts = pages(args.pages)
    rows = [measure(name, texts, args.threads) for name in models]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {"cores": os.cpu_count(), "rows": rows, "peak_rss_mb": round(peak_mb)}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
