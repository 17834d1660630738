// sinkscope-cli: SinkScope without a display.
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/sink_metric.h"
#include "analysis/table_io.h"
#include "models/model_folder.h"
#include "models/runtime_info.h"

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
    "\n"
    "options for every command: --help\n"
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

int command_info(int argc, char** argv) {
  const Args args = parse_args(argc, argv, 2, {"help"}, {});
  if (args.options.count("help")) {
    std::cout << kInfoHelp;
    return kOk;
  }
  if (args.positional.size() > 1) throw UsageError("info: give at most one model folder");
  const auto runtime = sinkscope::models::runtime_info_query();
  std::cout << "device: " << sinkscope::models::runtime_device_label(runtime) << "\n"
            << "libtorch: " << runtime.torch_version << "\n";
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
  } catch (const sinkscope::models::ModelFolderError& e) {
    std::cerr << "sinkscope-cli: " << e.what() << "\n";
    return kBadUsage;
  }
  return kOk;
}

int command_baseline(int argc, char** argv) {
  const Args args =
      parse_args(argc, argv, 2, {"help", "bidirectional", "force"}, {"length", "out"});
  if (args.options.count("help")) {
    std::cout << kBaselineHelp;
    return kOk;
  }
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
        {std::to_string(k),
         sinkscope::analysis::csv_number(sinkscope::analysis::sink_uniform_baseline(T, k, causal))});
  const std::string csv = sinkscope::analysis::csv_render(table);
  if (!args.options.count("out")) {
    std::cout << csv;
    return kOk;
  }
  sinkscope::analysis::file_write_atomic(args.options.at("out"), csv, args.options.count("force") > 0);
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kMainHelp;
    return kBadUsage;
  }
  const std::string command = argv[1];
  try {
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
    throw UsageError("unknown command \"" + command + "\" (see sinkscope-cli --help)");
  } catch (const UsageError& e) {
    std::cerr << "sinkscope-cli: " << e.what() << "\n";
    return kBadUsage;
  } catch (const std::exception& e) {
    std::cerr << "sinkscope-cli: " << e.what() << "\n";
    return kFailure;
  }
}
