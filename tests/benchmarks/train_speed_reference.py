#!/usr/bin/env python3
"""The same training step as `sinkscope-cli train` (Llama-layout decoder, RoPE,
RMSNorm, SwiGLU MLP, untied output head, AdamW with betas 0.9/0.95 and weight
decay 0.1, gradient clipping 1.0) written with Debian's python3-torch, which
runs on the same libtorch. Prints training tokens per second.

    /usr/bin/python3 tests/benchmarks/train_speed_reference.py [steps]
"""
import math
import sys
import time

import torch
import torch.nn.functional as F

LAYERS, HEADS, HIDDEN, MLP, VOCAB, CONTEXT, BATCH = 4, 4, 128, 512, 4096, 128, 16
HEAD = HIDDEN // HEADS


class RMSNorm(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(t):
    inv = 1.0 / (10000.0 ** (torch.arange(0, HEAD, 2).float() / HEAD))
    freqs = torch.outer(torch.arange(t).float(), inv)
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(HIDDEN, HIDDEN, bias=False) for _ in range(4))
        self.gate, self.up = torch.nn.Linear(HIDDEN, MLP, bias=False), torch.nn.Linear(HIDDEN, MLP, bias=False)
        self.down = torch.nn.Linear(MLP, HIDDEN, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, HEADS, HEAD).transpose(1, 2)
        k = self.k(h).view(b, t, HEADS, HEAD).transpose(1, 2)
        v = self.v(h).view(b, t, HEADS, HEAD).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(HEAD)  # eager attention, as SinkScope computes it
        probs = torch.softmax(scores.masked_fill(mask, float("-inf")), -1)
        x = x + self.o((probs @ v).transpose(1, 2).reshape(b, t, HIDDEN))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, HIDDEN)
        self.layers = torch.nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = RMSNorm(HIDDEN)
        self.head = torch.nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        cos, sin = rope_tables(t)
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.head(self.norm(x))


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    torch.manual_seed(1)
    model = Decoder()
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.95))
    def step():
        seq = torch.randint(0, VOCAB, (BATCH, CONTEXT + 1))
        logits = model(seq[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), seq[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
    for _ in range(5):
        step()  # warm-up
    start = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = time.perf_counter() - start
    print(f"python3-torch {torch.__version__}, {torch.get_num_threads()} thread(s): "
          f"{steps * BATCH * CONTEXT / seconds:.0f} tokens/s over {steps} steps")


if __name__ == "__main__":
    main()
