// sinkscope-cli's commands behind one entry: dispatch, and every error
// turned into its message and exit code (what main adds is the process's own:
// its streams, signals and BLAS kernels).
#include "app/cli/run_cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "models/cpu_runtime.h"
#include "models/input_files.h"

namespace sinkscope::cli {

namespace {

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
    "  figure (--session FILE | MODEL --text TEXT) --panel NAME --out FILE   a figure of\n"
    "                      any panel without a display (see figure --help)\n"
    "  figure-set MODEL --sentences FILE --out DIR   the seed papers' figure kinds for a\n"
    "                      sentence file, each as PDF with its CSV (see figure-set --help)\n"
    "  paper MODEL --sentences FILE --out DIR   the figure set in the papers' order as one\n"
    "                      captioned report.pdf, with atlas.csv of what is drawn and why not\n"
    "\n"
    "MODEL is a model folder or a Hugging Face cache name org/name.\n"
    "\n"
    "options of every command, after its name: --help, --threads N (threads for the\n"
    "forward pass and the per-head analysis; default: every core; SINKSCOPE_THREADS=N\n"
    "does the same)\n"
    "sinkscope-cli --version prints the version.\n";

// An error message as one printable line: bytes a model file put there
// (invalid UTF-8, control characters) are shown as \xNN.
// A libtorch error's message without the C++ backtrace it carries (kilobytes
// of frames that mean nothing to a user): what precedes "Exception raised
// from", without the trailing line breaks.
std::string without_backtrace(std::string message) {
  if (const auto at = message.find("Exception raised from"); at != std::string::npos)
    message.erase(at);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

std::string printable(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const auto b = static_cast<unsigned char>(message[i]);
    std::size_t len = b < 0x80         ? 1
                      : (b >> 5) == 6  ? 2
                      : (b >> 4) == 14 ? 3
                      : (b >> 3) == 30 ? 4
                                       : 0;
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
  if (command == "figure" || command == "figure-set" || command == "paper")
    return command_figure(argc, argv);
  if (command.rfind("--threads", 0) == 0)
    throw UsageError(
        "--threads goes after the command's name: sinkscope-cli COMMAND --threads N ...");
  throw UsageError("unknown command \"" + command + "\" (see sinkscope-cli --help)");
}

}  // namespace

int run_cli(int argc, char** argv) {
  // Each run starts from SINKSCOPE_THREADS or every core: a run in the same
  // process before it (a test's) may have asked for --threads.
  const std::string threadError = models::apply_thread_environment();
  if (!threadError.empty()) {
    std::cerr << "sinkscope-cli: " << printable(threadError) << "\n";
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
    std::cerr << "sinkscope-cli: " << printable(without_backtrace(e.what())) << "\n";
    code = kFailure;
  }
  if (!stdout_ok()) {
    std::cerr << "sinkscope-cli: cannot write to standard output (" << std::strerror(errno)
              << ")\n";
    return kFailure;
  }
  return code;
}

}  // namespace sinkscope::cli
