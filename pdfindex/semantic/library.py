"""The semantic side of one index: which pages still need vectors, embedding them in
small batches (resumable, stoppable, in a background thread while searches go on), the
current pages' vectors for queries, and progress for `stats` / `get_library_status`.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pdfindex.config import Settings
from pdfindex.engine import Engine
from pdfindex.errors import ConfigError
from pdfindex.models import FileStatus
from pdfindex.semantic import fastembed_models, store
from pdfindex.semantic.fastembed_models import Embedder
from pdfindex.semantic.model import BUNDLED_ID, BUNDLED_NAME, Model, fingerprint

log = logging.getLogger(__name__)

# Passages (windows of 256 tokens) embedded per page; a page ranks by its best one. On
# 300 manuals a page has 1.86 on average; the first alone (half the time) ranked
# questions 0.03-0.04 MRR@10 lower (benchmarks/results/2026-11-23-semantic.md).
PASSAGES = 2
FIRST_ONLY = False  # rank by the first passage only (benchmarks/relevance.py measures it)
FRESH_FOR = 5.0  # seconds a check of the vectors against the catalog is trusted
BATCH_PAGES = 8  # pages per transaction: a kill loses at most this much work
PUBLISH_EVERY = 30.0  # seconds between refreshes of the searchable vectors during a run


@dataclass
class Plan:
    """The current pages and their cache keys; what is missing from the cache."""

    keys: dict[tuple[str, int], str]  # (slug, page) -> key
    paths: dict[str, str]  # slug -> path
    hashes: dict[str, str]  # slug -> content hash the keys were made from
    pending: list[tuple[str, str, int]]  # (key, slug, page) not in the cache yet


class Semantic:
    """Embeddings of one index's pages by one model (loaded on first use)."""

    def __init__(self, settings: Settings, engine: Engine, threads: int = 0) -> None:
        self.engine = engine
        self.folder = settings.index_dir / "semantic"
        self.source = model_source(settings)
        if self.source is None:
            self.model_name, self.model_id = BUNDLED_NAME, BUNDLED_ID
        elif isinstance(self.source, str):  # a fastembed name: loaded on first use
            self.model_name, self.model_id = self.source, fastembed_models.model_id(self.source)
        else:
            if not (self.source / "model.onnx").is_file():
                raise ConfigError(
                    f"semantic_model {self.source}: needs model.onnx and tokenizer.json"
                )
            self.model_name = self.source.name
            self.model_id = f"{self.model_name}-{fingerprint(self.source / 'model.onnx')}"
        self.prefix = f"{self.model_id}/p{PASSAGES}/"
        self.cache = store.VectorCache(self.folder)
        self.threads = threads
        self._model: Model | Embedder | None = None
        self._model_error: ConfigError | None = None  # a fastembed model that cannot load
        self._model_lock = threading.Lock()
        self._vectors: store.Vectors | None = None
        self._vectors_at = 0.0
        self._checked: tuple[float, store.Vectors, store.Vectors] | None = None
        self._counts = (0, 0)  # (embedded, total) pages at the last check of the vectors
        self._memo: dict[str, tuple[tuple[str, str, int], list[str]]] = {}
        self._read: tuple[str, list[str]] = ("", [])  # the document whose texts a run read
        self.embedded: int | None = None  # pages with vectors (after a plan)
        self.total: int | None = None
        self.running = False
        self.last_error: str | None = None
        self.embedded_now = 0  # pages embedded by this process (tests, progress)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.idle = threading.Event()  # set when the background thread has nothing to do
        self.idle.set()

    # -- the model ---------------------------------------------------------------

    @property
    def model(self) -> Model | Embedder:
        """The model, loaded on first use. A fastembed model that cannot load raises the
        same ConfigError at each use without trying again (a download is tried once per
        process); a folder is looked at again (it may have been completed since)."""
        with self._model_lock:
            if self._model_error is not None:
                raise self._model_error
            if self._model is None:
                if not isinstance(self.source, str):
                    self._model = Model(self.source, self.threads)
                    return self._model
                try:
                    self._model = Embedder(self.source, self.threads, folder_too=True)
                except ConfigError as exc:
                    self._model_error = exc
                    raise
            return self._model

    @property
    def model_loaded(self) -> bool:
        return self._model is not None

    def query_vector(self, text: str) -> np.ndarray:
        """The query's vector (once per query)."""
        return self.model.embed_query(text)

    # -- what to embed -------------------------------------------------------------

    def plan(self) -> Plan:
        """Every text page of the index with its key; reads the texts only of documents
        that changed since the last plan (a content hash is their stamp), and keeps none
        of them: the embedding reads them again a document at a time."""
        keys: dict[tuple[str, int], str] = {}
        paths, hashes = {}, {}
        current = {}
        for record in self.engine.catalog().values():
            if record.status != FileStatus.OK or record.pages == 0:
                continue
            stamp = (record.sha256, record.extractor, record.pages)
            memo = self._memo.get(record.slug)
            if memo is None or memo[0] != stamp:
                pages = self.engine.page_texts(record.slug)
                memo = (stamp, [self.prefix + _text_hash(t) for t in pages])
            current[record.slug] = memo
            paths[record.slug], hashes[record.slug] = record.path, record.sha256
            for n, key in enumerate(memo[1], start=1):
                keys[(record.slug, n)] = key
        self._memo = current
        have = self.cache.keys(self.prefix)
        first = {}  # each missing key once: its first page
        for (slug, page), key in keys.items():
            if key not in have:
                first.setdefault(key, (key, slug, page))
        self.total = len(keys)
        self.embedded = sum(1 for k in keys.values() if k in have)
        return Plan(keys, paths, hashes, list(first.values()))

    def run(
        self,
        should_stop: Callable[[], bool] = lambda: False,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Embed every page that has no vector yet, a batch per transaction, refreshing
        the searchable vectors as it goes; returns how many pages it embedded. Stops
        between batches when `should_stop()` says so, keeping what is done."""
        plan = self.plan()
        done, last_publish = 0, time.monotonic()
        todo = len(plan.pending)
        self.running = bool(todo)
        try:
            for start in range(0, todo, BATCH_PAGES):
                if should_stop():
                    break
                self._embed_batch(plan.pending[start : start + BATCH_PAGES])
                done += min(BATCH_PAGES, todo - start)
                self.embedded_now += min(BATCH_PAGES, todo - start)
                self.embedded = (self.embedded or 0) + min(BATCH_PAGES, todo - start)
                if progress is not None:
                    progress(done, todo)
                if time.monotonic() - last_publish > PUBLISH_EVERY:
                    self.publish(plan)
                    last_publish = time.monotonic()
        finally:
            self.running = False
            self._read = ("", [])
            self.publish(plan)
        return done

    def _embed_batch(self, batch: list[tuple[str, str, int]]) -> None:
        """Embed and store a batch; a page whose text changed since the plan is skipped
        (the next plan has its new key)."""
        model = self.model
        texts = []
        for key, slug, page in batch:
            if self._read[0] != slug:
                self._read = (slug, self.engine.page_texts(slug))
            pages = self._read[1]
            text = pages[page - 1] if page <= len(pages) else None
            if text is not None and self.prefix + _text_hash(text) == key:
                texts.append((key, text))
        cuts = [model.passages(text, PASSAGES) for _, text in texts]
        flat = [p for passages in cuts for p in passages]
        vectors = model.embed(flat) if flat else np.zeros((0, model.dim), np.float32)
        items, row = [], 0
        for (key, _), passages in zip(texts, cuts, strict=True):
            items.append((key, vectors[row : row + len(passages)]))
            row += len(passages)
        self.cache.put_many(items)

    def publish(self, plan: Plan) -> None:
        """Make the cached vectors of the current pages searchable (and save them)."""
        dim = self.model.dim
        found = self.cache.get_many(plan.keys.values(), dim)
        rows, starts, pages, row = [], [], [], 0
        blank = dict.fromkeys(plan.paths, 0)  # pages embedded with no passage (no text)
        for (slug, page), key in sorted(plan.keys.items()):
            vectors = found.get(key)
            if vectors is None or not len(vectors):
                blank[slug] += vectors is not None
                continue
            rows.append(vectors)
            starts.append(row)
            pages.append((plan.paths[slug], slug, page))
            row += len(vectors)
        matrix = np.concatenate(rows).astype(np.float32) if rows else np.zeros((0, dim), np.float32)
        docs = {slug: (plan.paths[slug], plan.hashes[slug], blank[slug]) for slug in plan.paths}
        vectors = store.Vectors(matrix, np.asarray(starts, np.int64), pages, docs)
        try:
            store.save(self.folder, self.model_id, vectors)
        except OSError as exc:  # a full disk: the vectors still serve this process
            log.warning("cannot save the semantic vectors: %s", exc)
        self._vectors, self._vectors_at = vectors, time.time()

    # -- searching -----------------------------------------------------------------

    def vectors(self) -> store.Vectors:
        """The current pages' vectors: this process's latest, or the saved ones (re-read
        when another process saved newer), minus documents that left or changed. The
        check against the catalog (~10 ms per 300 documents) is redone after `changed()`
        and at most FRESH_FOR seconds later, not at every query."""
        saved = store.saved_at(self.folder, self.model_id)
        if self._vectors is None or saved > self._vectors_at + 1.0:
            loaded = store.load(self.folder, self.model_id)
            if loaded is not None:
                self._vectors, self._vectors_at = loaded, saved
                self._checked = None
        vectors = self._vectors or store.Vectors.empty(self._model.dim if self._model else 0)
        checked = self._checked
        if checked is not None and checked[1] is vectors and time.monotonic() < checked[0]:
            return checked[2]
        catalog = self.engine.catalog()
        current = {r.slug: (r.path, r.sha256) for r in catalog.values()}
        stale = {slug for slug, doc in vectors.docs.items() if current.get(slug) != doc[:2]}
        fresh = vectors.without(stale)
        self._checked = (time.monotonic() + FRESH_FOR, vectors, fresh)
        total = sum(r.pages for r in catalog.values() if r.status == FileStatus.OK)
        blank = sum(doc[2] for doc in fresh.docs.values() if len(doc) > 2)
        self._counts = (min(len(fresh.pages) + blank, total), total)
        return fresh

    def changed(self) -> None:
        """The index changed (a commit of this process): check the vectors again."""
        self._checked = None

    def dense(
        self, query: np.ndarray, limit: int, slug: str | None = None
    ) -> list[tuple[tuple[str, str, int], float]]:
        """The `limit` pages most similar to the query vector: ((path, slug, page), cosine)."""
        vectors = self.vectors()
        scores = vectors.page_scores(query, FIRST_ONLY)
        if slug is not None:
            scores = np.where([p[1] == slug for p in vectors.pages], scores, -np.inf)
        if not len(scores):
            return []
        top = np.argsort(-scores)[:limit]
        return [(vectors.pages[i], float(scores[i])) for i in top if np.isfinite(scores[i])]

    def similarities(self, query: np.ndarray) -> dict[tuple[str, int], float]:
        """Every embedded page's cosine with the query vector, by (slug, page)."""
        vectors = self.vectors()
        scores = vectors.page_scores(query, FIRST_ONLY)
        return {(p[1], p[2]): float(s) for p, s in zip(vectors.pages, scores, strict=True)}

    # -- progress ----------------------------------------------------------------

    def status(self) -> dict[str, object]:
        """Embedded / total pages and the model, for stats and get_library_status: while
        this process embeds, its own count; else what the searchable vectors hold."""
        if self.running and self.total is not None:
            embedded, total = self.embedded or 0, self.total
        else:
            self.vectors()
            embedded, total = self._counts
        return {
            "model": self.model_name,
            "model_id": self.model_id,
            "embedded_pages": embedded,
            "pages": total,
            "running": self.running,
            "error": self.last_error,
            "cache_bytes": self.cache.size_bytes(),
            # onnxruntime's provider once the model is loaded (CUDAExecutionProvider: the GPU)
            "device": self._model.device if self._model is not None else None,
        }

    def label(self) -> str:
        """How an answer was ranked, in words."""
        info = self.status()
        return (
            f"hybrid (bm25 + {self.model_name}, {info['embedded_pages']:,} of "
            f"{info['pages']:,} pages embedded)"
        )

    # -- in the background ---------------------------------------------------------

    def start(self) -> None:
        """Embed pending pages in a background thread now and after each `poke()`."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="semantic", daemon=True)
            self._thread.start()
        self.poke()

    def poke(self) -> None:
        """The index changed: look for pages to embed."""
        self.changed()
        self.idle.clear()
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the current batch (what is done is kept) and join the thread."""
        self._stop.set()
        self._wake.set()
        self.idle.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                done = self.run(should_stop=self._stop.is_set)
                self.last_error = None
                if done:
                    log.info("semantic: embedded %d pages (%s)", done, self.model_name)
            except Exception as exc:  # never stops the server: said in status, retried
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.exception("semantic embedding failed")
            if not self._wake.is_set():
                self.idle.set()


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def model_source(settings: Settings) -> Path | str | None:
    """The model `semantic_model` names: None for the bundled one, a fastembed name
    (`ORG/NAME` that is not a folder under the root), or a folder."""
    name = settings.semantic_model.strip()
    if not name:
        return None
    folder = Path(name).expanduser()
    folder = folder if folder.is_absolute() else (settings.root / folder).resolve()
    if fastembed_models.is_model_name(name) and not folder.is_dir():
        return name
    return folder
