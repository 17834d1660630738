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
#include "analysis/table_io.h"
#include "models/corpus.h"
#include "models/loaded_model.h"
#include "models/trainer.h"

namespace sinkscope::cli {

const char* kCorpusHelp =
    "usage: sinkscope-cli corpus --out DIR [--wordnet DIR] [--heldout N] [--force]\n"
    "\n"
    "Builds the training corpus from Debian's wordnet-base: every gloss's definitions and\n"
    "example sentences, deduplicated and shuffled with a fixed seed. Writes DIR/train.txt and\n"
    "DIR/heldout.txt (N sentences of 6-50 words, default 500), one sentence per line;\n"
    "--force replaces them when they exist.\n";

int command_corpus(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed =
      parse_command(argc, argv, {"help", "force"}, {"out", "wordnet", "heldout"}, kCorpusHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (!args.options.count("out")) throw UsageError("corpus: option --out is required");
  const int heldout = args.options.count("heldout")
                          ? parse_int("heldout", args.options.at("heldout"), 0, 100000)
                          : 500;
  std::vector<std::string> sentences;
  try {
    sentences = m::corpus_wordnet_sentences(
        args.options.count("wordnet") ? args.options.at("wordnet") : "/usr/share/wordnet");
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  const auto split = m::corpus_split(std::move(sentences), heldout, 6, 50);
  const std::filesystem::path out = args.options.at("out");
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
    sinkscope::analysis::files_write_atomic(
        {{out / "train.txt", lines(split.train)}, {out / "heldout.txt", lines(split.heldout)}},
        args.options.count("force") > 0);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::cout << split.train.size() << " training sentences, " << split.heldout.size()
            << " held out: " << out.string() << "\n";
  return kOk;
}

const char* kTrainHelp =
    "usage: sinkscope-cli train --corpus FILE --out DIR [options]\n"
    "\n"
    "Trains a small model (a Llama-style decoder or a BERT-style encoder) on a corpus of one\n"
    "sentence per line; checkpoints are Hugging Face model folders (DIR/checkpoints/step-N),\n"
    "the final model is DIR itself, with recipe.json and log.csv (loss and first-token sink\n"
    "metrics on held-out inputs).\n"
    "\n"
    "  --architecture decoder|encoder          (decoder)\n"
    "  --position-encoding rope|ntk_rope|learned|alibi|none   (rope; encoder: learned)\n"
    "  --ntk-scale S                           (4) for ntk_rope\n"
    "  --bos every|first|none                  (every) <s> before every sentence, only at\n"
    "                                          position 0 with </s> between sentences, or never\n"
    "  --layers N --heads N --hidden N --intermediate N   (4, 4, 128, 512)\n"
    "  --vocab N                               (4096) byte-level BPE learned from the corpus\n"
    "  --tokenizer FILE                        use this tokenizer.json instead\n"
    "  --context T --batch-tokens N            (128, 2048)\n"
    "  --steps N --lr X --warmup N --weight-decay X   (1000, 1e-3, 50, 0.1)\n"
    "  --heldout FILE                          sentences for the sink measurements (without\n"
    "                                          it: the corpus's last tenth, not trained on)\n"
    "  --checkpoint-every N --log-every N      (250, 25)\n"
    "  --seed N --save-dtype F16|BF16|F32      (1, F16)\n"
    "  --resume DIR                            continue from a checkpoint folder\n"
    "  --force                                 replace the model or run DIR holds already\n";

int command_train(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(
      argc, argv, {"help", "force"}, {"corpus",    "out",          "architecture", "position-encoding",
                             "ntk-scale", "bos",          "layers",       "heads",
                             "hidden",    "intermediate", "vocab",        "tokenizer",
                             "context",   "batch-tokens", "steps",        "lr",
                             "warmup",    "weight-decay", "heldout",      "checkpoint-every",
                             "log-every", "seed",         "save-dtype",   "resume"},
      kTrainHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  m::TrainOptions o;
  auto has = [&](const char* k) { return args.options.count(k) > 0; };
  auto text = [&](const char* k) { return args.options.at(k); };
  auto integer = [&](const char* k, int lo, int hi) { return parse_int(k, text(k), lo, hi); };
  auto real = [&](const char* k) {
    return parse_real(k, text(k), -std::numeric_limits<double>::max(),
                      std::numeric_limits<double>::max());
  };

  if (has("corpus")) o.corpus = text("corpus");
  if (has("out")) o.out = text("out");
  if (has("architecture")) o.architecture = text("architecture");
  if (has("position-encoding"))
    o.position_encoding = text("position-encoding");
  else if (o.architecture == "encoder")
    o.position_encoding = "learned";
  if (has("ntk-scale")) o.ntk_scale = real("ntk-scale");
  if (has("bos")) o.bos_mode = text("bos");
  if (has("layers")) o.layers = integer("layers", 1, 64);
  if (has("heads")) o.heads = integer("heads", 1, 64);
  if (has("hidden")) o.hidden = integer("hidden", 8, 8192);
  if (has("intermediate")) o.intermediate = integer("intermediate", 8, 32768);
  if (has("vocab")) o.vocab_size = integer("vocab", 300, 200000);
  if (has("tokenizer")) o.tokenizer = text("tokenizer");
  if (has("context")) o.context = integer("context", 8, 8192);
  if (has("batch-tokens")) o.batch_tokens = integer("batch-tokens", 8, 1 << 22);
  if (has("steps")) o.steps = integer("steps", 1, 10000000);
  if (has("lr")) o.learning_rate = real("lr");
  if (has("warmup")) o.warmup_steps = integer("warmup", 0, 10000000);
  if (has("weight-decay")) o.weight_decay = real("weight-decay");
  if (has("heldout")) o.heldout = text("heldout");
  if (has("checkpoint-every")) o.checkpoint_every = integer("checkpoint-every", 1, 10000000);
  if (has("log-every")) o.log_every = integer("log-every", 1, 10000000);
  if (has("seed")) o.seed = static_cast<std::uint64_t>(integer("seed", 0, 1 << 30));
  if (has("save-dtype")) o.save_dtype = parse_weight_dtype("save-dtype", text("save-dtype"));
  if (has("resume")) o.resume = text("resume");
  o.force = args.options.count("force") > 0;
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

const char* kSinksHelp =
    "usage: sinkscope-cli sinks MODEL --heldout FILE [--tokens 64] [--inputs 8]\n"
    "                            [--csv FILE] [--json FILE] [--force]\n"
    "\n"
    "First-token sink statistics over held-out text: sentences of FILE joined into inputs of\n"
    "--tokens tokens (with the tokenizer's own BOS), averaged over every layer and head:\n"
    "alpha0 (mean attention to position 0), boost (alpha0 over its uniform baseline),\n"
    "the share of heads with boost >= 3, the sink rate (share with alpha0 > 0.3) and the mean\n"
    "sink concentration (% of attention mass on sink keys; metrics.md s. 1, p = 90, gamma = "
    "0.3 of all T queries).\n"
    "--csv FILE and --json FILE write the table with its parameters as well (one row).\n";

int command_sinks(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help", "force"},
                                    {"heldout", "tokens", "inputs", "csv", "json"}, kSinksHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "sinks");
  if (!args.options.count("heldout")) throw UsageError("sinks: option --heldout is required");
  const int tokens =
      args.options.count("tokens") ? parse_int("tokens", args.options.at("tokens"), 2, 100000) : 64;
  const int inputs =
      args.options.count("inputs") ? parse_int("inputs", args.options.at("inputs"), 1, 100000) : 8;
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    if (!loaded.tokenizer) throw m::ModelRunError(spec + ": no tokenizer.json");
    std::vector<std::string> sentences;
    try {
      sentences = m::corpus_read_lines(args.options.at("heldout"));
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    const auto batch = m::sink_eval_inputs(*loaded.tokenizer, sentences, inputs, tokens);
    if (batch.empty())
      throw UsageError("--heldout: not enough text for one input of " + std::to_string(tokens) +
                       " tokens");
    const m::TrainLogRow r = m::sink_measure(*loaded.model, batch);
    // The table with its parameters, when asked (one row; CSV and/or JSON).
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    std::vector<std::pair<std::string, std::string>> comments{
        {"tool", std::string("sinkscope-cli sinks ") + SINKSCOPE_VERSION},
        {"model", loaded.model->folder().string()},
        {"heldout", args.options.at("heldout")},
        {"inputs", std::to_string(batch.size()) + " x " + std::to_string(tokens) + " tokens"},
        {"definitions",
         "alpha0: mean attention to position 0 over every layer and head (Gu et al.); boost: "
         "alpha0 over its uniform baseline; heads_boost3: share of heads with boost >= 3; "
         "sink_rate: share with alpha0 > 0.3; sink_concentration: % of attention mass on sink "
         "keys (metrics.md s. 1, p = 90, gamma = 0.3 of all T queries)"}};
    for (auto& line : provenance(loaded, argc, argv)) comments.push_back(line);
    const std::vector<std::string> columns{"inputs",       "tokens",    "alpha0",
                                           "boost",        "heads_boost3", "sink_rate",
                                           "sink_concentration"};
    const std::vector<double> values{static_cast<double>(batch.size()), static_cast<double>(tokens),
                                     r.alpha0, r.boost, r.heads_boost3, r.sink_rate,
                                     r.sink_concentration};
    if (args.options.count("csv")) {
      sinkscope::analysis::CsvTable table;
      table.comments = comments;
      table.columns = columns;
      std::vector<std::string> row;
      for (double v : values) row.push_back(sinkscope::analysis::csv_number(v));
      table.rows.push_back(row);
      files.emplace_back(args.options.at("csv"), sinkscope::analysis::csv_render(table));
    }
    if (args.options.count("json")) {
      nlohmann::json j = {{"schema_version", 1}, {"command", "sinks"}};
      for (const auto& [k, v] : comments) j["header"][k] = v;
      j["params"] = {{"tokens", tokens},
                     {"inputs", inputs},
                     {"percentile", 90},
                     {"gamma", 0.3},
                     {"sink_denominator", "all"},
                     {"sink_rate_eps", sinkscope::analysis::kDefaultSinkMetricEps}};
      for (std::size_t k = 0; k < columns.size(); ++k) j["result"][columns[k]] = values[k];
      files.emplace_back(args.options.at("json"), j.dump(1));
    }
    if (!files.empty())
      sinkscope::analysis::files_write_atomic(files, args.options.count("force") > 0);
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
