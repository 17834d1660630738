#!/usr/bin/env python3
"""Reference outputs from Hugging Face transformers for SinkScope's tiny
random-weight model folders (run on a machine that has torch and
transformers; SinkScope's own machines do not).

    for t in gpt2 llama mistral qwen2 gemma gemma2 phi gpt_neox bert roberta xlm-roberta; do
      build/app/sinkscope-cli random-model $t /tmp/ref-models/$t --no-tokenizer
    done
    python3 tests/reference/make_references.py /tmp/ref-models tests/reference/outputs

The folders are deterministic (sinkscope-cli random-model uses fixed seeds),
so tests/models/reference_test.cpp rewrites the same folders and compares its own
logits and attentions with TYPE.json (tolerance 1e-4, float32). Types with no
JSON file are skipped.
"""
import json
import pathlib
import sys

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM

ENCODERS = {"bert", "roberta", "xlm-roberta"}


def main(models_root: str, out_root: str) -> None:
    out = pathlib.Path(out_root)
    out.mkdir(parents=True, exist_ok=True)
    for folder in sorted(pathlib.Path(models_root).iterdir()):
        config = AutoConfig.from_pretrained(folder)
        cls = AutoModelForMaskedLM if config.model_type in ENCODERS else AutoModelForCausalLM
        model = cls.from_pretrained(folder, attn_implementation="eager", torch_dtype=torch.float32).eval()
        ids = [(i * 37 + 11) % config.vocab_size for i in range(8)]  # as tests/models/model_forward_test.cpp
        with torch.no_grad():
            result = model(torch.tensor([ids]), output_attentions=True)
        record = {
            "model_type": config.model_type,
            "transformers": __import__("transformers").__version__,
            "ids": ids,
            "logits": result.logits[0].flatten().tolist(),
            "attentions": [a[0].flatten().tolist() for a in result.attentions],
        }
        (out / f"{config.model_type}.json").write_text(json.dumps(record))
        print(config.model_type, "ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
