// sinkscope-cli: SinkScope without a display.
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.
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

#include "analysis/sink_metric.h"
#include "analysis/table_io.h"
#include "app/analyze_report.h"
#include "app/experiment_report.h"
#include "app/study.h"
#include "models/corpus.h"
#include "models/input_files.h"
#include "models/loaded_model.h"
#include "models/model_discovery.h"
#include "models/model_folder.h"
#include "models/model_identity.h"
#include "models/model_writer.h"
#include "models/cpu_runtime.h"
#include "models/runtime_info.h"
#include "models/safetensors.h"
#include "models/trace_export.h"
#include "models/trainer.h"

namespace {

constexpr int kOk = 0, kFailure = 1, kBadUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kMainHelp =
    "usage: sinkscope-cli <command> [options]\n"
    "\n"
    "commands:\n"
    "  info [MODEL]        what libtorch runs on; with MODEL, a summary of that model folder\n"
    "  baseline --length T the uniform-attention baseline of the sink metric alpha_k (CSV)\n"
    "  inspect MODEL       family, sizes, dtypes, tokenizer, special tokens, memory estimate\n"
    "  tokens MODEL --text TEXT | --batch FILE   token ids and display strings\n"
    "  attention MODEL --text TEXT --layer L --head H --csv FILE   one head's attention map\n"
    "                      (--layer all --head all: every map of one run)\n"
    "  tensors MODEL --text TEXT --out FILE.npz   attention, q, k, v, residuals as NPZ\n"
    "  random-model TYPE DIR   write a tiny random-weight model folder (a test fixture)\n"
    "  corpus --out DIR        build the training corpus from Debian's wordnet-base\n"
    "  train --corpus FILE --out DIR   train a small decoder or encoder (see train --help)\n"
    "  sinks MODEL --heldout FILE      first-token sink statistics on held-out text\n"
    "  analyze MODEL --text TEXT --out DIR   every metric family as CSV (see analyze --help)\n"
    "  experiment KIND MODEL --text TEXT --out DIR   sink removal, BOS removal, Fisher,\n"
    "                      perturbation, effective rank, head ablation, sparsification\n"
    "  study run|merge|status   a corpus study in shards (cluster job arrays), merged\n"
    "\n"
    "MODEL is a model folder or a Hugging Face cache name org/name.\n"
    "\n"
    "options for every command: --help, --threads N (threads for the forward pass and\n"
    "the per-head analysis; default: every core; SINKSCOPE_THREADS=N does the same)\n"
    "sinkscope-cli --version prints the version.\n";

const char* kInfoHelp =
    "usage: sinkscope-cli info [MODEL]\n"
    "\n"
    "Prints the device a forward pass would use and the libtorch version. With MODEL (a\n"
    "Hugging Face model folder), also its architecture, layer and head counts and weight files.\n";

const char* kBaselineHelp =
    "usage: sinkscope-cli baseline --length T [--bidirectional] [--out FILE] [--force]\n"
    "\n"
    "Writes, for every key position k of a T-token input, the value the sink metric\n"
    "alpha_k (mean attention received from the queries that see k; metrics.md s. 1) takes\n"
    "when every query spreads its attention evenly over the keys it sees. Causal by default.\n"
    "\n"
    "  --length T        number of tokens (1..1000000)\n"
    "  --bidirectional   an encoder: every query sees every key\n"
    "  --out FILE        write the CSV to FILE (atomically) instead of stdout\n"
    "  --force           replace FILE when it exists\n";

// Options of the form --name VALUE, --name=VALUE, or flags; the rest positional.
struct Args {
  std::map<std::string, std::string> options;
  std::vector<std::string> positional;
};

Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& flags,
                const std::vector<std::string>& valued) {
  Args args;
  auto known = [](const std::vector<std::string>& list, const std::string& name) {
    for (const auto& s : list)
      if (s == name) return true;
    return false;
  };
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      args.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool hasValue = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasValue = true;
    }
    if (known(flags, name)) {
      if (hasValue) throw UsageError("option --" + name + " takes no value");
      args.options[name] = "1";
    } else if (known(valued, name)) {
      if (!hasValue) {
        if (i + 1 >= argc) throw UsageError("option --" + name + " needs a value");
        value = argv[++i];
      }
      args.options[name] = value;
    } else {
      throw UsageError("unknown option --" + name);
    }
  }
  return args;
}

// A number option within [lo, hi]; bad text or range is a usage error naming the option.
double parse_real(const std::string& option, const std::string& text, double lo, double hi) {
  double x = 0;
  std::size_t used = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw UsageError("option --" + option + ": \"" + text + "\" is not a number");
  if (x < lo || x > hi)
    throw UsageError("option --" + option + ": must be in " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  return x;
}

// A command's options; prints `help` and returns nothing for --help.
std::optional<Args> parse_command(int argc, char** argv, const std::vector<std::string>& flags,
                                  const std::vector<std::string>& valued, const char* help) {
  Args args = parse_args(argc, argv, 2, flags, valued);
  if (args.options.count("help")) {
    std::cout << help;
    return std::nullopt;
  }
  return args;
}

int parse_int(const std::string& option, const std::string& text, int lo, int hi) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < lo || v > hi)
    throw UsageError("option --" + option + ": \"" + text + "\" is not an integer in " +
                     std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(v);
}

// A seed: an integer from 0 to INT_MAX.
unsigned long long parse_seed(const std::string& option, const std::string& text) {
  return static_cast<unsigned long long>(
      parse_int(option, text, 0, std::numeric_limits<int>::max()));
}

int command_info(int argc, char** argv) {
  const auto parsed = parse_command(argc, argv, {"help"}, {}, kInfoHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (args.positional.size() > 1) throw UsageError("info: give at most one model folder");
  const auto runtime = sinkscope::models::runtime_info_query();
  std::cout << "device: " << sinkscope::models::runtime_device_label(runtime) << "\n"
            << "libtorch: " << runtime.torch_version << "\n";
  if (const std::string core = sinkscope::models::blas_core_name(); !core.empty())
    std::cout << "OpenBLAS core: " << core << "\n";
  if (args.positional.empty()) return kOk;
  try {
    const auto s = sinkscope::models::model_folder_inspect(args.positional.front());
    std::cout << "model: " << s.folder.string() << "\n"
              << "model_type: " << s.model_type << "\n"
              << "layers: " << s.num_layers << "\n"
              << "heads: " << s.num_heads << "\n"
              << "hidden_size: " << s.hidden_size << "\n"
              << "tokenizer: " << (s.has_tokenizer ? "tokenizer.json" : "missing") << "\n";
    for (const auto& f : s.weight_files) std::cout << "weights: " << f << "\n";
  } catch (const sinkscope::models::ModelInputError& e) {
    throw UsageError(e.what());
  }
  return kOk;
}

int command_baseline(int argc, char** argv) {
  const auto parsed = parse_command(argc, argv, {"help", "bidirectional", "force"},
                                    {"length", "out"}, kBaselineHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (!args.positional.empty())
    throw UsageError("baseline: unexpected argument " + args.positional[0]);
  if (!args.options.count("length")) throw UsageError("baseline: option --length is required");
  const int T = parse_int("length", args.options.at("length"), 1, 1000000);
  const bool causal = !args.options.count("bidirectional");

  sinkscope::analysis::CsvTable table;
  table.comments = {
      {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
      {"command", "baseline"},
      {"definition", "alpha_k of a uniform head (metrics.md s. 1, Gu et al. sink metric)"},
      {"length", std::to_string(T)},
      {"causal", causal ? "true" : "false"}};
  table.columns = {"key", "alpha_uniform"};
  for (int k = 0; k < T; ++k)
    table.rows.push_back(
        {std::to_string(k), sinkscope::analysis::csv_number(
                                sinkscope::analysis::sink_uniform_baseline(T, k, causal))});
  const std::string csv = sinkscope::analysis::csv_render(table);
  if (!args.options.count("out")) {
    std::cout << csv;
    return kOk;
  }
  sinkscope::analysis::file_write_atomic(args.options.at("out"), csv,
                                         args.options.count("force") > 0);
  return kOk;
}

const char* kInspectHelp =
    "usage: sinkscope-cli inspect MODEL\n"
    "\n"
    "Summarises a model folder (or cache name org/name) without running it: family, layers,\n"
    "heads, sizes, weight dtypes, parameter count, tokenizer kind, special tokens, and the\n"
    "memory loading it would take.\n";

const char* kTokensHelp =
    "usage: sinkscope-cli tokens MODEL (--text TEXT | --batch FILE) [--no-special]\n"
    "\n"
    "  --text TEXT     print one line per token: index, id, display string (--text=- reads stdin)\n"
    "  --batch FILE    FILE holds one JSON-encoded string per line; print one JSON array of ids\n"
    "                  per line\n"
    "  --no-special    do not add the tokenizer's special tokens (BOS, [CLS], ...)\n";

const char* kAttentionHelp =
    "usage: sinkscope-cli attention MODEL --text TEXT --layer L --head H --csv FILE\n"
    "                                [--device cpu|cuda] [--force]\n"
    "\n"
    "Runs MODEL on TEXT and writes the attention map of layer L, head H (or --head average,\n"
    "the mean over the layer's heads) as CSV in long format: layer, head, query, key,\n"
    "query_token, key_token, weight. --layer all and --head all write every layer's and\n"
    "head's map of the one run. --csv - writes to stdout.\n";

std::string read_stdin() {
  std::string text;
  char buffer[65536];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > sinkscope::models::kTextFileMaxBytes)
      throw UsageError("--text -: standard input is larger than " +
                       std::to_string(sinkscope::models::kTextFileMaxBytes) + " bytes");
  }
  if (std::cin.bad()) throw std::runtime_error("--text -: standard input cannot be read");
  return text;
}

// The input text: valid UTF-8 without NUL (files and stdin can hold anything).
std::string text_option(const Args& args) {
  const std::string t = args.options.at("text");
  std::string text = t == "-" ? read_stdin() : t;
  try {
    sinkscope::models::input_text_check(text, t == "-" ? "--text - (standard input)" : "--text");
  } catch (const sinkscope::models::ModelInputError& e) {
    throw UsageError(e.what());
  }
  return text;
}

// Every option of `names` must be given.
void require_options(const Args& args, const char* command,
                     std::initializer_list<const char*> names) {
  for (const char* required : names)
    if (!args.options.count(required))
      throw UsageError(std::string(command) + ": option --" + required + " is required");
}

// --device, for the commands that run a model.
sinkscope::models::LoadOptions load_options(const Args& args) {
  sinkscope::models::LoadOptions load;
  if (args.options.count("device")) load.device = args.options.at("device");
  return load;
}

std::string model_argument(const Args& args, const char* command) {
  if (args.positional.size() != 1)
    throw UsageError(std::string(command) + ": give exactly one MODEL (a folder or org/name)");
  return args.positional.front();
}

// The command as it was typed, quoted for a shell where needed.
std::string command_line(int argc, char** argv) {
  std::string out = "sinkscope-cli";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
                                                         "NOPQRSTUVWXYZ0123456789-_=./:,+@%") ==
                                         std::string::npos;
    if (plain) {
      out += " " + a;
      continue;
    }
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += " " + q + "'";
  }
  return out;
}

// Where an output's numbers came from: the full command, the model's config
// and tokenizer hashes and its weight files (metrics.md: every table records
// what it was computed with).
std::vector<std::pair<std::string, std::string>> provenance(const sinkscope::models::LoadedModel& m,
                                                            int argc, char** argv) {
  auto lines = sinkscope::models::model_identity_header(
      sinkscope::models::model_identity(m.model->folder()));
  lines.insert(lines.begin(), {"command", command_line(argc, argv)});
  return lines;
}

// Bad model folders and files (every ModelInputError: config, index,
// safetensors, tokenizer) and bad run input are exit 2, with their message.
template <class F>
auto on_model(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const sinkscope::models::ModelInputError& e) {
    throw UsageError(e.what());
  } catch (const sinkscope::models::ModelRunError& e) {
    throw UsageError(e.what());
  }
}

// A folder or cache name; not finding it is bad input.
std::filesystem::path resolve_model(const std::string& spec) {
  try {
    return sinkscope::models::model_location_resolve(spec);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

std::string gib(double bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(bytes < (1 << 30) ? 1 : 2);
  if (bytes < (1 << 30))
    s << bytes / (1 << 20) << " MiB";
  else
    s << bytes / (1 << 30) << " GiB";
  return s.str();
}

int command_inspect(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help"}, {}, kInspectHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "inspect");
  return on_model([&] {
    const std::filesystem::path folder = resolve_model(spec);
    const auto summary = m::model_folder_inspect(folder);  // config present, weights confined
    const m::ModelConfig c = m::model_config_read(m::input_file_confine(folder, "config.json"));
    std::map<std::string, std::uint64_t> dtypes;
    std::uint64_t parameters = 0;
    for (const auto& f : summary.weight_paths) {
      const auto file = m::SafetensorsFile::open(f);
      for (const auto& [name, t] : file.tensors()) {
        dtypes[m::dtype_name(t.dtype)] += static_cast<std::uint64_t>(t.numel());
        parameters += static_cast<std::uint64_t>(t.numel());
      }
    }
    std::cout << "model: " << folder.string() << "\n"
              << "family: " << c.model_type << (c.causal ? " (decoder)" : " (encoder)") << "\n"
              << "layers: " << c.num_layers << "\n"
              << "heads: " << c.num_heads << "\n"
              << "kv_heads: " << c.num_kv_heads << "\n"
              << "head_dim: " << c.head_dim << "\n"
              << "hidden_size: " << c.hidden_size << "\n"
              << "intermediate_size: " << c.intermediate_size << "\n"
              << "vocab_size: " << c.vocab_size << "\n"
              << "max_positions: " << c.max_positions << "\n"
              << "positions: "
              << (c.positions == m::PositionKind::Rope      ? "rope"
                  : c.positions == m::PositionKind::Learned ? "learned"
                  : c.positions == m::PositionKind::Alibi   ? "alibi"
                                                            : "none")
              << "\n"
              << "parameters: " << parameters << "\n";
    std::cout << "dtypes:";
    for (const auto& [d, n] : dtypes) std::cout << " " << d << "=" << n;
    std::cout << "\n";
    for (const auto& f : summary.weight_files) std::cout << "weights: " << f << "\n";
    if (m::input_file_present(folder, "tokenizer.json")) {
      const auto tok = m::Tokenizer::load(folder);
      std::cout << "tokenizer: " << tok->kind() << ", " << tok->vocabSize() << " tokens\n";
      const auto& sp = tok->specialTokens();
      auto show = [](const char* k, const std::optional<std::string>& v) {
        if (v) std::cout << "special_" << k << ": " << *v << "\n";
      };
      show("bos", sp.bos);
      show("eos", sp.eos);
      show("unk", sp.unk);
      show("pad", sp.pad);
      show("cls", sp.cls);
      show("sep", sp.sep);
      show("mask", sp.mask);
      const auto probe = tok->encode("a", true);
      std::cout << "adds_special_tokens:";
      for (std::size_t i = 0; i < probe.ids.size(); ++i)
        if (probe.special[i]) std::cout << " " << probe.tokens[i];
      std::cout << "\n";
    } else {
      std::cout << "tokenizer: none (no tokenizer.json)\n";
    }
    const double need = static_cast<double>(m::model_memory_estimate(folder));
    const double available = static_cast<double>(m::system_available_memory());
    std::cout << "memory_estimate: " << gib(need) << " (available " << gib(available) << ")\n";
    return kOk;
  });
}

int command_tokens(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed =
      parse_command(argc, argv, {"help", "no-special"}, {"text", "batch"}, kTokensHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "tokens");
  if (args.options.count("text") == args.options.count("batch"))
    throw UsageError("tokens: give either --text or --batch");
  const bool special = !args.options.count("no-special");
  return on_model([&] {
    const std::filesystem::path folder = resolve_model(spec);
    const auto tok = m::Tokenizer::load(folder);
    if (args.options.count("text")) {
      const auto e = tok->encode(text_option(args), special);
      for (std::size_t i = 0; i < e.ids.size(); ++i)
        std::cout << i << "\t" << e.ids[i] << "\t" << e.display[i] << "\n";
      return kOk;
    }
    const std::string file = args.options.at("batch");
    std::string content;
    try {
      content = m::input_file_read(file, m::kTextFileMaxBytes);
    } catch (const m::ModelInputError& e) {
      throw UsageError(std::string("--batch ") + e.what());
    }
    std::istringstream in(content);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      nlohmann::json text;
      try {
        text = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception&) {
        throw UsageError("--batch " + file + ": line " + std::to_string(number) +
                         " is not a JSON string");
      }
      if (!text.is_string())
        throw UsageError("--batch " + file + ": line " + std::to_string(number) +
                         " is not a JSON string");
      try {
        m::input_text_check(text.get<std::string>(),
                            "--batch " + file + ": line " + std::to_string(number));
      } catch (const m::ModelInputError& e) {
        throw UsageError(e.what());
      }
      std::cout << nlohmann::json(tok->encode(text.get<std::string>(), special).ids).dump() << "\n";
    }
    return kOk;
  });
}

int command_attention(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help", "force"},
                                    {"text", "layer", "head", "csv", "device"}, kAttentionHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "attention");
  require_options(args, "attention", {"text", "layer", "head", "csv"});
  const m::LoadOptions load = load_options(args);
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec, load);
    const m::ModelConfig& c = loaded.model->config();
    const std::string layerText = args.options.at("layer");
    const bool allLayers = layerText == "all";
    const int firstLayer =
        allLayers ? 0 : parse_int("layer", layerText, 0, c.num_layers - 1);
    const int lastLayer = allLayers ? c.num_layers - 1 : firstLayer;
    const std::string headText = args.options.at("head");
    const bool average = headText == "average" || headText == "avg" || headText == "mean";
    const bool allHeads = headText == "all";
    const int head =
        average || allHeads ? -1 : parse_int("head", headText, 0, c.num_heads - 1);
    const m::SentenceTrace run =
        m::loaded_model_run(loaded, text, m::RunOptions::attention_only());

    sinkscope::analysis::CsvTable table;
    table.comments = {{"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
                      {"command", "attention"},
                      {"model", loaded.model->folder().string()},
                      {"model_type", c.model_type},
                      {"text", text},
                      {"layer", layerText},
                      {"head", average ? "average" : allHeads ? "all" : std::to_string(head)},
                      {"tokens", std::to_string(run.trace.tokens())},
                      {"device", loaded.model->device()}};
    for (auto& line : provenance(loaded, argc, argv)) table.comments.push_back(line);
    table.columns = {"layer", "head", "query", "key", "query_token", "key_token", "weight"};
    // One run, every map asked for (--layer all --head all: the whole model).
    for (int layer = firstLayer; layer <= lastLayer; ++layer) {
      const m::LayerCapture capture = run.trace.layer(layer);
      const sinkscope::analysis::AttentionMatrix averaged = capture.headAverage();
      std::vector<int> heads;
      if (allHeads)
        for (int h = 0; h < c.num_heads; ++h) heads.push_back(h);
      else
        heads.push_back(head);
      for (int h : heads) {
        const sinkscope::analysis::AttentionView map =
            h < 0 ? averaged.view() : capture.attentionOf(h);
        const std::string headName = h < 0 ? "average" : std::to_string(h);
        for (int i = 0; i < map.size; ++i)
          for (int j = 0; j < map.size; ++j) {
            if (!map.visible(i, j)) continue;
            table.rows.push_back({std::to_string(layer), headName, std::to_string(i),
                                  std::to_string(j),
                                  run.encoding.display[static_cast<std::size_t>(i)],
                                  run.encoding.display[static_cast<std::size_t>(j)],
                                  sinkscope::analysis::csv_number(map.at(i, j))});
          }
      }
    }
    const std::string csv = sinkscope::analysis::csv_render(table);
    const std::string out = args.options.at("csv");
    if (out == "-")
      std::cout << csv;
    else
      sinkscope::analysis::file_write_atomic(out, csv, args.options.count("force") > 0);
    return kOk;
  });
}

const char* kTensorsHelp =
    "usage: sinkscope-cli tensors MODEL --text TEXT --out FILE.npz [--logits] [--force]\n"
    "                              [--device cpu|cuda]\n"
    "\n"
    "Runs MODEL on TEXT once and writes its tensors as NPZ (numpy.load(FILE) gives a dict):\n"
    "attention [L, H, T, T], queries, keys, values [L, H, T, d] (after RoPE; keys and values\n"
    "of the KV group each head reads), residual [L+1, T, D] (entering each layer, then the\n"
    "last layer's output), ids [T], tokens [T], params (a JSON string: model, text, tool,\n"
    "shapes), and with --logits the output logits [T, vocab]. Written a layer at a time.\n";

int command_tensors(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help", "force", "logits"},
                                    {"text", "out", "device"}, kTensorsHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "tensors");
  require_options(args, "tensors", {"text", "out"});
  const m::LoadOptions load = load_options(args);
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec, load);
    const m::ModelConfig& c = loaded.model->config();
    const m::SentenceTrace run = m::loaded_model_run(loaded, text);
    nlohmann::json params = {
        {"schema_version", 1},
        {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
        {"command", "tensors"},
        {"model", loaded.model->folder().string()},
        {"model_type", c.model_type},
        {"text", text},
        {"tokens", run.trace.tokens()},
        {"layers", c.num_layers},
        {"heads", c.num_heads},
        {"kv_heads", c.num_kv_heads},
        {"head_dim", c.head_dim},
        {"hidden_size", c.hidden_size},
        {"causal", c.causal},
        {"device", loaded.model->device()},
        {"arrays",
         {{"attention", "[L, H, T, T] probabilities, row = query"},
          {"queries", "[L, H, T, d] after RoPE"},
          {"keys", "[L, H, T, d] after RoPE, of the KV group each head reads"},
          {"values", "[L, H, T, d] of the KV group each head reads"},
          {"residual", "[L+1, T, D] entering each layer; the last is the final layer's output"},
          {"ids", "[T] token ids"},
          {"tokens", "[T] display strings"},
          {"logits", "[T, vocab] when written (--logits)"}}}};
    for (const auto& [k, v] : provenance(loaded, argc, argv)) params[k] = v;
    m::TraceExportOptions o;
    o.logits = args.options.count("logits") > 0;
    o.overwrite = args.options.count("force") > 0;
    o.paramsJson = params.dump();
    m::trace_write_npz(run.trace, run.encoding.display, args.options.at("out"), o);
    std::cout << args.options.at("out") << "\n";
    return kOk;
  });
}

const char* kRandomModelHelp =
    "usage: sinkscope-cli random-model TYPE DIR [--layers N] [--heads N] [--positions N]\n"
    "                                   [--hidden D] [--intermediate I] [--vocab V]\n"
    "                                   [--weight-std X] [--seed S] [--no-tokenizer]\n"
    "\n"
    "Writes a tiny random-weight model folder of model_type TYPE in the exact Hugging Face\n"
    "layout (config.json, model.safetensors, and a small byte-level tokenizer.json): a\n"
    "fixture for trying SinkScope or testing it. DIR must not exist yet. --heads N (1-64)\n"
    "keeps 8 dimensions per head; --positions N (up to 8192) sets max_position_embeddings,\n"
    "e.g. to try long inputs. --hidden, --intermediate, --vocab and --weight-std give other\n"
    "shapes: tests/benchmarks/pipeline_compare.py writes GPT-2 small's (12 x 12, 768, 3072,\n"
    "50257, 0.02); the tokenizer stays the small one.\n";

int command_random_model(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help", "no-tokenizer"},
                                    {"layers", "heads", "positions", "seed", "hidden",
                                     "intermediate", "vocab", "weight-std"},
                                    kRandomModelHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (args.positional.size() != 2) throw UsageError("random-model: give TYPE and DIR");
  const std::string& type = args.positional[0];
  const auto& supported = m::model_types_supported();
  if (std::find(supported.begin(), supported.end(), type) == supported.end())
    throw UsageError("random-model: model_type \"" + type + "\" is not supported");
  const std::filesystem::path dir = args.positional[1];
  if (std::filesystem::exists(dir))
    throw UsageError("random-model: " + dir.string() + " already exists");
  m::RandomModelSpec spec = m::random_model_spec_for(type);
  spec.with_tokenizer = !args.options.count("no-tokenizer");
  if (args.options.count("layers"))
    spec.layers = parse_int("layers", args.options.at("layers"), 1, 64);
  if (args.options.count("heads")) {
    spec.heads = parse_int("heads", args.options.at("heads"), 1, 64);
    spec.hidden = 8 * spec.heads;
    spec.kv_heads = 0;  // as many as heads: divides any head count
  }
  if (args.options.count("hidden")) {
    spec.hidden = parse_int("hidden", args.options.at("hidden"), 1, 16384);
    if (spec.hidden % spec.heads != 0)
      throw UsageError("option --hidden: must be a multiple of the number of heads");
  }
  if (args.options.count("intermediate"))
    spec.intermediate = parse_int("intermediate", args.options.at("intermediate"), 1, 65536);
  if (args.options.count("vocab"))
    spec.vocab = parse_int("vocab", args.options.at("vocab"), 1, 1 << 20);
  if (args.options.count("weight-std"))
    spec.weight_std = parse_real("weight-std", args.options.at("weight-std"), 1e-6, 10.0);
  if (args.options.count("positions"))
    spec.max_positions = parse_int("positions", args.options.at("positions"), 2, 8192);
  if (args.options.count("seed"))
    spec.seed = static_cast<std::uint64_t>(parse_int("seed", args.options.at("seed"), 0, 1 << 30));
  m::model_folder_write_random(dir, spec);
  std::cout << dir.string() << "\n";
  return kOk;
}

const char* kCorpusHelp =
    "usage: sinkscope-cli corpus --out DIR [--wordnet DIR] [--heldout N]\n"
    "\n"
    "Builds the training corpus from Debian's wordnet-base: every gloss's definitions and\n"
    "example sentences, deduplicated and shuffled with a fixed seed. Writes DIR/train.txt and\n"
    "DIR/heldout.txt (N sentences of 6-50 words, default 500), one sentence per line.\n";

int command_corpus(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed =
      parse_command(argc, argv, {"help"}, {"out", "wordnet", "heldout"}, kCorpusHelp);
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
  std::filesystem::create_directories(out);
  m::corpus_write_lines(out / "train.txt", split.train);
  m::corpus_write_lines(out / "heldout.txt", split.heldout);
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
    "  --heldout FILE                          sentences for the sink measurements\n"
    "  --checkpoint-every N --log-every N      (250, 25)\n"
    "  --seed N --save-dtype F16|BF16|F32      (1, F16)\n"
    "  --resume DIR                            continue from a checkpoint folder\n";

int command_train(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(
      argc, argv, {"help"}, {"corpus",    "out",          "architecture", "position-encoding",
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
  if (has("save-dtype")) {
    const auto d = m::dtype_parse(text("save-dtype"));
    if (!d || (*d != m::DType::F16 && *d != m::DType::BF16 && *d != m::DType::F32))
      throw UsageError("option --save-dtype: use F16, BF16 or F32");
    o.save_dtype = *d;
  }
  if (has("resume")) o.resume = text("resume");
  const bool tty = isatty(2);
  try {
    const auto result = m::train_model(o, {}, [&](const m::TrainLogRow& r) {
      std::fprintf(stderr,
                   "%sstep %d  tokens %lld  loss %.4f  lr %.2e  %.0f tok/s  alpha0 %.3f  boost "
                   "%.2f  heads>=3x %.2f%s",
                   tty ? "\r" : "", r.step, r.tokens, r.loss, r.learning_rate, r.tokens_per_second,
                   r.alpha0, r.boost, r.heads_boost3, tty ? "  " : "\n");
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
      j["params"] = {{"tokens", tokens}, {"inputs", inputs}, {"percentile", 90}, {"gamma", 0.3},
                     {"sink_denominator", "all"}, {"sink_rate_eps", 0.3}};
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

// "L:H,L:H" -> (layer, head) pairs.
std::vector<std::pair<int, int>> parse_heads(const char* option, const std::string& text) {
  std::vector<std::pair<int, int>> heads;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    const auto colon = part.find(':');
    if (colon == std::string::npos)
      throw UsageError(std::string("option --") + option + ": \"" + part + "\" is not LAYER:HEAD");
    heads.emplace_back(parse_int(option, part.substr(0, colon), 0, 1 << 20),
                       parse_int(option, part.substr(colon + 1), 0, 1 << 20));
  }
  return heads;
}

const char* kAnalyzeHelp =
    "usage: sinkscope-cli analyze MODEL (--text TEXT | --sentences FILE) --out DIR [--json FILE] "
    "[--force]\n"
    "                             [--percentile P] [--gamma G] [--sink-mode "
    "percentile|column-sum]\n"
    "                             [--sink-denominator all|visible]\n"
    "                             [--eps E] [--top-n N] [--query Q] [--random-subsets K] [--seed "
    "S]\n"
    "                             [--min-persistence X] [--symmetrise mean|max]\n"
    "                             [--thresholds 0.01,0.05,0.1,0.2]\n"
    "                             [--drop-first] [--remove-sinks] [--ablate L:H,...]\n"
    "                             [--rope-theta X] [--ntk-scale S] [--no-weight-spectra]\n"
    "\n"
    "Runs MODEL on TEXT and writes, for every layer and head and the head average, one CSV\n"
    "per metric family of metrics.md: sinks.csv and sink_summary.csv (s. 1), diagnostics.csv,\n"
    "persistence.csv, persistence_summary.csv (bar counts per head) and betti.csv (s. 2),\n"
    "spectra.csv, eigenvalues.csv, sign_flip.csv and effectiveness.csv (s. 3), value_space.csv\n"
    "(s. 6 at query Q, default the last, N = --top-n, with K_N^sink and the sink diagnostics)\n"
    "and value_space_curve.csv (every N from 1 to T), taxonomy.csv (s. 7), weights.csv (s. 9:\n"
    "computed once per model and kept in ~/.cache/sinkscope/weight-spectra, keyed by the\n"
    "weights' hash; SINKSCOPE_CACHE_DIR moves it; --no-weight-spectra leaves the file out),\n"
    "and layer_summary.csv: per layer and for the model, mean alpha0 and boost, the share of\n"
    "heads with boost >= 3, sink concentration, bar counts and taxonomy class shares.\n"
    "Every file starts with comment lines giving the parameters, the model and the text.\n"
    "A key is a sink when A >= tau (the p-th percentile) for at least gamma of all T queries;\n"
    "--sink-denominator visible divides by the queries that see the key instead (an option:\n"
    "in a causal model it makes the last key a sink whenever its one observer attends to it).\n"
    "--json FILE writes everything into one file (schema_version 1): \"params\" (typed),\n"
    "\"header\" (the readings of the CSV headers), \"tables\" (every CSV as columns and\n"
    "typed rows; empty fields are null) and, for --text, per-head detail under \"layers\".\n"
    "Interventions (analysed instead of the plain run, listed in every header): --drop-first\n"
    "(refused when the first token is not a special token), --remove-sinks (each head's sinks\n"
    "at --percentile/--gamma, zeroed after softmax), --ablate L:H,... (heads' outputs zeroed),\n"
    "--rope-theta X (RoPE base), --ntk-scale S (NTK-aware scaling).\n"
    "\n"
    "--sentences FILE (one sentence per line; FILE.jsonl: a JSON object with a \"text\" field per\n"
    "line) pools over the sentences instead: "
    "specialisation.csv\n"
    "(specialised heads, s. 1; --specialised-share S, default 0.8), token_specialisation.csv,\n"
    "taxonomy_pooled.csv (s. 7), sink_rate.csv (Gu et al.'s sink rate with its baseline) and\n"
    "frame.csv (the reference frame of s. 4 with its evidence), layer_profile.csv (per layer,\n"
    "the mean over sentences of: sink concentration, alpha_0 and its boost, bars above\n"
    "--min-persistence, F_N at the last token or --query against its random baseline, Fiedler\n"
    "value and centralisation of the head-averaged graph per --thresholds value) and\n"
    "top_sentences.csv (per head, the sentences with the highest alpha_0). --functional adds\n"
    "functional.csv: KL of sink removal per layer and in all layers, BOS-removal NLL change\n"
    "(L + 2 more passes per sentence). Sentences run in blocks of --batch B (16) consecutive\n"
    "sentences, those of one token count in a block as one batched pass (1: one pass each).\n"
    "Every share, rate and mean carries its 95% bootstrap\n"
    "interval over the sentences (_lo and _hi columns; --bootstrap B resamples, default 200,\n"
    "0 for none; --bootstrap-seed S, default 1).\n";

// The options that decide the pooled corpus tables (sink set, sink metric,
// specialisation, the analysis behind the layer profiles, functional
// experiments), shared by analyze and study.
void parse_pooling_options(const Args& args, sinkscope::app::AnalyzeParams& p) {
  auto real = [&](const char* k, double lo, double hi) {
    return parse_real(k, args.options.at(k), lo, hi);
  };
  if (args.options.count("percentile")) p.percentile = real("percentile", 0, 100);
  if (args.options.count("gamma")) p.gamma = real("gamma", 0, 1);
  if (args.options.count("eps")) p.eps = real("eps", 0, 1);
  if (args.options.count("specialised-share")) p.specialisedShare = real("specialised-share", 0, 1);
  if (args.options.count("bootstrap"))
    p.bootstrap = parse_int("bootstrap", args.options.at("bootstrap"), 0, 100000);
  if (args.options.count("bootstrap-seed"))
    p.bootstrapSeed = parse_seed("bootstrap-seed", args.options.at("bootstrap-seed"));
  if (args.options.count("min-persistence")) p.minPersistence = real("min-persistence", 0, 1);
  if (args.options.count("top-n")) p.topN = parse_int("top-n", args.options.at("top-n"), 1, 100000);
  if (args.options.count("query"))
    p.query = parse_int("query", args.options.at("query"), 0, 1 << 24);
  if (args.options.count("random-subsets"))
    p.randomSubsets = parse_int("random-subsets", args.options.at("random-subsets"), 0, 100000);
  if (args.options.count("seed")) p.seed = parse_seed("seed", args.options.at("seed"));
  if (args.options.count("symmetrise")) {
    const std::string s = args.options.at("symmetrise");
    if (s != "mean" && s != "max") throw UsageError("option --symmetrise: use mean or max");
    p.symmetriseByMax = s == "max";
  }
  if (args.options.count("thresholds")) {
    p.thresholds.clear();
    std::stringstream ss(args.options.at("thresholds"));
    for (std::string part; std::getline(ss, part, ',');) {
      p.thresholds.push_back(parse_real("thresholds", part, 0, 1));
      if (p.thresholds.size() > 32) throw UsageError("option --thresholds: at most 32 thresholds");
    }
    if (p.thresholds.empty()) throw UsageError("option --thresholds: give at least one threshold");
  }
  p.functional = args.options.count("functional") > 0;
  if (args.options.count("batch")) p.batch = parse_int("batch", args.options.at("batch"), 1, 4096);
  if (args.options.count("sink-mode")) {
    const std::string s = args.options.at("sink-mode");
    if (s != "percentile" && s != "column-sum")
      throw UsageError("option --sink-mode: use percentile or column-sum");
    p.columnSumSinks = s == "column-sum";
  }
  if (args.options.count("sink-denominator")) {
    const std::string s = args.options.at("sink-denominator");
    if (s != "all" && s != "visible")
      throw UsageError("option --sink-denominator: use all or visible");
    p.sinkDenominator = s == "all" ? sinkscope::analysis::SinkSetParams::Denominator::AllQueries
                                   : sinkscope::analysis::SinkSetParams::Denominator::VisibleQueries;
  }
  // Interventions: the intervened run is analysed instead of the plain one.
  p.intervention.dropFirstToken = args.options.count("drop-first") > 0;
  if (args.options.count("remove-sinks")) {
    sinkscope::models::SinkRemoval removal;
    removal.percentile = p.percentile;
    removal.gamma = p.gamma;
    p.intervention.removeSinks = {removal};
  }
  if (args.options.count("ablate"))
    p.intervention.ablateHeads = parse_heads("ablate", args.options.at("ablate"));
  if (args.options.count("rope-theta")) p.intervention.ropeTheta = real("rope-theta", 1e-6, 1e30);
  if (args.options.count("ntk-scale")) p.intervention.ntkScale = real("ntk-scale", 1e-6, 1e6);
  if (p.functional && !p.intervention.empty())
    throw UsageError("--functional measures the plain model: give it without interventions");
}

int command_analyze(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(
      argc, argv, {"help", "force", "drop-first", "remove-sinks", "no-weight-spectra", "functional"},
      {"text", "sentences", "out", "json", "percentile", "gamma", "eps", "top-n", "ablate",
       "rope-theta", "ntk-scale", "min-persistence", "symmetrise", "thresholds",
       "specialised-share", "query", "random-subsets", "seed", "sink-mode", "sink-denominator",
       "bootstrap", "bootstrap-seed", "batch"},
      kAnalyzeHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "analyze");
  if (args.options.count("text") == args.options.count("sentences") || !args.options.count("out"))
    throw UsageError("analyze: give --out and one of --text or --sentences");
  sinkscope::app::AnalyzeParams p;
  auto real = [&](const char* k, double lo, double hi) {
    return parse_real(k, args.options.at(k), lo, hi);
  };

  parse_pooling_options(args, p);
  p.weightSpectra = args.options.count("no-weight-spectra") == 0;
  if (args.options.count("sentences")) {
    std::vector<std::string> sentences;
    try {
      sentences = m::corpus_read_sentences(args.options.at("sentences"));
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    return on_model([&] {
      const m::LoadedModel loaded = m::loaded_model_open(spec);
      p.provenance = provenance(loaded, argc, argv);
      // The sentences file by name, hash and count: pooled numbers name their inputs.
      const std::string file = args.options.at("sentences");
      p.provenance.emplace_back("sentences_file", file);
      p.provenance.emplace_back("sentences_sha256",
                                m::sha256_hex(m::input_file_read(file, m::kTextFileMaxBytes)));
      for (const auto& f : sinkscope::app::analyze_corpus_write(
               loaded, sentences, args.options.at("out"), p, args.options.count("force") > 0,
               args.options.count("json") ? args.options.at("json") : ""))
        std::cout << f.string() << "\n";
      return kOk;
    });
  }
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    p.provenance = provenance(loaded, argc, argv);
    const auto files = sinkscope::app::analyze_write(
        loaded, text, args.options.at("out"), p, args.options.count("force") > 0,
        args.options.count("json") ? args.options.at("json") : "");
    for (const auto& f : files) std::cout << f.string() << "\n";
    return kOk;
  });
}

const char* kStudyHelp =
    "usage: sinkscope-cli study run MODEL --sentences FILE --out DIR [--shard I/N] [options]\n"
    "       sinkscope-cli study merge DIR [--partial] [--force]\n"
    "       sinkscope-cli study status DIR\n"
    "       sinkscope-cli study slurm MODEL --sentences FILE --out DIR --shards N [--submit]\n"
    "                     [--partition P] [--time HH:MM:SS] [--mem 4G] [--cpus C] [--gpu]\n"
    "       sinkscope-cli study resubmit DIR\n"
    "\n"
    "A corpus study: the pooled tables of analyze --sentences (specialisation.csv,\n"
    "token_specialisation.csv, taxonomy_pooled.csv, sink_rate.csv, frame.csv,\n"
    "layer_profile.csv, top_sentences.csv, functional.csv) over a sentence\n"
    "file, computed in shards that run anywhere (one process, several, or the tasks of a\n"
    "cluster job array) and merged into exactly the numbers of one process over the file.\n"
    "\n"
    "  run       writes DIR/study.json (model and sentence hashes, parameters) on first use and\n"
    "            one shard, DIR/shards/shard-I-of-N/ (records.jsonl, manifest.json), atomically:\n"
    "            a killed run leaves no shard. --shard I/N takes blocks [I K/N, (I+1) K/N) of the\n"
    "            K blocks of --batch sentences (default 0/1: all). A finished shard is skipped; a study folder made with\n"
    "            another model, sentence file or parameters is refused.\n"
    "  merge     pools every finished shard into DIR/merged/; refuses while sentences are\n"
    "            missing (listed), unless --partial (the headers then say what is missing).\n"
    "            --bootstrap B (200; 0: none) --bootstrap-seed S (1): the 95% intervals of\n"
    "            every share and rate (_lo, _hi columns) from B resamples of the sentences.\n"
    "  status    finished shards, shards running or killed, and the sentences not yet covered;\n"
    "            for a Slurm study, the array's unfinished shards and the command to resubmit.\n"
    "  slurm     writes DIR/study.json and DIR/slurm/array.sbatch (a job array of N shard\n"
    "            tasks, logs in DIR/slurm/logs) and merge.sbatch (study merge); with --submit,\n"
    "            submits both, the merge after the array has succeeded (afterok). Per task:\n"
    "            --time (01:00:00), --mem (4G), --cpus (2, also its threads), --partition,\n"
    "            --gpu (--gres=gpu:1; the default when this libtorch sees CUDA).\n"
    "  resubmit  submits the array's unfinished shards again, and a merge after them.\n"
    "\n"
    "FILE: one sentence per line, or FILE.jsonl: a JSON object with a \"text\" field per line.\n"
    "options of run (as analyze --sentences): --percentile P --gamma G (sink set), --eps E\n"
    "(sink metric), --specialised-share S, --sink-mode percentile|column-sum,\n"
    "--sink-denominator all|visible, --top-n N --query Q --random-subsets K --seed S (F_N),\n"
    "--min-persistence M, --symmetrise mean|max, --thresholds a,b,.. (layer profiles),\n"
    "--functional (KL of sink removal and BOS removal, pooled into functional.csv), --batch B\n"
    "interventions, analysed instead of the plain run of every sentence: --drop-first,\n"
    "--remove-sinks, --ablate L:H,..., --rope-theta X, --ntk-scale S (as analyze).\n"
    "(16: blocks of B sentences, one batched pass per token count; shards are whole blocks).\n"
    "Progress (done/total, rate, ETA) goes to stderr.\n";

int command_study(int argc, char** argv) {
  namespace m = sinkscope::models;
  namespace a = sinkscope::app;
  const auto parsed = parse_command(
      argc, argv,
      {"help", "partial", "force", "submit", "gpu", "functional", "drop-first", "remove-sinks"},
      {"sentences", "out", "shard", "percentile", "gamma", "eps", "specialised-share", "sink-mode",
       "sink-denominator", "shards", "partition", "time", "mem", "cpus", "bootstrap",
       "bootstrap-seed", "top-n", "query", "random-subsets", "seed", "min-persistence",
       "symmetrise", "thresholds", "batch", "ablate", "rope-theta", "ntk-scale"},
      kStudyHelp);
  if (!parsed) return kOk;
  const Args& args = *parsed;
  if (args.positional.empty()) throw UsageError("study: give run, merge or status (see study --help)");
  const std::string action = args.positional.front();
  auto studyErrors = [](auto f) {
    try {
      return f();
    } catch (const a::StudyError& e) {
      throw UsageError(e.what());
    }
  };
  if (action == "resubmit") {
    if (args.positional.size() != 2) throw UsageError("study resubmit: give the study folder DIR");
    return studyErrors([&] {
      const a::SlurmShardStates states = a::study_slurm_states(args.positional[1]);
      if (states.shards == 0)
        throw a::StudyError(args.positional[1] + ": not a Slurm study (no slurm/slurm.json)");
      if (!states.queueError.empty())
        throw a::StudyError("squeue: " + states.queueError +
                            "; without it running shards cannot be told from failed ones");
      const std::vector<int>& shards = states.failed;  // never one that is still queued
      if (shards.empty()) {
        std::cout << "no shard of the array has failed; nothing to resubmit ("
                  << states.running.size() << " running, " << states.pending.size()
                  << " pending)\n";
        return kOk;
      }
      const auto [array, merge] = a::study_slurm_submit(args.positional[1], shards);
      std::cout << "array job " << array << " (" << shards.size() << " shards), merge job " << merge
                << "\n";
      return kOk;
    });
  }
  if (action == "merge" || action == "status") {
    if (args.positional.size() != 2) throw UsageError("study " + action + ": give the study folder DIR");
    const std::filesystem::path dir = args.positional[1];
    if (action == "merge")
      return studyErrors([&] {
        a::AnalyzeParams p;
        parse_pooling_options(args, p);
        for (const auto& f : a::study_merge(dir, args.options.count("partial") > 0,
                                            args.options.count("force") > 0, p.bootstrap,
                                            p.bootstrapSeed))
          std::cout << f.string() << "\n";
        return kOk;
      });
    return studyErrors([&] {
      const a::StudyStatus s = a::study_status(dir);
      std::size_t missing = 0;
      for (const auto& [first, end] : s.missing) missing += end - first;
      std::cout << "sentences: " << s.sentences << "\n"
                << "finished shards: " << s.complete.size() << "\n";
      for (const auto& name : s.complete) std::cout << "  " << name << "\n";
      std::cout << "running or killed: " << s.unfinished.size() << "\n";
      for (const auto& name : s.unfinished) std::cout << "  " << name << "\n";
      std::cout << "sentences not covered: " << missing << "\n";
      for (const auto& [first, end] : s.missing)
        std::cout << "  " << first << "-" << end - 1 << "\n";
      const a::SlurmShardStates slurm = a::study_slurm_states(dir);
      if (slurm.shards == 0) return kOk;
      auto list = [](const std::vector<int>& shards) {
        std::string text;
        for (int i : shards) text += (text.empty() ? "" : ",") + std::to_string(i);
        return text;
      };
      std::vector<int> unfinished = slurm.running;
      unfinished.insert(unfinished.end(), slurm.pending.begin(), slurm.pending.end());
      unfinished.insert(unfinished.end(), slurm.failed.begin(), slurm.failed.end());
      std::sort(unfinished.begin(), unfinished.end());
      std::cout << "slurm array: " << slurm.shards << " shards, " << slurm.finished.size()
                << " finished\n";
      if (!unfinished.empty()) std::cout << "slurm array shards not finished: " << list(unfinished) << "\n";
      if (!slurm.queueError.empty()) {
        std::cout << "squeue could not be asked (" << slurm.queueError
                  << "): running and failed shards cannot be told apart\n";
        return kOk;
      }
      std::cout << "  running: " << list(slurm.running) << "\n"
                << "  pending: " << list(slurm.pending) << "\n"
                << "  failed or cancelled: " << list(slurm.failed) << "\n"
                << "  killed mid-run (left a work folder): " << list(slurm.killedMidRun) << "\n";
      if (!slurm.failed.empty())
        std::cout << "resubmit the failed ones (and a merge after them): sinkscope-cli study "
                     "resubmit '"
                  << dir.string() << "'\n";
      return kOk;
    });
  }
  if (action != "run" && action != "slurm")
    throw UsageError("study: unknown action \"" + action + "\" (run, merge, status, slurm, resubmit)");
  if (args.positional.size() != 2)
    throw UsageError("study " + action + ": give exactly one MODEL (a folder or org/name)");
  if (!args.options.count("sentences") || !args.options.count("out"))
    throw UsageError("study " + action + ": give --sentences FILE and --out DIR");
  a::StudyInputs inputs;
  inputs.modelSpec = args.positional[1];
  inputs.sentencesFile = args.options.at("sentences");
  parse_pooling_options(args, inputs.params);
  a::ShardId shard;
  try {
    if (args.options.count("shard")) shard = a::parse_shard(args.options.at("shard"));
    inputs.sentences = m::corpus_read_sentences(inputs.sentencesFile);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return on_model([&] {
    inputs.sentencesSha256 =
        m::sha256_hex(m::input_file_read(inputs.sentencesFile, m::kTextFileMaxBytes));
    const m::LoadedModel loaded = m::loaded_model_open(inputs.modelSpec);
    if (action == "slurm") {
      if (!args.options.count("shards")) throw UsageError("study slurm: give --shards N");
      a::SlurmOptions o;
      o.shards = parse_int("shards", args.options.at("shards"), 1, 100000);
      if (args.options.count("partition")) o.partition = args.options.at("partition");
      if (args.options.count("time")) o.time = args.options.at("time");
      if (args.options.count("mem")) o.memory = args.options.at("mem");
      if (args.options.count("cpus")) o.cpus = parse_int("cpus", args.options.at("cpus"), 1, 1024);
      for (const std::string& v : {o.partition, o.time, o.memory})
        if (v.find_first_of("\n\r'\"\\ ") != std::string::npos)
          throw UsageError("study slurm: \"" + v + "\" is not a Slurm option value");
      o.gpu = args.options.count("gpu") > 0 || m::runtime_info_query().cuda_available;
      std::error_code ec;
      o.cli = std::filesystem::read_symlink("/proc/self/exe", ec);
      if (ec) throw UsageError("study slurm: cannot name this program's path");
      return studyErrors([&] {
        const auto [array, merge] =
            a::study_slurm_write(args.options.at("out"), inputs, loaded, o);
        std::cout << array.string() << "\n" << merge.string() << "\n";
        if (args.options.count("submit")) {
          const auto [arrayJob, mergeJob] = a::study_slurm_submit(args.options.at("out"));
          std::cout << "array job " << arrayJob << " (" << o.shards << " shards), merge job "
                    << mergeJob << "\n";
        }
        return kOk;
      });
    }
    return studyErrors([&] {
      const std::string result =
          a::study_run(args.options.at("out"), inputs, shard, loaded, std::cerr);
      std::cout << a::shard_folder_name(shard) << ": " << result << "\n";
      return kOk;
    });
  });
}

const char* kExperimentHelp =
    "usage: sinkscope-cli experiment KIND MODEL --text TEXT --out DIR [--force] [options]\n"
    "\n"
    "Runs one functional experiment of metrics.md sections 5 and 8 on TEXT and writes its\n"
    "CSV files into DIR, each with the parameters, the model and the text in its header.\n"
    "KIND:\n"
    "%KINDS%"
    "\n"
    "kl:       --percentile P (90) --gamma G (0.3) --before-softmax (mask instead of zeroing)\n"
    "perturb:  --position P (1) and --replace-with ID or --noise SIGMA (0.1) [--seed S]\n"
    "          [--without-first]\n"
    "sparsify: --retained 1,0.75,0.5,0.25,0 --pin L:H,L:H --seeds K (5) --seed S (1)\n"
    "ablate:   --top-n N (3) for the top-N mass of the correlation table\n";

int command_experiment(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string kinds;
  for (const auto& [k, line] : sinkscope::app::experiment_kinds())
    kinds += "  " + k + std::string(std::max<std::size_t>(1, 10 - k.size()), ' ') + line + "\n";
  std::string help = kExperimentHelp;
  help.replace(help.find("%KINDS%"), 7, kinds);
  const auto parsed =
      parse_command(argc, argv, {"help", "force", "before-softmax", "without-first"},
                    {"text", "out", "percentile", "gamma", "position", "replace-with", "noise",
                     "seed", "retained", "pin", "seeds", "top-n"},
                    help.c_str());
  if (!parsed) return kOk;
  const Args& args = *parsed;
  if (args.positional.size() != 2)
    throw UsageError("experiment: give KIND and MODEL (see experiment --help)");
  const std::string kind = args.positional[0], spec = args.positional[1];
  bool known = false;
  for (const auto& [k, line] : sinkscope::app::experiment_kinds()) known = known || k == kind;
  if (!known) throw UsageError("experiment: unknown KIND \"" + kind + "\" (see experiment --help)");
  if (!args.options.count("text") || !args.options.count("out"))
    throw UsageError("experiment: give --text and --out");
  sinkscope::app::ExperimentParams p;
  auto real = [&](const char* k, double lo, double hi) {
    return parse_real(k, args.options.at(k), lo, hi);
  };
  auto integer = [&](const char* k, int lo, int hi) {
    return parse_int(k, args.options.at(k), lo, hi);
  };
  if (args.options.count("percentile")) p.removal.percentile = real("percentile", 0, 100);
  if (args.options.count("gamma")) p.removal.gamma = real("gamma", 0, 1);
  p.removal.beforeSoftmax = args.options.count("before-softmax") > 0;
  if (args.options.count("position")) p.perturbation.position = integer("position", 0, 1 << 24);
  if (args.options.count("replace-with") && args.options.count("noise"))
    throw UsageError("experiment perturb: give --replace-with or --noise, not both");
  if (args.options.count("replace-with"))
    p.perturbation.replacementId = integer("replace-with", 0, std::numeric_limits<int>::max());
  if (args.options.count("noise")) p.perturbation.sigma = real("noise", 0, 1e6);
  if (args.options.count("seed")) {
    const auto seed =
        static_cast<std::uint64_t>(integer("seed", 0, std::numeric_limits<int>::max()));
    p.perturbation.seed = p.sparsification.seed = seed;
  }
  p.perturbation.withoutFirstToken = args.options.count("without-first") > 0;
  if (args.options.count("seeds")) p.sparsification.randomSeeds = integer("seeds", 1, 1000);
  if (args.options.count("top-n")) p.topN = integer("top-n", 1, 100000);
  if (args.options.count("retained")) {
    p.sparsification.retained.clear();
    std::stringstream ss(args.options.at("retained"));
    for (std::string part; std::getline(ss, part, ',');)
      p.sparsification.retained.push_back(parse_real("retained", part, 0, 1));
  }
  if (args.options.count("pin"))
    p.sparsification.pinned = parse_heads("pin", args.options.at("pin"));
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec);
    p.provenance = provenance(loaded, argc, argv);
    for (const auto& f : sinkscope::app::experiment_write(
             loaded, text, kind, p, args.options.at("out"), args.options.count("force") > 0))
      std::cout << f.string() << "\n";
    return kOk;
  });
}

// An error message as one printable line: bytes a model file put there
// (invalid UTF-8, control characters) are shown as \xNN.
std::string printable(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const auto b = static_cast<unsigned char>(message[i]);
    std::size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    const std::string piece = len && i + len <= message.size() ? message.substr(i, len) : "";
    if (len == 1 && b >= 0x20 && b != 0x7f) {
      out += static_cast<char>(b);
    } else if (len > 1 && sinkscope::models::utf8_valid(piece)) {
      out += piece;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", b);
      out += hex;
      len = 1;
    }
    i += len;
  }
  return out;
}

// A closed standard stream's descriptor would be handed to the next open():
// a model file or a CSV we write would then receive what we print. Park
// /dev/null there instead (read-only for stdout, so printing still fails and
// is reported rather than lost).
void guard_standard_streams() {
  for (int fd : {0, 1, 2}) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int flags = fd == 2 ? O_WRONLY : O_RDONLY;
    const int opened = ::open("/dev/null", flags | O_CLOEXEC);
    if (opened >= 0 && opened != fd) {
      dup2(opened, fd);
      ::close(opened);
    }
  }
}

// Whether everything printed reached standard output (a full disk, a closed
// pipe or a closed descriptor must not end in exit 0 with the output lost).
bool stdout_ok() {
  std::cout.flush();
  return !std::cout.fail() && std::fflush(stdout) == 0 && !std::ferror(stdout);
}

int run_command(int argc, char** argv) {
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kMainHelp;
    return kOk;
  }
  if (command == "--version") {
    std::cout << "sinkscope-cli " << SINKSCOPE_VERSION << "\n";
    return kOk;
  }
  if (command == "info") return command_info(argc, argv);
  if (command == "baseline") return command_baseline(argc, argv);
  if (command == "inspect") return command_inspect(argc, argv);
  if (command == "tokens") return command_tokens(argc, argv);
  if (command == "attention") return command_attention(argc, argv);
  if (command == "tensors") return command_tensors(argc, argv);
  if (command == "random-model") return command_random_model(argc, argv);
  if (command == "corpus") return command_corpus(argc, argv);
  if (command == "train") return command_train(argc, argv);
  if (command == "sinks") return command_sinks(argc, argv);
  if (command == "analyze") return command_analyze(argc, argv);
  if (command == "experiment") return command_experiment(argc, argv);
  if (command == "study") return command_study(argc, argv);
  throw UsageError("unknown command \"" + command + "\" (see sinkscope-cli --help)");
}

}  // namespace

// Takes the global --threads N (or --threads=N) out of the arguments and applies
// it (after SINKSCOPE_THREADS, so the option wins); throws UsageError.
void apply_thread_options(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string value;
    if (a == "--threads") {
      if (i + 1 >= argc) throw UsageError("--threads needs a value");
      value = argv[++i];
    } else if (a.rfind("--threads=", 0) == 0) {
      value = a.substr(10);
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    sinkscope::models::set_cpu_threads(parse_int("threads", value, 1, 1024));
  }
  argc = kept;
  argv[argc] = nullptr;
}

int main(int argc, char** argv) {
  guard_standard_streams();
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (exit 1), not a signal
  // Before any matrix product: OpenBLAS's kernels, memory and threads (cpu_runtime.h).
  const std::string threadError = sinkscope::models::configure_cpu_runtime();
  try {
    if (!threadError.empty()) throw UsageError(threadError);
    apply_thread_options(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "sinkscope-cli: " << printable(e.what()) << "\n";
    return kBadUsage;
  }
  if (argc < 2) {
    std::cerr << kMainHelp;
    return kBadUsage;
  }
  int code = kFailure;
  try {
    code = run_command(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "sinkscope-cli: " << printable(e.what()) << "\n";
    code = kBadUsage;
  } catch (const sinkscope::models::ModelInputError& e) {
    std::cerr << "sinkscope-cli: " << printable(e.what()) << "\n";
    code = kBadUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "sinkscope-cli: out of memory\n";
    code = kFailure;
  } catch (const std::exception& e) {
    std::cerr << "sinkscope-cli: " << printable(e.what()) << "\n";
    code = kFailure;
  }
  if (!stdout_ok()) {
    std::cerr << "sinkscope-cli: cannot write to standard output (" << std::strerror(errno)
              << ")\n";
    return kFailure;
  }
  return code;
}
