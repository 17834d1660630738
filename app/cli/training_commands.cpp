// sinkscope-cli corpus, train and sinks.
#include "app/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/first_token_sink.h"
#include "app/cli/command_line.h"
#include "models/io/table_io.h"
#include "models/corpus.h"
#include "models/loaded_model.h"
#include "models/trainer.h"

namespace sinkscope::cli {

int command_corpus(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string outText, wordnet = "/usr/share/wordnet";
  int heldout = 500;
  bool force = false;
  CommandLine command(
      "corpus",
      "Builds the training corpus from Debian's wordnet-base: every gloss's definitions and\n"
      "example sentences, deduplicated and shuffled with a fixed seed. Writes DIR/train.txt and\n"
      "DIR/heldout.txt (N sentences of 6-50 words), one sentence per line.");
  CLI::App& app = command.app();
  app.add_option("--out", outText, "the corpus folder")->type_name("DIR")->required();
  app.add_option("--wordnet", wordnet, "WordNet's database")->type_name("DIR")->capture_default_str();
  app.add_option("--heldout", heldout, range_text("sentences held out", 0, 100000))
      ->type_name("N")->check(whole_in(0, 100000))->capture_default_str();
  app.add_flag("--force", force, "replace the files when they exist");
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  std::vector<std::string> sentences;
  try {
    sentences = m::corpus_wordnet_sentences(wordnet);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  const auto split = m::corpus_split(std::move(sentences), heldout, 6, 50);
  const std::filesystem::path out = outText;
  std::error_code ec;
  if (std::filesystem::is_symlink(out, ec))
    throw UsageError("--out " + out.string() + ": is a link; SinkScope writes only into real folders");
  auto lines = [](const std::vector<std::string>& sentences) {
    std::string text;
    for (const auto& s : sentences) text += s + "\n";
    return text;
  };
  // Both files or neither; what exists is replaced only with --force.
  try {
    sinkscope::io::files_write_atomic(
        {{out / "train.txt", lines(split.train)}, {out / "heldout.txt", lines(split.heldout)}},
        force);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::cout << split.train.size() << " training sentences, " << split.heldout.size()
            << " held out: " << out.string() << "\n";
  return kOk;
}

namespace {

// train's options, declared once; what CLI11 cannot bind to TrainOptions
// directly (paths, the dtype's name, whether --position-encoding was given)
// is turned into it by options().
struct TrainOptionsLine {
  models::TrainOptions given;  // what binds directly
  std::string corpus, out, heldout, tokenizer, resume, saveDtype = "F16";
  CLI::Option* positions = nullptr;

  explicit TrainOptionsLine(CLI::App& app) {
    app.add_option("--corpus", corpus, "one sentence per line")->type_name("FILE")->required();
    app.add_option("--out", out, "the model folder")->type_name("DIR")->required();
    app.add_flag("--force", given.force, "replace the model or run DIR holds already");
    app.add_option("--resume", resume, "continue from a checkpoint folder")->type_name("DIR");
    const char* model = "The model";
    app.add_option("--architecture", given.architecture, "decoder or encoder")
        ->type_name("KIND")->check(CLI::IsMember({"decoder", "encoder"}))->group(model)->capture_default_str();
    positions =
        app.add_option("--position-encoding", given.position_encoding, "(an encoder's default: learned)")
            ->type_name("P")->check(CLI::IsMember({"rope", "ntk_rope", "learned", "alibi", "none"}))
            ->group(model)->capture_default_str();
    app.add_option("--ntk-scale", given.ntk_scale, range_text("ntk_rope's scale", 1e-6, 1e6))
        ->type_name("S")->check(number_in(1e-6, 1e6))->group(model)->capture_default_str();
    app.add_option("--bos", given.bos_mode,
                   "<s> before every sentence, only at position 0 with </s> between sentences, or never")
        ->type_name("MODE")->check(CLI::IsMember({"every", "first", "none"}))->group(model)->capture_default_str();
    app.add_option("--layers", given.layers, range_text("layers", 1, 64))
        ->type_name("N")->check(whole_in(1, 64))->group(model)->capture_default_str();
    app.add_option("--heads", given.heads, range_text("heads", 1, 64))
        ->type_name("N")->check(whole_in(1, 64))->group(model)->capture_default_str();
    app.add_option("--hidden", given.hidden, range_text("hidden size", 8, 8192))
        ->type_name("N")->check(whole_in(8, 8192))->group(model)->capture_default_str();
    app.add_option("--intermediate", given.intermediate, range_text("MLP size", 8, 32768))
        ->type_name("N")->check(whole_in(8, 32768))->group(model)->capture_default_str();
    app.add_option("--vocab", given.vocab_size, range_text("byte-level BPE learned from the corpus", 300, 200000))
        ->type_name("N")->check(whole_in(300, 200000))->group(model)->capture_default_str();
    app.add_option("--tokenizer", tokenizer, "use this tokenizer.json instead")
        ->type_name("FILE")->group(model);
    const char* training = "Training";
    app.add_option("--context", given.context, range_text("tokens per sequence", 8, 8192))
        ->type_name("T")->check(whole_in(8, 8192))->group(training)->capture_default_str();
    app.add_option("--batch-tokens", given.batch_tokens, range_text("tokens per step", 8, 1 << 22))
        ->type_name("N")->check(whole_in(8, 1 << 22))->group(training)->capture_default_str();
    app.add_option("--steps", given.steps, range_text("optimizer steps", 1, 10000000))
        ->type_name("N")->check(whole_in(1, 10000000))->group(training)->capture_default_str();
    app.add_option("--lr", given.learning_rate, range_text("the peak learning rate", 0, 1000))
        ->type_name("X")->check(number_in(0, 1000))->group(training)->capture_default_str();
    app.add_option("--warmup", given.warmup_steps, range_text("warm-up steps", 0, 10000000))
        ->type_name("N")->check(whole_in(0, 10000000))->group(training)->capture_default_str();
    app.add_option("--weight-decay", given.weight_decay, range_text("AdamW's weight decay", 0, 1000))
        ->type_name("X")->check(number_in(0, 1000))->group(training)->capture_default_str();
    app.add_option("--seed", given.seed, range_text("the seed", 0, 1 << 30))
        ->type_name("N")->check(whole_in(0, 1 << 30))->group(training)->capture_default_str();
    const char* saved = "What is saved and measured";
    app.add_option("--heldout", heldout,
                   "sentences for the sink measurements (without it: the corpus's last tenth, not "
                   "trained on)")
        ->type_name("FILE")->group(saved);
    app.add_option("--checkpoint-every", given.checkpoint_every, range_text("steps", 1, 10000000))
        ->type_name("N")->check(whole_in(1, 10000000))->group(saved)->capture_default_str();
    app.add_option("--log-every", given.log_every, range_text("steps", 1, 10000000))
        ->type_name("N")->check(whole_in(1, 10000000))->group(saved)->capture_default_str();
    app.add_option("--save-dtype", saveDtype, "the checkpoints' weights")
        ->type_name("DTYPE")->check(CLI::IsMember({"F16", "BF16", "F32"}))->group(saved)->capture_default_str();
  }

  models::TrainOptions options() const {
    models::TrainOptions o = given;
    if (positions->count() == 0 && o.architecture == "encoder") o.position_encoding = "learned";
    o.corpus = corpus;
    o.out = out;
    o.heldout = heldout;
    o.tokenizer = tokenizer;
    o.resume = resume;
    o.save_dtype = parse_weight_dtype("save-dtype", saveDtype);
    return o;
  }
};

}  // namespace

int command_train(int argc, char** argv) {
  namespace m = sinkscope::models;
  CommandLine command(
      "train",
      "Trains a small model (a Llama-style decoder or a BERT-style encoder) on a corpus of one\n"
      "sentence per line; checkpoints are Hugging Face model folders (DIR/checkpoints/step-N),\n"
      "the final model is DIR itself, with recipe.json and log.csv (loss and first-token sink\n"
      "metrics on held-out inputs).");
  TrainOptionsLine line(command.app());
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  const m::TrainOptions o = line.options();
  const bool tty = isatty(2);
  try {
    const auto result = m::train_model(o, {}, [&](const m::TrainLogRow& r) {
      std::fprintf(stderr, "%sstep %d  tokens %lld  loss %.4f  lr %.2e  %.0f tok/s", tty ? "\r" : "",
                   r.step, r.tokens, r.loss, r.learning_rate, r.tokens_per_second);
      if (r.measured())
        std::fprintf(stderr, "  alpha0 %.3f  boost %.2f  heads>=3x %.2f", r.alpha0, r.boost,
                     r.heads_boost3);
      std::fprintf(stderr, "%s", tty ? "  " : "\n");
    });
    if (tty) std::fprintf(stderr, "\n");
    std::cout << result.folder.string() << "\n";
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return kOk;
}

namespace {

// sinks' one row with its parameters, to `csv` and/or `json` (null: not
// asked), all or nothing.
void write_sinks_row(const std::vector<std::pair<std::string, std::string>>& comments,
                     const std::vector<double>& values, int tokens, int inputs,
                     const std::string* csv, const std::string* json, bool force) {
  const std::vector<std::string> columns{"inputs",       "tokens",    "alpha0",
                                         "boost",        "heads_boost3", "sink_rate",
                                         "sink_concentration"};
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  if (csv) {
    sinkscope::io::CsvTable table;
    table.comments = comments;
    table.columns = columns;
    std::vector<std::string> row;
    for (double v : values) row.push_back(sinkscope::io::csv_number(v));
    table.rows.push_back(row);
    files.emplace_back(*csv, sinkscope::io::csv_render(table));
  }
  if (json) {
    nlohmann::json j = {{"schema_version", 1}, {"command", "sinks"}};
    for (const auto& [k, v] : comments) j["header"][k] = v;
    j["params"] = {{"tokens", tokens},
                   {"inputs", inputs},
                   {"percentile", 90},
                   {"gamma", 0.3},
                   {"sink_denominator", "all"},
                   {"sink_rate_eps", sinkscope::analysis::kDefaultSinkMetricEps}};
    for (std::size_t k = 0; k < columns.size(); ++k) j["result"][columns[k]] = values[k];
    files.emplace_back(*json, j.dump(1));
  }
  if (!files.empty()) sinkscope::io::files_write_atomic(files, force);
}

}  // namespace

int command_sinks(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string spec, heldout, csv, json;
  int tokens = 64, inputs = 8;
  bool force = false;
  CommandLine command(
      "sinks",
      "First-token sink statistics over held-out text: sentences of FILE joined into inputs of\n"
      "--tokens tokens (with the tokenizer's own BOS), averaged over every layer and head:\n"
      "alpha0 (mean attention to position 0), boost (alpha0 over its uniform baseline), the\n"
      "share of heads with boost >= 3, the sink rate (share with alpha0 > 0.3) and the mean\n"
      "sink concentration (% of attention mass on sink keys; metrics.md s. 1, p = 90,\n"
      "gamma = 0.3 of all T queries).");
  CLI::App& app = command.app();
  add_model_argument(app, spec);
  app.add_option("--heldout", heldout, "one sentence per line")->type_name("FILE")->required();
  app.add_option("--tokens", tokens, range_text("tokens per input", 2, 100000))
      ->type_name("T")->check(whole_in(2, 100000))->capture_default_str();
  app.add_option("--inputs", inputs, range_text("inputs", 1, 100000))
      ->type_name("N")->check(whole_in(1, 100000))->capture_default_str();
  CLI::Option* csvOption =
      app.add_option("--csv", csv, "the table with its parameters (one row)")->type_name("FILE");
  CLI::Option* jsonOption = app.add_option("--json", json, "the same as JSON")->type_name("FILE");
  app.add_flag("--force", force, "replace the files when they exist");
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    if (!loaded.tokenizer) throw m::ModelRunError(spec + ": no tokenizer.json");
    std::vector<std::string> sentences;
    try {
      sentences = m::corpus_read_lines(heldout);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    const auto batch = m::sink_eval_inputs(*loaded.tokenizer, sentences, inputs, tokens);
    if (batch.empty())
      throw UsageError("--heldout: not enough text for one input of " + std::to_string(tokens) +
                       " tokens");
    const m::TrainLogRow r = m::sink_measure(*loaded.model, batch);
    std::vector<std::pair<std::string, std::string>> comments{
        {"tool", std::string("sinkscope-cli sinks ") + SINKSCOPE_VERSION},
        {"model", loaded.model->folder().string()},
        {"heldout", heldout},
        {"inputs", std::to_string(batch.size()) + " x " + std::to_string(tokens) + " tokens"},
        {"definitions",
         "alpha0: mean attention to position 0 over every layer and head (Gu et al.); boost: "
         "alpha0 over its uniform baseline; heads_boost3: share of heads with boost >= 3; "
         "sink_rate: share with alpha0 > 0.3; sink_concentration: % of attention mass on sink "
         "keys (metrics.md s. 1, p = 90, gamma = 0.3 of all T queries)"}};
    for (auto& line : provenance(loaded, argc, argv)) comments.push_back(line);
    const std::vector<double> values{static_cast<double>(batch.size()), static_cast<double>(tokens),
                                     r.alpha0, r.boost, r.heads_boost3, r.sink_rate,
                                     r.sink_concentration};
    write_sinks_row(comments, values, tokens, inputs,
                    csvOption->count() > 0 ? &csv : nullptr,
                    jsonOption->count() > 0 ? &json : nullptr, force);
    std::cout << "inputs: " << batch.size() << " x " << tokens << " tokens\n"
              << "alpha0: " << r.alpha0 << "\n"
              << "boost: " << r.boost << "\n"
              << "heads_boost3: " << r.heads_boost3 << "\n"
              << "sink_rate: " << r.sink_rate << "\n"
              << "sink_concentration: " << r.sink_concentration << "\n";
    return kOk;
  });
}

}  // namespace sinkscope::cli
