#pragma once
// Trains small language models that differ only in position encoding: a
// Llama-style decoder (next-token loss) or a BERT-style encoder (masked-token
// loss), on a sentence corpus, with checkpoints that are ordinary Hugging
// Face model folders and a training log of loss and first-token sink metrics.
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <limits>
#include <functional>
#include <string>

#include "models/model.h"
#include "models/safetensors.h"

namespace sinkscope::models {

struct TrainOptions {
  std::string architecture = "decoder";  // decoder | encoder
  std::string position_encoding =
      "rope";              // rope | ntk_rope | learned | alibi | none (encoder: learned)
  double ntk_scale = 4.0;  // ntk_rope: base * s^(d / (d - 2))
  int layers = 4;
  int heads = 4;
  int hidden = 128;
  int intermediate = 512;
  int vocab_size = 4096;  // of the BPE tokenizer trained on the corpus
  int context = 128;
  int batch_tokens = 2048;
  int steps = 1000;
  double learning_rate = 1e-3;
  int warmup_steps = 50;
  double weight_decay = 0.1;
  // How sentences are packed into training sequences (Barbero et al., s. 5):
  //  every: <s> before every sentence;  first: <s> at position 0 only, </s>
  //  between sentences;  none: no <s>, </s> between sentences.
  std::string bos_mode = "every";
  int checkpoint_every = 250;
  int log_every = 25;
  std::uint64_t seed = 1;
  DType save_dtype = DType::F16;
  std::filesystem::path corpus;     // one sentence per line
  std::filesystem::path heldout;    // one sentence per line: the sink measurements
  std::filesystem::path out;        // the final model folder; checkpoints under out/checkpoints/
  std::filesystem::path tokenizer;  // optional: use this tokenizer.json instead of training one
  std::filesystem::path resume;     // optional: a checkpoint folder to continue from
  bool force = false;               // replace the model or run `out` holds already
  int eval_inputs = 8;              // held-out inputs of eval_tokens tokens (sink_eval_inputs)
  int eval_tokens = 64;
};

struct TrainLogRow {
  int step = 0;
  long long tokens = 0;
  double loss = 0.0;
  double learning_rate = 0.0;
  double tokens_per_second = 0.0;
  // Over every (layer, head), on held-out inputs: mean attention to position 0
  // (alpha_0), its mean boost over the uniform baseline, the share of heads with
  // boost >= 3, and the sink rate (share with alpha_0 > 0.3; metrics.md s. 1).
  // NaN when nothing was measured (no held-out text long enough for one input).
  double alpha0 = kNotMeasured, boost = kNotMeasured, heads_boost3 = kNotMeasured,
         sink_rate = kNotMeasured;
  // Mean over heads of the sink concentration (%, percentile mode, p = 90, gamma = 0.3).
  double sink_concentration = kNotMeasured;
  static constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
  bool measured() const { return !std::isnan(alpha0); }
};

struct TrainResult {
  int steps = 0;
  double final_loss = 0.0;
  std::filesystem::path folder;
  // The in-memory model's logits on the first held-out input (and that input):
  // a saved F32 checkpoint must reproduce them.
  std::vector<int> probe_ids;
  std::vector<float> probe_logits;
};

// Throws std::invalid_argument for bad options (naming the option) and
// RunCancelled when `progress` returns false. `onLog` sees every log row.
TrainResult train_model(const TrainOptions& options, const ProgressFn& progress = {},
                        const std::function<void(const TrainLogRow&)>& onLog = {});

class Tokenizer;

// Held-out inputs as a user would type them: sentences joined into one text
// and encoded with the tokenizer's special tokens (BOS at position 0 where
// the tokenizer adds one), cut to `tokens` tokens; `count` of them.
std::vector<std::vector<int>> sink_eval_inputs(const Tokenizer& tokenizer,
                                               const std::vector<std::string>& sentences, int count,
                                               int tokens);

// Mean first-token attention statistics of a model over held-out inputs.
TrainLogRow sink_measure(const Model& model, const std::vector<std::vector<int>>& inputs);

}  // namespace sinkscope::models
