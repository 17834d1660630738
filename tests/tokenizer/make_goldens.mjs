// Writes the golden token ids of every vocabulary with Hugging Face's own
// tokenizers library (the Rust engine Python transformers uses), so the
// C++ tokenizer is checked against the reference, not against itself.
//
//   bash fetch_vocabularies.sh /tmp/vocab
//   npm install --prefix /tmp/ref tokenizers@0.23.2
//   NODE_PATH=/tmp/ref/node_modules node make_goldens.mjs /tmp/vocab/vocab
//
// For each NAME it reads inputs.inp (one JSON string per line) and writes
// NAME.out: one JSON object per line, {"special": ids, "plain": ids}, the ids
// with and without special tokens.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Tokenizer } = require("tokenizers");
const here = path.dirname(new URL(import.meta.url).pathname);
const vocabRoot = process.argv[2];
const inputs = fs.readFileSync(path.join(here, "inputs.inp"), "utf8").split("\n").filter((l) => l.length).map((l) => JSON.parse(l));

for (const name of ["gpt2", "llama2", "llama3", "qwen3", "bert"]) {
  const tokenizer = Tokenizer.fromFile(path.join(vocabRoot, name, "tokenizer.json"));
  const lines = [];
  for (const text of inputs) {
    const special = (await tokenizer.encode(text, null, { addSpecialTokens: true })).getIds();
    const plain = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
    lines.push(JSON.stringify({ special: Array.from(special), plain: Array.from(plain) }));
  }
  fs.writeFileSync(path.join(here, `${name}.out`), lines.join("\n") + "\n");
  console.log(`${name}: ${lines.length} goldens`);
}
