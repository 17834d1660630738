#!/usr/bin/env python3
"""Writes the seed and regression corpus of the fuzz targets (tests/fuzz/corpus/TARGET/).

Made with:
    build/app/sinkscope-cli random-model llama /tmp/fuzz-seed
    head -6 resources/examples/sentences.txt > /tmp/fuzz-six.txt
    build/app/sinkscope-cli study run resources/models/rope-decoder-bos-first \
        --sentences /tmp/fuzz-six.txt --out /tmp/fuzz-study --shard 0/1
    build/app/sinkscope-cli study merge /tmp/fuzz-study
    python3 tests/fuzz/make_corpus.py /tmp/fuzz-seed /tmp/fuzz-study
(the capture and npy corpora alone: python3 tests/fuzz/make_corpus.py --captures)

Every hostile case that a parser sees is here (the folder-level cases -
FIFOs, links, shards outside the folder, full disks - are in
tests/cli/hostile_input_test.cpp). Files are named after what they hold; the
fuzzers add their own findings next to them (crash-*, minimised)."""
import json
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
SEP = b"\n\x01\n"


def put(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def safetensors(header, body=b""):
    h = json.dumps(header).encode() if not isinstance(header, bytes) else header
    while (8 + len(h)) % 8:
        h += b" "
    return struct.pack("<Q", len(h)) + h + body


def deep_array(depth):
    return "[" * depth + "]" * depth


def main(seed_folder):
    seed_tok = open(os.path.join(seed_folder, "tokenizer.json"), encoding="utf-8").read()
    seed_cfg = open(os.path.join(seed_folder, "config.json"), encoding="utf-8").read()
    tok = json.loads(seed_tok)
    cfg = json.loads(seed_cfg)

    # ---- safetensors ----
    f32 = struct.pack("<4f", 1.0, -2.0, 0.5, 3.0)
    f16 = struct.pack("<4H", 0x3C00, 0xC000, 0x7E00, 0x7C00)  # 1, -2, NaN, inf
    put("safetensors", "valid-f32-f16-bf16",
        safetensors({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                     "b": {"dtype": "F16", "shape": [4], "data_offsets": [16, 24]},
                     "c": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [24, 32]},
                     "__metadata__": {"format": "pt"}}, f32 + f16 + f16))
    put("safetensors", "metadata-nested-5000-deep",
        safetensors(('{"__metadata__": {"x": %s}}' % deep_array(5000)).encode()))
    put("safetensors", "metadata-not-string",
        safetensors({"__metadata__": {"x": {"y": 1}}}))
    put("safetensors", "overlapping-tensors",
        safetensors({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, f32))
    put("safetensors", "offsets-out-of-range",
        safetensors({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 1 << 40]}}, f32))
    put("safetensors", "shape-overflow",
        safetensors({"a": {"dtype": "F32", "shape": [1 << 40, 1 << 40, 1 << 40],
                           "data_offsets": [0, 16]}}, f32))
    put("safetensors", "negative-shape",
        safetensors({"a": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}}, f32))
    put("safetensors", "unknown-dtype",
        safetensors({"a": {"dtype": "F8", "shape": [4], "data_offsets": [0, 4]}}, f32))
    put("safetensors", "header-length-huge", struct.pack("<Q", 1 << 62) + b"{}")
    put("safetensors", "header-length-past-end", struct.pack("<Q", 4096) + b"{}")
    put("safetensors", "truncated", b"\x10\x00\x00")
    put("safetensors", "header-not-utf8", safetensors(b'{"\xff": 1}'))
    put("safetensors", "etc-passwd-like", b"root:x:0:0:root:/root:/bin/bash\n")
    weights = open(os.path.join(seed_folder, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", weights[:8])[0]
    put("safetensors", "random-llama-header-only", weights[:8 + n])

    # ---- config.json ----
    put("config", "random-llama", seed_cfg)
    for family, extra in {
        "gpt2": {"n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 10, "n_positions": 16},
        "bert": {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8,
                 "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 16},
        "roberta": {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8,
                    "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 16,
                    "pad_token_id": 1},
        "gemma2": {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8,
                   "intermediate_size": 16, "vocab_size": 10, "head_dim": 4,
                   "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0,
                   "sliding_window": 4, "query_pre_attn_scalar": 4},
        "phi": {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8,
                "intermediate_size": 16, "vocab_size": 10, "partial_rotary_factor": 0.5},
        "gpt_neox": {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8,
                     "vocab_size": 10, "rotary_pct": 0.25},
    }.items():
        put("config", "valid-" + family, json.dumps(dict(extra, model_type=family)))
    bad = {
        "layers-above-int-max": {"num_hidden_layers": 4294967298},
        "layers-negative": {"num_hidden_layers": -2},
        "vocab-huge": {"vocab_size": 1 << 40},
        "heads-not-dividing": {"num_key_value_heads": 3},
        "rope-factor-string": {"rope_scaling": {"rope_type": "linear", "factor": "2"}},
        "rope-scaling-list": {"rope_scaling": [1, 2]},
        "rope-theta-inf": None,  # written below as text: 1e999
        "eps-negative": {"rms_norm_eps": -1.0},
        "eps-string": {"rms_norm_eps": "small"},
        "head-dim-zero": {"head_dim": 0},
        "model-type-number": {"model_type": 7},
        "unknown-model-type": {"model_type": "mamba"},
        "pad-id-huge": {"pad_token_id": 1 << 40},
        "bos-id-list-empty": {"bos_token_id": []},
        "bos-id-list-bad": {"bos_token_id": ["x"]},
        "positions-zero": {"max_position_embeddings": 0},
    }
    for name, change in bad.items():
        if change is None:
            continue
        c = dict(cfg)
        c.update(change)
        put("config", name, json.dumps(c))
    put("config", "rope-theta-inf", seed_cfg.replace('"rope_theta": 10000.0', '"rope_theta": 1e999'))
    put("config", "eps-1e999", seed_cfg.replace('"rms_norm_eps": 1e-06', '"rms_norm_eps": 1e999'))
    roberta_pad = {"model_type": "roberta", "num_hidden_layers": 2, "num_attention_heads": 2,
                   "hidden_size": 8, "intermediate_size": 16, "vocab_size": 10,
                   "max_position_embeddings": 16, "pad_token_id": 2147483647}
    put("config", "roberta-pad-int-max", json.dumps(roberta_pad))
    put("config", "nested-100000-deep", '{"model_type": "llama", "x": %s}' % deep_array(100000))
    put("config", "not-an-object", "[1, 2, 3]")
    put("config", "not-json", "{model_type: llama")
    put("config", "not-utf8", b'{"model_type": "\xff"}')

    # ---- model.safetensors.index.json ----
    put("index", "valid-two-shards", json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors",
        "c": "model-00001-of-00002.safetensors"}}))
    put("index", "weight-map-empty", '{"weight_map": {}}')
    put("index", "escape-parent", '{"weight_map": {"a": "../outside.safetensors"}}')
    put("index", "absolute-etc-passwd", '{"weight_map": {"a": "/etc/passwd"}}')
    put("index", "escape-etc-shadow", '{"weight_map": {"a": "../../../../etc/shadow"}}')
    put("index", "subfolder-escape", '{"weight_map": {"a": "sub/../../x.safetensors"}}')
    put("index", "entry-not-string", '{"weight_map": {"a": 5}}')
    put("index", "entry-empty", '{"weight_map": {"a": ""}}')
    put("index", "entry-nul", '{"weight_map": {"a": "x\\u0000y"}}')
    put("index", "weight-map-list", '{"weight_map": ["a"]}')
    put("index", "nested-100000-deep", '{"weight_map": {"a": "x"}, "metadata": %s}'
        % deep_array(100000))

    # ---- tokenizer.json (+ configs + text) ----
    put("tokenizer", "random-llama", seed_tok)
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(os.path.join(here, "tokenizers"))):
        text = open(os.path.join(here, "tokenizers", name), encoding="utf-8").read()
        put("tokenizer", "handwritten-" + name, text.encode() + SEP + b"{}" + SEP + b"{}" + SEP +
            "Hello, wörld! ☃ 中文 <s>".encode())
    for kind, key, leaf in (("normalizer", "normalizers", '{"type": "Lowercase"}'),
                            ("pre_tokenizer", "pretokenizers", '{"type": "Whitespace"}'),
                            ("post_processor", "processors", '{"type": "ByteLevel"}')):
        depth = 2000  # deeper than the limit; the 30,000-deep file is made by hostile_input_test
        nested = ('{"type": "Sequence", "%s": [' % key) * depth + leaf + "]}" * depth
        text = json.dumps({k: v for k, v in tok.items() if k != kind})[:-1] + ', "%s": %s}' % (kind, nested)
        put("tokenizer", "sequence-%s-2000-deep" % kind, text)
    t = dict(tok)
    t["normalizer"] = {"type": "Lowercase", "extra": json.loads(deep_array(60))}
    put("tokenizer", "normalizer-value-60-deep", json.dumps(t))
    t_text = json.dumps({k: v for k, v in tok.items() if k != "normalizer"})
    put("tokenizer", "normalizer-value-100000-deep",
        t_text[:-1] + ', "normalizer": {"type": "Lowercase", "x": %s}}' % deep_array(100000))
    for name, value in (("1e8", 100000000), ("2p31-2", 2 ** 31 - 2), ("int-max", 2 ** 31 - 1),
                        ("negative", -5), ("string", "7")):
        t = json.loads(seed_tok)
        first = next(iter(t["model"]["vocab"]))
        t["model"]["vocab"][first] = value
        put("tokenizer", "vocab-id-" + name, json.dumps(t))
    t = json.loads(seed_tok)
    t["added_tokens"][0]["id"] = 2 ** 31 - 1
    put("tokenizer", "added-token-id-int-max", json.dumps(t))
    t = json.loads(seed_tok)
    t["post_processor"]["special_tokens"]["<s>"]["ids"] = [2 ** 40]
    put("tokenizer", "post-processor-id-huge", json.dumps(t))
    t = json.loads(seed_tok)
    t["model"]["unk_token"] = "<not-in-vocab>"
    t["pre_tokenizer"] = None
    t["decoder"] = None
    put("tokenizer", "unk-token-missing", json.dumps(t).encode() + SEP + b"{}" + SEP + b"{}" + SEP +
        "é ☃".encode())
    put("tokenizer", "config-wrong-types", seed_tok.encode() + SEP +
        b'{"tokenizer_class": 5, "add_bos_token": "yes", "bos_token": ["<s>"]}')
    put("tokenizer", "config-llama-add-bos-string", seed_tok.encode() + SEP +
        b'{"tokenizer_class": "LlamaTokenizer", "add_bos_token": "yes", "bos_token": "<s>"}')
    put("tokenizer", "special-map-wrong-types", seed_tok.encode() + SEP + b"{}" + SEP +
        b'{"bos_token": 5, "eos_token": {"content": 7}}')
    put("tokenizer", "long-word-100000", seed_tok.encode() + SEP + b"{}" + SEP + b"{}" + SEP +
        b"a" * 100000)
    put("tokenizer", "text-incomplete-utf8", seed_tok.encode() + SEP + b"{}" + SEP + b"{}" + SEP +
        b"hello world this is a long enough text here \xf0")
    put("tokenizer", "text-lone-ff", seed_tok.encode() + SEP + b"{}" + SEP + b"{}" + SEP + b"\xff")
    put("tokenizer", "text-nul", seed_tok.encode() + SEP + b"{}" + SEP + b"{}" + SEP + b"a\x00b")
    put("tokenizer", "not-json", b"{\"model\": ")

    # ---- encode (first byte picks the tokenizer) ----
    texts = {
        "incomplete-utf8": b"hello world this is a long enough text here \xf0",
        "lone-ff": b"\xff",
        "nul": b"ab\x00cd",
        "overlong-slash": b"\xc0\xaf",
        "surrogate": b"\xed\xa0\x80",
        "long-word-100000": b"a" * 100000,
        "long-spaces": b" " * 20000 + b"x",
        "mixed-scripts": "Ünïcödé — ☃ 中文字 عربى 🙂 \t\n\r<s></s>[CLS]".encode(),
    }
    for i in range(8):
        for name, text in texts.items():
            if i and name in ("long-word-100000", "long-spaces"):
                continue  # the long ones once, with tokenizer 0
            put("encode", "%s-tokenizer-%d" % (name, i), bytes([i]) + text)


def deep_object(depth):
    return "{\"a\": " * depth + "1" + "}" * depth


def file_corpora(study_folder):
    """Seeds of the readers of files a user receives: sentence files, sessions
    and merged study folders (tests/fuzz/fuzz_file_targets.cpp)."""
    # ---- sentences: first byte even = plain lines, odd = JSON lines ----
    plain = {
        "lines": "The cat sat.\nA second sentence.\n",
        "blank-lines-crlf": "one\r\n\r\n   \r\ntwo\r\n",
        "no-final-newline": "only one line",
        "unicode": "Caf\u00e9 r\u00e9sum\u00e9 \u4e2d\u6587 \U0001F642\n",
    }
    for name, text in plain.items():
        put("sentences", "plain-" + name, b"\x00" + text.encode())
    put("sentences", "plain-bad-utf8", b"\x00ok\nbad \xff byte\n")
    put("sentences", "plain-nul", b"\x00a\x00b\n")
    jsonl = {
        "valid": '{"text": "The cat sat."}\n{"text": "Another.", "id": 3}\n\n',
        "missing-text": '{"sentence": "x"}\n',
        "text-not-string": '{"text": 5}\n',
        "not-object": '["text"]\n',
        "bad-json": '{"text": "a",}\n',
        "deep": '{"text": "a", "x": ' + "[" * 100 + "]" * 100 + "}\n",
        "escaped-nul": '{"text": "a\\u0000b"}\n',
        "many-entries": '{"text": "a", "x": [' + ",".join(["{}"] * 2000) + ']}\n',
    }
    for name, text in jsonl.items():
        put("sentences", "jsonl-" + name, b"\x01" + text.encode())

    # ---- sessions ----
    session = {
        "format": "sinkscope-session", "version": 1,
        "model": {"name": "/models/tiny", "folder": "/models/tiny",
                  "config_sha256": "a" * 64, "tokenizer_sha256": "b" * 64},
        "text": "The sink, it seems, sinks.",
        "selection": {"layer": 1, "head": -1, "query": 3, "key": 0, "threshold": 0.1, "top_n": 3},
        "interventions": [{"kind": "drop_first_token", "layers": [], "heads": [], "parameter": 0},
                          {"kind": "ablate_heads", "layers": [1, 2], "heads": [0], "parameter": 0},
                          {"kind": "rope_scale", "layers": [], "heads": [], "parameter": 4}],
        "compare": {"sentence": "", "model": "/models/deep", "layer": 2, "head": -1},
        "checkpoints": "",
        "panels": {"log_scale": True, "overview_score": "entropy", "comparison": "after",
                   "graph_layout": 1, "normalised_laplacian": False,
                   "cameras": {"graphView": {"direction": [0, 0, 1], "up": [0, 1, 0]}}},
        "figure": {"views": ["attentionView"], "columns": 2}}
    put("session", "valid-full", json.dumps(session, indent=1))
    put("session", "valid-minimal",
        '{"format": "sinkscope-session", "version": 1, "model": {"name": "m"}, "text": "a"}')
    for name, edit in {
        "version-1e300": ("version", 1e300),
        "text-number": ("text", 5),
        "layer-negative": ("selection", {"layer": -3}),
        "zeros-4096": ("interventions", [{"kind": "ablate_heads", "layers": [0] * 4096,
                                          "heads": [0] * 4096, "parameter": 0}]),
        "interventions-300": ("interventions", [{"kind": "drop_first_token"}] * 300),
        "camera-zero": ("panels", {"cameras": {"graphView": {"direction": [0, 0, 0], "up": [0, 0, 0]}}}),
    }.items():
        bad = dict(session)
        bad[edit[0]] = edit[1]
        put("session", name, json.dumps(bad))
    put("session", "deep", '{"format": "sinkscope-session", "version": 1, "x": ' + deep_object(2000) + "}")
    put("session", "not-json", "format: sinkscope-session")

    # ---- study folders: study.json and merged/*.csv cut at SEP ----
    order = ["study.json", "merged/specialisation.csv", "merged/taxonomy_pooled.csv",
             "merged/layer_profile.csv", "merged/frame.csv", "merged/token_specialisation.csv",
             "merged/sink_rate.csv", "merged/top_sentences.csv", "merged/functional.csv"]
    parts = []
    for name in order:
        path = os.path.join(study_folder, name)
        parts.append(open(path, "rb").read() if os.path.exists(path) else None)
    present = [p for p in parts if p is not None]
    put("study", "valid-merged", SEP.join(present))
    put("study", "study-json-only", present[0])
    put("study", "bad-study-json", SEP.join([b"{"] + present[1:]))
    put("study", "layers-float", SEP.join([present[0].replace(b'"layers": ', b'"layers": 0.5, "x": ')]
                                          + present[1:]))
    put("study", "many-commas", SEP.join(present[:1] + [b"," * 70000] + present[2:]))
    put("study", "truncated-specialisation",
        SEP.join(present[:1] + [present[1][: len(present[1]) // 2]] + present[2:]))


def shard_corpora(study_folder):
    """Seeds of the study shard reader and the merge's pooling (fuzz_shards):
    study.json, then per shard its folder name, manifest.json and records.jsonl."""
    study = open(os.path.join(study_folder, "study.json"), "rb").read()
    shard = os.path.join(study_folder, "shards", "shard-0-of-1")
    manifest = open(os.path.join(shard, "manifest.json"), "rb").read()
    records = open(os.path.join(shard, "records.jsonl"), "rb").read()
    lines = records.decode().splitlines()

    def with_record(edit):
        first = json.loads(lines[0])
        edit(first)
        return SEP.join([study, b"shard-0-of-1", manifest,
                         ("\n".join([json.dumps(first)] + lines[1:]) + "\n").encode()])

    put("shards", "valid-one-shard", SEP.join([study, b"shard-0-of-1", manifest, records]))
    put("shards", "records-cut-in-half", SEP.join([study, b"shard-0-of-1", manifest,
                                                   records[: len(records) // 2]]))
    put("shards", "same-shard-twice", SEP.join([study, b"shard-0-of-1", manifest, records,
                                                b"shard-0-of-2", manifest, records]))
    put("shards", "manifest-shard-float",
        SEP.join([study, b"shard-0-of-1", manifest.replace(b'"shard": 0', b'"shard": 0.5'), records]))
    put("shards", "sentences-2-to-the-32",
        SEP.join([study.replace(b'"sentences": 6', b'"sentences": 4294967296'), b"shard-0-of-1",
                  manifest, records]))
    put("shards", "record-heads-cut", with_record(lambda r: r.__setitem__("heads", r["heads"][:3])))
    put("shards", "alpha-2-to-the-1000",
        with_record(lambda r: r["heads"][0].__setitem__("a", "0x1p+1000")))
    put("shards", "index-float", with_record(lambda r: r.__setitem__("i", 0.5)))
    # Many distinct sink tokens in one head: pooling stays near-linear.
    put("shards", "many-sink-tokens",
        with_record(lambda r: r["heads"][0].__setitem__("s", [["t%d" % k, 1] for k in range(3000)])))


def npy(descr, shape, data, fortran=False, version=1, header=None):
    """A .npy member written by hand (numpy's format 1.0-3.0), not by numpy."""
    if header is None:
        dims = "".join("%d, " % d for d in shape) if len(shape) == 1 else ", ".join(str(d) for d in shape)
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
            descr, "True" if fortran else "False", dims)
    h = header.encode("latin1") if version < 3 else header.encode("utf-8")
    size_bytes = 2 if version == 1 else 4
    pad = (64 - (6 + 2 + size_bytes + len(h) + 1) % 64) % 64
    h += b" " * pad + b"\n"
    length = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + length + h + data


def floats(values, code="<f"):
    return b"".join(struct.pack(code, v) for v in values)


def npz(members, deflate=False):
    """An .npz archive (a ZIP of NAME.npy members) written with Python's zipfile."""
    import io
    import zipfile
    out = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members:  # a fixed date: the same script writes the same bytes
            z.writestr(zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0)), data,
                       compress_type=method)
    return out.getvalue()


def unicode_array(strings, width):
    return b"".join(s.ljust(width, "\0").encode("utf-32-le") for s in strings)


def capture_corpora():
    # One layer, two heads, three tokens: a causal sink pattern and a uniform
    # causal head; values of head dimension 2; the four optional keys.
    sink = [1, 0, 0, 0.9, 0.1, 0, 0.8, 0.1, 0.1]
    uniform = [1, 0, 0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3]
    attention = npy("<f4", (1, 2, 3, 3), floats(sink + uniform))
    values = npy("<f4", (1, 2, 3, 2), floats([0.5 * k - 1 for k in range(12)]))
    tokens = npy("<U5", (3,), unicode_array(["<s>", "cat", "sat"], 5))
    ids = npy("<i8", (3,), struct.pack("<3q", 1, 2, 3))
    model = npy("<U4", (), unicode_array(["tiny"], 4))
    full = [("attention", attention), ("values", values), ("tokens", tokens), ("ids", ids),
            ("model", model)]
    put("capture", "valid-attention-only", npz([("attention", attention)]))
    put("capture", "valid-full", npz(full))
    put("capture", "valid-full-deflated", npz(full, deflate=True))
    put("capture", "valid-float64",
        npz([("attention", npy("<f8", (1, 2, 3, 3), floats(sink + uniform, "<d")))]))
    put("capture", "valid-packed-tokens",
        npz([("attention", attention),
             ("tokens_utf8", npy("|u1", (9,), b"<s>catsat")),
             ("tokens_offsets", npy("<i8", (4,), struct.pack("<4q", 0, 3, 6, 9)))]))
    put("capture", "no-attention", npz([("values", values)]))
    put("capture", "not-a-zip", b"\x93NUMPY not an archive")
    put("capture", "zip-cut-in-half", npz(full)[:200])
    put("capture", "nan-weight", npz([("attention", npy("<f4", (1, 2, 3, 3),
                                                         floats([float("nan")] + sink[1:] + uniform)))]))
    put("capture", "negative-weight", npz([("attention", npy("<f4", (1, 2, 3, 3),
                                                              floats([1, 0, 0, 1.2, -0.2, 0] + sink[6:] + uniform)))]))
    put("capture", "row-sums-to-two", npz([("attention", npy("<f4", (1, 2, 3, 3),
                                                              floats([1, 0, 0, 1, 1, 0] + sink[6:] + uniform)))]))
    put("capture", "attention-three-dimensional", npz([("attention", npy("<f4", (2, 3, 3), floats(sink + uniform)))]))
    put("capture", "attention-not-square", npz([("attention", npy("<f4", (1, 2, 3, 2), floats((sink + uniform)[:12])))]))
    put("capture", "shape-claims-terabytes",
        npz([("attention", npy("<f4", (1024, 1024, 32768, 32768), floats(sink)))]))
    put("capture", "shape-overflows-int64",
        npz([("attention", npy("<f4", (4294967296, 4294967296, 4294967296, 1), floats(sink)))]))
    def claiming(archive, size):
        """The archive with its first member's uncompressed size set to `size` in both headers."""
        b = bytearray(archive)
        local, central = b.find(b"PK\x03\x04"), b.find(b"PK\x01\x02")
        struct.pack_into("<I", b, local + 22, size)
        struct.pack_into("<I", b, central + 24, size)
        return bytes(b)

    put("capture", "stored-member-claims-4-gib", claiming(npz([("attention", attention)]), 0xFFFFFFF0))
    put("capture", "deflated-member-claims-4-gib",
        claiming(npz([("attention", attention)], deflate=True), 0xFFFFFFF0))
    put("capture", "big-endian", npz([("attention", npy(">f4", (1, 2, 3, 3), floats(sink + uniform, ">f")))]))
    put("capture", "fortran-order",
        npz([("attention", npy("<f4", (1, 2, 3, 3), floats(sink + uniform), fortran=True))]))
    put("capture", "object-array", npz([("attention", npy("|O", (1, 2, 3, 3), b"\x80\x04N."))]))
    put("capture", "values-wrong-heads", npz([("attention", attention),
                                              ("values", npy("<f4", (1, 1, 3, 4), floats([0] * 12)))]))
    put("capture", "tokens-two-for-three", npz([("attention", attention),
                                                ("tokens", npy("<U3", (2,), unicode_array(["a", "b"], 3)))]))
    put("capture", "ids-negative", npz([("attention", attention),
                                        ("ids", npy("<i8", (3,), struct.pack("<3q", 1, -2, 3)))]))
    put("capture", "tokens-offsets-backwards",
        npz([("attention", attention), ("tokens_utf8", npy("|u1", (9,), b"<s>catsat")),
             ("tokens_offsets", npy("<i8", (4,), struct.pack("<4q", 0, 6, 3, 9)))]))
    put("capture", "header-not-a-dict",
        npz([("attention", npy("<f4", (1, 2, 3, 3), floats(sink + uniform), header="[1, 2, 3]"))]))
    put("capture", "model-not-a-string", npz([("attention", attention), ("model", ids)]))

    put("npy", "valid-float32", attention)
    put("npy", "valid-version-2", npy("<f4", (1, 2, 3, 3), floats(sink + uniform), version=2))
    put("npy", "valid-version-3-unicode", npy("<U5", (3,), unicode_array(["<s>", "cat", "sat"], 5), version=3))
    put("npy", "valid-int64", ids)
    put("npy", "valid-bool", npy("|b1", (2,), b"\x00\x01"))
    put("npy", "valid-zero-dimensional", model)
    put("npy", "valid-empty-float32", npy("<f4", (0, 3), b""))  # fuzz_npy: memcpy of nothing
    put("npy", "header-text-after-dict",
        npy("<f4", (1,), b"\0" * 4, header="{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } ), }"))
    put("npy", "data-short", attention[:-4])
    put("npy", "data-long", attention + b"\0\0\0\0")
    put("npy", "magic-wrong", b"\x93NUMPZ" + attention[6:])
    put("npy", "version-9", attention[:6] + b"\x09" + attention[7:])
    put("npy", "header-length-past-end", attention[:8] + struct.pack("<H", 65535) + attention[10:])
    put("npy", "shape-negative", npy("<f4", (-1, 3), b""))
    put("npy", "descr-unknown", npy("<c8", (1,), b"\0" * 8))
    put("npy", "unicode-width-huge", npy("<U2147483647", (1,), b""))
    put("npy", "header-unclosed", npy("<f4", (1,), b"\0" * 4, header="{'descr': '<f4', 'shape': (1,"))
    put("npy", "shape-nested", npy("<f4", (1,), b"\0" * 4,
                                   header="{'descr': '<f4', 'fortran_order': False, 'shape': ((1,),), }"))


if __name__ == "__main__":
    if sys.argv[1:] == ["--captures"]:  # the capture and npy corpora need no folders
        capture_corpora()
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit("usage: make_corpus.py RANDOM_MODEL_FOLDER MERGED_STUDY_FOLDER | --captures")
    capture_corpora()
    main(sys.argv[1])
    file_corpora(sys.argv[2])
    shard_corpora(sys.argv[2])
