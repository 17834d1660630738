// The trainer: packing, AdamW with warmup and cosine decay, checkpoints in
// the Hugging Face layout, and a training log with first-token sink metrics.
#include "models/trainer.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"
#include "analysis/sinks.h"
#include "models/bpe_trainer.h"
#include "models/corpus.h"
#include "models/internal/json_input.h"
#include "models/internal/model_impl.h"
#include "models/io/table_io.h"
#include "models/model_writer.h"
#include "models/tokenizer.h"

namespace sinkscope::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A tokenizer or trainer state: a regular file under the tokenizer cap.
std::string read_text(const fs::path& p) {
  return internal::rethrow_as<std::invalid_argument>(
      [&] { return input_file_read(p, kTokenizerMaxBytes); });
}

void validate(const TrainOptions& o) {
  auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
  if (o.architecture != "decoder" && o.architecture != "encoder")
    bad("--architecture must be decoder or encoder");
  const std::string& pe = o.position_encoding;
  if (pe != "rope" && pe != "ntk_rope" && pe != "learned" && pe != "alibi" && pe != "none")
    bad("--position-encoding must be rope, ntk_rope, learned, alibi or none");
  if (o.architecture == "encoder" && pe != "learned")
    bad("--position-encoding: the encoder (BERT layout) uses learned");
  if (o.bos_mode != "every" && o.bos_mode != "first" && o.bos_mode != "none")
    bad("--bos must be every, first or none");
  if (o.hidden % o.heads != 0) bad("--hidden must be a multiple of --heads");
  if (o.context < 8 || o.batch_tokens < o.context)
    bad("--context must be >= 8 and <= --batch-tokens");
  if (o.steps < 1 || o.layers < 1 || o.heads < 1)
    bad("--steps, --layers and --heads must be positive");
  if (o.corpus.empty() || o.out.empty()) bad("--corpus and --out are required");
  if (!o.resume.empty() && !o.tokenizer.empty())
    bad("--tokenizer: a resumed run keeps its checkpoint's tokenizer; give --tokenizer or "
        "--resume, not both");
  // Out-of-range numbers give NaN losses or silently different recipes.
  auto within = [](double x, double lo, double hi) {
    return std::isfinite(x) && x >= lo && x <= hi;
  };
  if (!within(o.learning_rate, 0.0, 1.0) || o.learning_rate <= 0.0)
    bad("--lr must be a number above 0 and at most 1");
  if (!within(o.weight_decay, 0.0, 1.0)) bad("--weight-decay must be a number from 0 to 1");
  if (!within(o.ntk_scale, 1.0, 1e4)) bad("--ntk-scale must be a number from 1 to 10000");
  if (o.warmup_steps < 0 || o.checkpoint_every < 1 || o.log_every < 1)
    bad("--warmup must be 0 or more, --checkpoint-every and --log-every 1 or more");
  if (o.eval_inputs < 1 || o.eval_tokens < 8)
    bad("the evaluation needs inputs of 8 tokens or more");
}

// A folder the run writes into: made when missing, never a link (it would
// send the model somewhere else) and never a file.
void require_output_folder(const fs::path& folder) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(folder, ec);
  if (st.type() == fs::file_type::not_found) {
    fs::create_directories(folder);
    return;
  }
  if (st.type() == fs::file_type::symlink)
    throw std::invalid_argument(folder.string() +
                                ": is a link; SinkScope writes only into real folders");
  if (st.type() != fs::file_type::directory)
    throw std::invalid_argument(folder.string() + ": exists and is not a folder");
}

// --out holds a model already: replaced only with --force.
void require_replaceable_run(const TrainOptions& o) {
  require_output_folder(o.out);
  if (o.force) return;
  for (const char* name : {"config.json", "model.safetensors", "log.csv", "checkpoints"}) {
    std::error_code ec;
    if (fs::symlink_status(o.out / name, ec).type() != fs::file_type::not_found)
      throw std::invalid_argument(o.out.string() + ": holds a model or a run already (" + name +
                                  "); use --force to replace it");
  }
}

// trainer_state.json of the run being resumed: every field checked against this run.
struct ResumedState {
  int step = 0;
  long long tokens = 0;
};
ResumedState resumed_state(const json& state, const TrainOptions& o) {
  const std::string where = (o.resume / "trainer_state.json").string();
  if (!state.is_object()) throw std::invalid_argument(where + ": not a JSON object");
  for (const char* key : {"step", "tokens"})
    if (!state.contains(key) || !state.at(key).is_number_integer())
      throw std::invalid_argument(where + ": \"" + key + "\" must be a whole number");
  const json& step = state.at("step");
  const json& tokens = state.at("tokens");
  if ((step.is_number_unsigned()
           ? step.get<std::uint64_t>() >= static_cast<std::uint64_t>(o.steps)
           : step.get<std::int64_t>() < 0 || step.get<std::int64_t>() >= o.steps))
    throw std::invalid_argument(where + ": \"step\" " + step.dump() + " must be from 0 to " +
                                std::to_string(o.steps - 1) + " (below --steps " +
                                std::to_string(o.steps) + ")");
  ResumedState r;
  r.step = static_cast<int>(step.get<std::int64_t>());
  constexpr long long kMostTokensPerStep = 1LL << 22;  // --batch-tokens' limit
  const long long most = static_cast<long long>(r.step) * kMostTokensPerStep;
  if (!tokens.is_number_unsigned() && tokens.get<std::int64_t>() < 0)
    throw std::invalid_argument(where + ": \"tokens\" " + tokens.dump() + " is negative");
  if (tokens.is_number_unsigned() && tokens.get<std::uint64_t>() > static_cast<std::uint64_t>(most))
    throw std::invalid_argument(where + ": \"tokens\" " + tokens.dump() + " is more than " +
                                std::to_string(r.step) + " steps can have seen");
  r.tokens = tokens.get<long long>();
  return r;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Sentences turned into one token stream and cut into training sequences.
class Packer {
 public:
  Packer(const TrainOptions& o, const Tokenizer& tok, const std::vector<std::string>& sentences)
      : o_(o), rng_(o.seed) {
    bos_ = *tok.tokenToId("<s>");
    eos_ = *tok.tokenToId("</s>");
    if (auto m = tok.tokenToId("<mask>")) mask_ = *m;
    vocab_ = static_cast<int>(tok.vocabSize());
    const bool everyBos = o.architecture == "decoder" && o.bos_mode == "every";
    for (const auto& s : sentences) {
      const auto ids = tok.encode(s, false).ids;
      if (ids.empty()) continue;
      if (everyBos) stream_.push_back(bos_);
      stream_.insert(stream_.end(), ids.begin(), ids.end());
      if (!everyBos) stream_.push_back(eos_);
    }
    if (stream_.size() < static_cast<std::size_t>(2 * o.context + 2))
      throw std::invalid_argument("--corpus: too little text for --context " +
                                  std::to_string(o.context));
  }

  // One sequence of context + 1 tokens (inputs are the first T, targets the last T).
  std::vector<int> sequence() {
    const int T = o_.context;
    std::uniform_int_distribution<std::size_t> start(
        0, stream_.size() - static_cast<std::size_t>(T) - 2);
    const std::size_t s = start(rng_);
    std::vector<int> seq(stream_.begin() + static_cast<long>(s),
                         stream_.begin() + static_cast<long>(s) + T + 1);
    const bool firstBos = o_.architecture == "encoder" || o_.bos_mode == "first";
    if (firstBos) seq.insert(seq.begin(), bos_), seq.pop_back();
    return seq;
  }

  // Inputs of eval_tokens tokens as a user would give them: held-out sentences
  // joined into one text, encoded with the tokenizer's own special tokens.
  std::vector<std::vector<int>> evalInputs(const Tokenizer& tok,
                                           const std::vector<std::string>& heldout) const {
    return sink_eval_inputs(tok, heldout, o_.eval_inputs, o_.eval_tokens);
  }

  // Masked-LM corruption: 15% of positions (never position 0) become targets;
  // of those 80% -> <mask>, 10% -> a random token, 10% unchanged.
  void maskTokens(std::vector<int>& inputs, std::vector<long>& targets) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> randomToken(0, vocab_ - 1);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      targets[i] = -100;
      if (i == 0 || u(rng_) >= 0.15) continue;
      targets[i] = inputs[i];
      const double r = u(rng_);
      if (r < 0.8)
        inputs[i] = mask_;
      else if (r < 0.9)
        inputs[i] = randomToken(rng_);
    }
  }

 private:
  const TrainOptions& o_;
  std::mt19937_64 rng_;
  std::vector<int> stream_;
  int bos_ = 0, eos_ = 0, mask_ = 0, vocab_ = 0;
};

struct AdamW {
  std::vector<at::Tensor> params, m, v;
  std::vector<bool> decay;
  int step = 0;

  explicit AdamW(const std::vector<std::pair<std::string, at::Tensor>>& named) {
    for (const auto& [name, t] : named) {
      params.push_back(t);
      m.push_back(at::zeros_like(t));
      v.push_back(at::zeros_like(t));
      decay.push_back(t.dim() >= 2);  // matrices decay; norms and biases do not
    }
  }
  void update(double lr, double weightDecay, double beta1 = 0.9, double beta2 = 0.95,
              double eps = 1e-8) {
    at::NoGradGuard guard;
    ++step;
    const double c1 = 1.0 - std::pow(beta1, step), c2 = 1.0 - std::pow(beta2, step);
    for (std::size_t i = 0; i < params.size(); ++i) {
      at::Tensor& p = params[i];
      if (!p.grad().defined()) continue;
      const at::Tensor g = p.grad();
      if (decay[i]) p.mul_(1.0 - lr * weightDecay);
      m[i].mul_(beta1).add_(g, 1.0 - beta1);
      v[i].mul_(beta2).addcmul_(g, g, 1.0 - beta2);
      p.addcdiv_(m[i] / c1, (v[i] / c2).sqrt_().add_(eps), -lr);
      p.mutable_grad().zero_();
    }
  }
};

double clip_gradients(const std::vector<at::Tensor>& params, double maxNorm) {
  at::NoGradGuard guard;
  double total = 0.0;
  for (const auto& p : params)
    if (p.grad().defined()) total += p.grad().pow(2).sum().item<double>();
  total = std::sqrt(total);
  if (total > maxNorm)
    for (const auto& p : params)
      if (p.grad().defined()) p.grad().mul_(maxNorm / (total + 1e-6));
  return total;
}

std::vector<TensorData> tensors_of(const std::vector<at::Tensor>& tensors,
                                   const std::vector<std::string>& names, DType dtype) {
  std::vector<TensorData> out;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor t = tensors[i].detach().to(at::kCPU).contiguous();
    std::vector<std::int64_t> shape(t.sizes().begin(), t.sizes().end());
    out.push_back(tensor_from_f32(
        names[i], shape,
        std::span<const float>(t.data_ptr<float>(), static_cast<std::size_t>(t.numel())), dtype));
  }
  return out;
}

std::string log_csv(const std::vector<TrainLogRow>& rows, const TrainOptions& o,
                    const std::string& evaluation) {
  io::CsvTable t;
  t.comments = {
      {"tool", "sinkscope-cli train"},
      {"architecture", o.architecture},
      {"position_encoding", o.position_encoding},
      {"bos_mode", o.bos_mode},
      {"context", std::to_string(o.context)},
      {"eval", evaluation},
      {"metrics",
       "alpha0 = mean attention to position 0 over heads; boost = alpha0 / uniform baseline "
       "(metrics.md s. 1); heads_boost3 = share of heads with boost >= 3; sink_rate = share "
       "of heads with alpha0 > 0.3; sink_concentration = mean over heads of the % of attention "
       "mass on sink keys (percentile mode, p = 90, gamma = 0.3)"}};
  t.columns = {"step",   "tokens", "loss",         "learning_rate", "tokens_per_second",
               "alpha0", "boost",  "heads_boost3", "sink_rate",     "sink_concentration"};
  for (const auto& r : rows)
    t.rows.push_back({std::to_string(r.step), std::to_string(r.tokens), io::csv_number(r.loss),
                      io::csv_number(r.learning_rate), io::csv_number(r.tokens_per_second),
                      io::csv_number_or_empty(r.alpha0), io::csv_number_or_empty(r.boost),
                      io::csv_number_or_empty(r.heads_boost3), io::csv_number_or_empty(r.sink_rate),
                      io::csv_number_or_empty(r.sink_concentration)});
  return io::csv_render(t);
}

json recipe_of(const TrainOptions& o) {
  return {
      {"architecture", o.architecture},
      {"position_encoding", o.position_encoding},
      {"ntk_scale", o.ntk_scale},
      {"layers", o.layers},
      {"heads", o.heads},
      {"hidden", o.hidden},
      {"intermediate", o.intermediate},
      {"vocab_size", o.vocab_size},
      {"context", o.context},
      {"batch_tokens", o.batch_tokens},
      {"steps", o.steps},
      {"learning_rate", o.learning_rate},
      {"warmup_steps", o.warmup_steps},
      {"weight_decay", o.weight_decay},
      {"bos_mode", o.bos_mode},
      {"seed", o.seed},
      {"optimizer", "AdamW (beta1 0.9, beta2 0.95), gradient clipping 1.0, cosine decay to 10%"},
      {"corpus", o.corpus.filename().string()}};
}

}  // namespace

namespace {

// Without --heldout, the corpus's last tenth is held out of training and
// measured, so the sink columns always come from text the model never saw.
struct HeldOut {
  std::vector<std::string> sentences;
  std::string source;  // in words, for the log's header
};

HeldOut held_out(const TrainOptions& o, std::vector<std::string>& sentences) {
  HeldOut h;
  if (!o.heldout.empty()) {
    h.sentences = corpus_read_lines(o.heldout);
    h.source = o.heldout.filename().string();
  } else if (sentences.size() >= 10) {
    const auto keep = sentences.size() - sentences.size() / 10;
    h.sentences.assign(
        std::make_move_iterator(sentences.begin() + static_cast<std::ptrdiff_t>(keep)),
        std::make_move_iterator(sentences.end()));
    sentences.resize(keep);
    h.source = "the corpus's last " + std::to_string(h.sentences.size()) +
               " sentences, held out of training (no --heldout)";
  }
  return h;
}

// The tokenizer: given, from the checkpoint being resumed, or learned here.
std::string tokenizer_json(const TrainOptions& o, const std::vector<std::string>& sentences) {
  if (!o.resume.empty()) return read_text(o.resume / "tokenizer.json");
  if (!o.tokenizer.empty()) return read_text(o.tokenizer);
  BpeTrainingOptions b;
  b.vocab_size = o.vocab_size;
  b.mask_token = o.architecture == "encoder";
  b.add_bos = o.architecture == "encoder" || o.bos_mode != "none";
  b.add_eos = o.architecture == "encoder";
  return bpe_train(sentences, b);
}

// A new model of the recipe's shape, its config.json written to --out.
std::shared_ptr<Model> new_model(const TrainOptions& o, const Tokenizer& tokenizer,
                                 const std::string& tokenizerJson) {
  RandomModelSpec spec = random_model_spec_for(o.architecture == "decoder" ? "llama" : "bert");
  spec.layers = o.layers;
  spec.heads = o.heads;
  spec.kv_heads = o.heads;
  spec.hidden = o.hidden;
  spec.intermediate = o.intermediate;
  spec.vocab = o.vocab_size;
  spec.max_positions = o.position_encoding == "learned" ? std::max(o.context, o.eval_tokens)
                                                        : std::max(4 * o.context, 512);
  spec.seed = o.seed;
  spec.weight_std = 0.02;
  spec.prefixed = false;
  spec.llama3_rope_scaling = false;
  spec.tie_embeddings = false;
  spec.tokenizer_json = tokenizerJson;
  spec.position_encoding = o.position_encoding == "ntk_rope" ? "rope" : o.position_encoding;
  json extra = {{"sinkscope_recipe", recipe_of(o)},
                {"bos_token_id", *tokenizer.tokenToId("<s>")},
                {"eos_token_id", *tokenizer.tokenToId("</s>")},
                {"pad_token_id", *tokenizer.tokenToId("<pad>")}};
  if (o.position_encoding == "ntk_rope") {
    const double d = static_cast<double>(o.hidden / o.heads);
    extra["rope_theta"] = 10000.0 * std::pow(o.ntk_scale, d / (d - 2.0));
  }
  spec.config_extra = extra.dump();
  const fs::path init = o.out / ".init";
  fs::remove_all(init);
  std::shared_ptr<Model> model;
  try {
    model_folder_write_random(init, spec);
    LoadOptions lo;
    lo.trainable = true;
    model = torch_backend::load_model(init, lo);
    // Written, not copied: a copy follows a link at the destination.
    io::file_write_atomic(o.out / "config.json", read_text(init / "config.json"), true);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(init, ignored);  // a full disk leaves nothing behind
    throw;
  }
  fs::remove_all(init);  // the trainable weights are owned copies
  return model;
}

// The resumed checkpoint's optimizer moments, each read into its parameter's
// buffer: the shapes must agree.
void restore_moments(AdamW& adam, const std::vector<std::string>& names, const fs::path& resume) {
  const fs::path optimizerFile = resume / "optimizer.safetensors";
  const auto opt = SafetensorsFile::open(optimizerFile);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto* m = opt.find("m." + names[i]);
    const auto* v = opt.find("v." + names[i]);
    if (!m || !v)
      throw std::invalid_argument(resume.string() + ": optimizer state lacks " + names[i]);
    const std::vector<std::int64_t> want(adam.m[i].sizes().begin(), adam.m[i].sizes().end());
    for (const TensorView* t : {m, v})
      if (t->shape != want)
        throw std::invalid_argument(optimizerFile.string() + ": " + t->name + " has shape " +
                                    shape_text(t->shape) + ", the model's " + names[i] + " has " +
                                    shape_text(want));
    adam.m[i].copy_(at::from_blob(tensor_to_f32(*m).data(), adam.m[i].sizes(), at::kFloat));
    adam.v[i].copy_(at::from_blob(tensor_to_f32(*v).data(), adam.v[i].sizes(), at::kFloat));
  }
}

// The log rows of the resumed run so far (its log.csv, read as hostile input).
std::vector<TrainLogRow> resumed_log_rows(const fs::path& resume) {
  std::vector<TrainLogRow> rows;
  const fs::path file = resume / "log.csv";
  for (const auto& line : corpus_read_lines(file)) {
    if (line.empty() || line[0] == '#' || line.rfind("step,", 0) == 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (cells.size() != 10)
      throw std::invalid_argument(file.string() + ": a row of " + std::to_string(cells.size()) +
                                  " cells, not 10");
    auto number = [&](std::size_t k) {
      return cells[k].empty() ? TrainLogRow::kNotMeasured : std::strtod(cells[k].c_str(), nullptr);
    };
    auto whole = [&](std::size_t k, double most) {
      const double x = number(k);
      if (!(x >= 0 && x <= most) || x != std::floor(x))
        throw std::invalid_argument(file.string() + ": '" + cells[k] +
                                    "' is not a whole number of " + (k == 0 ? "steps" : "tokens"));
      return x;
    };
    TrainLogRow r;
    r.step = static_cast<int>(whole(0, 2147483647.0));
    r.tokens = static_cast<long long>(whole(1, 9.0e18));
    r.loss = number(2);
    r.learning_rate = number(3);
    r.tokens_per_second = number(4);
    r.alpha0 = number(5);
    r.boost = number(6);
    r.heads_boost3 = number(7);
    r.sink_rate = number(8);
    r.sink_concentration = number(9);
    rows.push_back(r);
  }
  return rows;
}

// What the log's header says the sink columns were measured on.
std::string evaluation_text(const TrainOptions& o, const std::vector<std::vector<int>>& evalInputs,
                            const std::string& heldoutSource) {
  if (!evalInputs.empty())
    return std::to_string(evalInputs.size()) + " held-out inputs of " +
           std::to_string(o.eval_tokens) + " tokens from " + heldoutSource;
  return "none: " +
         (heldoutSource.empty() ? std::string("no --heldout and a corpus under 10 sentences")
                                : heldoutSource + " hold(s) no input of " +
                                      std::to_string(o.eval_tokens) + " tokens") +
         "; the sink columns are empty";
}

// Linear warmup, then cosine decay to 10%.
double learning_rate_at(const TrainOptions& o, int step) {
  const double lr = o.learning_rate;
  if (step <= o.warmup_steps) return lr * (static_cast<double>(step) / o.warmup_steps);
  const double t =
      static_cast<double>(step - o.warmup_steps) / std::max(1, o.steps - o.warmup_steps);
  return lr * (0.1 + 0.9 * 0.5 * (1.0 + std::cos(std::numbers::pi * t)));
}

// One batch of inputs and targets: the next token (decoder) or masked tokens (encoder).
std::pair<at::Tensor, at::Tensor> next_batch(Packer& packer, const TrainOptions& o, int batch) {
  const bool encoder = o.architecture == "encoder";
  at::Tensor inputs = at::empty({batch, o.context}, at::kLong);
  at::Tensor targets = at::empty({batch, o.context}, at::kLong);
  for (int b = 0; b < batch; ++b) {
    std::vector<int> seq = packer.sequence();
    std::vector<int> in(seq.begin(), seq.begin() + o.context);
    std::vector<long> tg(static_cast<std::size_t>(o.context));
    if (encoder)
      packer.maskTokens(in, tg);
    else
      for (int t = 0; t < o.context; ++t)
        tg[static_cast<std::size_t>(t)] = seq[static_cast<std::size_t>(t) + 1];
    for (int t = 0; t < o.context; ++t) {
      inputs[b][t] = in[static_cast<std::size_t>(t)];
      targets[b][t] = tg[static_cast<std::size_t>(t)];
    }
  }
  return {inputs, targets};
}

// A training run in progress: the model, its optimizer and log, and where it is saved.
struct TrainingRun {
  const TrainOptions& o;
  std::shared_ptr<Model> model;
  std::string tokenizerJson;
  std::vector<std::string> names;
  std::vector<at::Tensor> params;
  AdamW adam;
  long long tokens = 0;
  std::vector<TrainLogRow> rows;
  std::string evaluation;

  TrainingRun(const TrainOptions& options, std::shared_ptr<Model> m, std::string tokenizer)
      : o(options),
        model(std::move(m)),
        tokenizerJson(std::move(tokenizer)),
        adam(ModelAccess::impl(*model)->weights.named) {
    for (const auto& [n, t] : ModelAccess::impl(*model)->weights.named) {
      names.push_back(n);
      params.push_back(t);
    }
  }

  // The weights, log and recipe to `folder`; with the optimizer's state for
  // --resume. Everything is written into a staging folder first and moved
  // into place only when it is all there: a full disk leaves no checkpoint
  // without its weights or optimizer, and no final model half replaced.
  void save(const fs::path& folder, bool withOptimizer) const {
    const bool final = folder == o.out;
    if (!final) require_output_folder(folder.parent_path());  // checkpoints/ is no link either
    const fs::path staging =
        (final ? o.out : folder.parent_path()) /
        ("." + (final ? std::string("final") : folder.filename().string()) + ".partial");
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    try {
      fs::create_directory(staging);
      writeInto(staging, withOptimizer);
      if (final) {
        // Each file replaces its old self by a rename (no space needed).
        for (const auto& entry : fs::directory_iterator(staging))
          fs::rename(entry.path(), o.out / entry.path().filename());
        fs::remove(staging);
      } else {
        fs::remove_all(folder);
        fs::rename(staging, folder);
      }
    } catch (const std::exception& e) {
      fs::remove_all(staging, ignored);
      throw std::runtime_error(folder.string() + ": not saved (" + e.what() + ")");
    }
  }

 private:
  void writeInto(const fs::path& folder, bool withOptimizer) const {
    io::file_write_atomic(folder / "config.json", read_text(o.out / "config.json"), true);
    io::file_write_atomic(folder / "tokenizer.json", tokenizerJson, true);
    safetensors_write(folder / "model.safetensors", tensors_of(params, names, o.save_dtype),
                      {{"format", "pt"}, {"sinkscope", "trainer"}});
    io::file_write_atomic(folder / "log.csv", log_csv(rows, o, evaluation), true);
    io::file_write_atomic(folder / "recipe.json", recipe_of(o).dump(2), true);
    if (!withOptimizer) return;
    std::vector<at::Tensor> mv;
    std::vector<std::string> mvNames;
    for (std::size_t i = 0; i < names.size(); ++i) {
      mv.push_back(adam.m[i]);
      mvNames.push_back("m." + names[i]);
      mv.push_back(adam.v[i]);
      mvNames.push_back("v." + names[i]);
    }
    safetensors_write(folder / "optimizer.safetensors", tensors_of(mv, mvNames, DType::F32));
    io::file_write_atomic(
        folder / "trainer_state.json",
        json({{"step", adam.step}, {"tokens", tokens}, {"recipe", recipe_of(o)}}).dump(2), true);
  }
};

// The step the resumed run continues after (0 for a new one).
int resume_run(TrainingRun& run) {
  const TrainOptions& o = run.o;
  const json state = internal::json_parse_bounded(read_text(o.resume / "trainer_state.json"),
                                                  (o.resume / "trainer_state.json").string());
  const ResumedState resumed = resumed_state(state, o);
  run.tokens = resumed.tokens;
  run.adam.step = resumed.step;
  restore_moments(run.adam, run.names, o.resume);
  run.rows = resumed_log_rows(o.resume);  // keep the rows so far
  io::file_write_atomic(o.out / "config.json", read_text(o.resume / "config.json"), true);
  return resumed.step;
}

std::runtime_error diverged(int step, double loss, const fs::path& lastCheckpoint) {
  return std::runtime_error(
      "step " + std::to_string(step) + ": the loss is " + std::to_string(loss) +
      "; training stopped (try a lower --lr). " +
      (lastCheckpoint.empty()
           ? std::string("No checkpoint was saved before it.")
           : "The last good checkpoint is " + lastCheckpoint.string() + " (--resume it)."));
}

}  // namespace

namespace {

// The run itself; `lastCheckpoint` is the last checkpoint saved whole.
TrainResult train_run(const TrainOptions& given, const ProgressFn& progress,
                      const std::function<void(const TrainLogRow&)>& onLog,
                      fs::path& lastCheckpoint) {
  TrainOptions o = given;
  validate(o);
  at::manual_seed(o.seed);
  auto sentences = corpus_read_lines(o.corpus);
  const HeldOut heldout = held_out(o, sentences);
  std::string tokenizerJson = tokenizer_json(o, sentences);
  const auto tokenizer = Tokenizer::fromJson(tokenizerJson);
  o.vocab_size = static_cast<int>(tokenizer->vocabSize());

  require_replaceable_run(o);
  std::shared_ptr<Model> model;
  if (!o.resume.empty()) {
    LoadOptions lo;
    lo.trainable = true;
    model = torch_backend::load_model(o.resume, lo);
  } else {
    model = new_model(o, *tokenizer, tokenizerJson);
  }
  // A checkpoint whose tokenizer is not the one its model was trained with
  // would hand the embedding ids beyond its rows.
  if (const int rows = ModelAccess::impl(*model)->config.vocab_size; o.vocab_size > rows)
    throw std::invalid_argument(
        (o.resume.empty() ? std::string("--tokenizer") : (o.resume / "tokenizer.json").string()) +
        ": " + std::to_string(o.vocab_size) + " tokens, but the model's embedding has " +
        std::to_string(rows) +
        " rows (config.json's vocab_size): not the tokenizer it was "
        "trained with");
  TrainingRun run(o, model, std::move(tokenizerJson));
  const int firstStep = o.resume.empty() ? 0 : resume_run(run);
  auto impl = ModelAccess::impl(*model);

  Packer packer(o, *tokenizer, sentences);
  const auto evalInputs = packer.evalInputs(*tokenizer, heldout.sentences);
  run.evaluation = evaluation_text(o, evalInputs, heldout.source);
  const int batch = std::max(1, o.batch_tokens / o.context);

  double lastLoss = 0.0;
  auto clock = std::chrono::steady_clock::now();
  long long tokensAtClock = run.tokens;
  for (int step = firstStep + 1; step <= o.steps; ++step) {
    const double lr = learning_rate_at(o, step);
    const auto [inputs, targets] = next_batch(packer, o, batch);
    const at::Tensor logits = internal::forward_logits(*impl, inputs);
    const at::Tensor loss = at::cross_entropy_loss(logits.reshape({-1, impl->config.vocab_size}),
                                                   targets.reshape({-1}).to(impl->device), {},
                                                   at::Reduction::Mean, -100);
    lastLoss = loss.item<double>();
    // Diverged: the weights are about to become NaN; the last checkpoint stays good.
    if (!std::isfinite(lastLoss)) throw diverged(step, lastLoss, lastCheckpoint);
    loss.backward();
    clip_gradients(run.params, 1.0);
    run.adam.update(lr, o.weight_decay);
    run.tokens += static_cast<long long>(batch) * o.context;

    if (step % o.log_every == 0 || step == o.steps || step % o.checkpoint_every == 0) {
      const auto now = std::chrono::steady_clock::now();
      const double seconds = std::chrono::duration<double>(now - clock).count();
      TrainLogRow row = sink_measure(*model, evalInputs);
      row.step = step;
      row.tokens = run.tokens;
      row.loss = lastLoss;
      row.learning_rate = lr;
      row.tokens_per_second =
          seconds > 0 ? static_cast<double>(run.tokens - tokensAtClock) / seconds : 0.0;
      run.rows.push_back(row);
      if (onLog) onLog(row);
      clock = std::chrono::steady_clock::now();
      tokensAtClock = run.tokens;
    }
    if (step % o.checkpoint_every == 0 && step < o.steps) {
      const fs::path checkpoint = o.out / "checkpoints" / ("step-" + std::to_string(step));
      run.save(checkpoint, true);
      lastCheckpoint = checkpoint;  // only once it is whole
    }
    if (progress && !progress(static_cast<double>(step) / o.steps)) {
      run.save(o.out / "checkpoints" / ("step-" + std::to_string(step)), true);
      throw RunCancelled();
    }
  }
  run.save(o.out, false);
  TrainResult result{o.steps, lastLoss, o.out, {}, {}};
  if (!evalInputs.empty()) {
    result.probe_ids = evalInputs.front();
    result.probe_logits = model->run(result.probe_ids).logits();
  }
  return result;
}

}  // namespace

TrainResult torch_backend::train_model(const TrainOptions& given, const ProgressFn& progress,
                                       const std::function<void(const TrainLogRow&)>& onLog) {
  std::error_code ec;
  const bool outIsNew = fs::symlink_status(given.out, ec).type() == fs::file_type::not_found;
  fs::path lastCheckpoint;
  try {
    return train_run(given, progress, onLog, lastCheckpoint);
  } catch (const RunCancelled&) {
    throw;  // it saved where it stopped
  } catch (...) {
    // A run that fails before its first whole checkpoint (a full disk, a bad
    // corpus) leaves no folder it made: nothing to resume, nothing to block
    // the next run without --force.
    if (outIsNew && lastCheckpoint.empty()) fs::remove_all(given.out, ec);
    throw;
  }
}

}  // namespace sinkscope::models
