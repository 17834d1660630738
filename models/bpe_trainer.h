#pragma once
// Learns a byte-level BPE tokenizer (GPT-2 style pre-tokenization) from a
// corpus and writes it as a Hugging Face tokenizer.json.
#include <string>
#include <vector>

namespace sinkscope::models {

struct BpeTrainingOptions {
  int vocab_size = 4096;  // including the 256 bytes and the special tokens
  // Special tokens, appended after the merges: <s> (BOS), </s> (EOS/separator),
  // <pad>, and for encoders <mask>.
  bool mask_token = false;
  // Post-processing: add <s> before (and for encoders </s> after) every input.
  bool add_bos = true;
  bool add_eos = false;
};

// The tokenizer.json text. Deterministic for the same sentences and options.
std::string bpe_train(const std::vector<std::string>& sentences, const BpeTrainingOptions& options);

}  // namespace sinkscope::models
