#!/usr/bin/python3
"""SinkScope's plain forward pass against torch eager on a real-size BF16 folder.

The folder is a Llama-layout one written by `sinkscope-cli random-model --like
llama-3.2-3b DIR` (or llama-3.2-1b, mistral-7b-v0.1, qwen2.5-7b: any Llama-layout
shape). SinkScope is model_benchmark's BM_ForwardFolder (weights kept in BF16 in
the memory map; logits at every position), 3 passes after the load, once
computing in float32 (each layer widened where it is used, the default) and
once in bfloat16 (--precision stored). Torch eager is the Llama forward a
researcher writes with Debian's python3-torch (no transformers here): the
weights read from the same safetensors files, loaded as a researcher would,
once in float32 (`torch_dtype=torch.float32`: the whole model widened) and once
in bfloat16 (`torch_dtype=torch.bfloat16`: computed in bfloat16, softmax in
float32, as Hugging Face's eager attention does), each in its own process,
median of 3 after a warm-up, with that process's peak RSS. Both sides see the
same token ids and both cores; torch runs with OPENBLAS_CORETYPE set to the
core SinkScope uses (`sinkscope-cli info`), the fair comparison.

  /usr/bin/python3 tests/benchmarks/real_forward_compare.py --folder DIR [--lengths 128,512]
"""
import argparse
import json
import os
import resource
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def token_ids(T):
    return [(i * 7919 + 13) % 250 for i in range(T)]  # as BM_ForwardFolder's ids


def read_safetensors(folder, dtype):
    """Every tensor of the folder's safetensors files as a torch tensor of `dtype`."""
    import numpy as np
    import torch
    out = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".safetensors"):
            continue
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
        for key, t in header.items():
            if key == "__metadata__":
                continue
            begin, end = t["data_offsets"]
            raw = torch.from_numpy(np.array(data[begin:end]))
            kind = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}[t["dtype"]]
            out[key] = raw.view(kind).reshape(t["shape"]).to(dtype)
    return out


def llama_forward(w, cfg, ids, dtype):
    """Logits [T, vocab] of the Llama layout (RoPE with the config's base; the
    llama3 frequency scaling changes numbers, not cost, and is left out)."""
    import torch
    D, H = cfg["hidden_size"], cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads", H)
    d = cfg.get("head_dim") or D // H
    eps = cfg.get("rms_norm_eps", 1e-6)
    T = len(ids)
    pre = "model."

    def norm(x, g):
        v = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(v + eps)).to(dtype) * g

    inv = 1.0 / (cfg.get("rope_theta", 10000.0) ** (torch.arange(0, d, 2).float() / d))
    freqs = torch.outer(torch.arange(T).float(), inv)
    emb = torch.cat([freqs, freqs], -1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)

    def rope(x):
        half = d // 2
        rot = torch.cat([-x[..., half:], x[..., :half]], -1)
        return x * cos + rot * sin

    mask = torch.full((T, T), float("-inf")).triu(1)
    x = w[pre + "embed_tokens.weight"][torch.tensor(ids)]
    for l in range(cfg["num_hidden_layers"]):
        p = f"{pre}layers.{l}."
        h = norm(x, w[p + "input_layernorm.weight"])
        q = (h @ w[p + "self_attn.q_proj.weight"].T).view(T, H, d).transpose(0, 1)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).view(T, KV, d).transpose(0, 1)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).view(T, KV, d).transpose(0, 1)
        if p + "self_attn.q_proj.bias" in w:
            q = q + w[p + "self_attn.q_proj.bias"].view(H, 1, d)
            k = k + w[p + "self_attn.k_proj.bias"].view(KV, 1, d)
            v = v + w[p + "self_attn.v_proj.bias"].view(KV, 1, d)
        q, k = rope(q), rope(k)
        k = k.repeat_interleave(H // KV, 0)
        v = v.repeat_interleave(H // KV, 0)
        s = (q @ k.transpose(-1, -2)) / (d ** 0.5) + mask.to(dtype)
        a = torch.softmax(s.float(), -1).to(dtype)
        o = (a @ v).transpose(0, 1).reshape(T, H * d) @ w[p + "self_attn.o_proj.weight"].T
        x = x + o
        h = norm(x, w[p + "post_attention_layernorm.weight"])
        g = torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T)
        x = x + (g * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    head = w.get("lm_head.weight", w[pre + "embed_tokens.weight"])
    return norm(x, w[pre + "norm.weight"]) @ head.T


def torch_run(folder, lengths, dtype_name):
    import torch
    torch.set_num_threads(os.cpu_count() or 1)
    dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype_name]
    cfg = json.load(open(os.path.join(folder, "config.json")))
    start = time.perf_counter()
    w = read_safetensors(folder, dtype)
    load = time.perf_counter() - start
    out = {"load_s": load}
    with torch.inference_mode():
        for T in lengths:
            ids = token_ids(T)
            llama_forward(w, cfg, ids, dtype)  # warm-up
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                llama_forward(w, cfg, ids, dtype)
                times.append(time.perf_counter() - t0)
            out[str(T)] = statistics.median(times)
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--folder", required=True)
    ap.add_argument("--lengths", default="128,512")
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "tests", "model_benchmark"))
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "sinkscope-cli"))
    ap.add_argument("--torch-run", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    if args.torch_run:
        print(json.dumps(torch_run(args.folder, lengths, args.torch_run)))
        return

    info = subprocess.run([args.cli, "info"], check=True, capture_output=True, text=True).stdout
    core = next((l.split(":", 1)[1].strip() for l in info.splitlines()
                 if l.startswith("OpenBLAS core:")), "")
    la = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}; "
          f"OpenBLAS core: {core or 'n/a'}; folder {args.folder}")
    env = dict(os.environ, SINKSCOPE_BENCH_MODEL=args.folder)
    names = "|".join(str(T) for T in lengths)
    res = subprocess.run([args.bench, f"--benchmark_filter=BM_ForwardFolder/({names})/[01]/",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True,
                         env=env).stdout
    ours, ours_rss = {}, 0.0
    for b in json.loads(res)["benchmarks"]:
        scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b["time_unit"]]
        parts = b["name"].split("/")
        ours[(int(parts[1]), int(parts[2]))] = b["real_time"] * scale
        ours_rss = max(ours_rss, b.get("peak_rss_MiB", 0.0))
    theirs = {}
    tenv = dict(os.environ)
    if core:
        tenv["OPENBLAS_CORETYPE"] = core
    for dt in ("float32", "bfloat16"):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--folder", args.folder,
                              "--lengths", args.lengths, "--torch-run", dt], check=True,
                             capture_output=True, text=True, env=tenv).stdout
        theirs[dt] = json.loads(out)
    print(f"SinkScope peak RSS {ours_rss:.0f} MiB; torch float32 {theirs['float32']['peak_rss_mib']:.0f} MiB "
          f"(load {theirs['float32']['load_s']:.1f} s); torch bfloat16 {theirs['bfloat16']['peak_rss_mib']:.0f} MiB "
          f"(load {theirs['bfloat16']['load_s']:.1f} s)")
    print("T | SinkScope float32 compute | torch eager float32 | ratio | "
          "SinkScope bfloat16 compute | torch eager bfloat16 | ratio")
    for T in lengths:
        o, f = ours[(T, 0)], theirs["float32"][str(T)]
        ob, b = ours[(T, 1)], theirs["bfloat16"][str(T)]
        print(f"{T} | {o:.2f} s | {f:.2f} s | {f / o:.2f}x | {ob:.2f} s | {b:.2f} s | {b / ob:.2f}x",
              flush=True)
    print("ratio: torch's time over SinkScope's (above 1: SinkScope faster)")
    la = os.getloadavg()
    print(f"load average at end {la[0]:.2f}")


if __name__ == "__main__":
    main()
