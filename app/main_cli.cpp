// sinkscope-cli: SinkScope without a display.
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input. Each
// command lives in app/cli/ (commands.h); this file guards the streams,
// dispatches and turns errors into exit codes.
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
#include <sstream>

#include "models/input_files.h"
#include "models/loaded_model.h"
#include "models/model_writer.h"
#include "models/cpu_runtime.h"
#include "models/trace_export.h"
#include "models/trainer.h"

#include "app/cli/commands.h"

using namespace sinkscope::cli;

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
  if (const auto at = message.find("Exception raised from"); at != std::string::npos) message.erase(at);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

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
  if (command == "figure" || command == "figure-set") return command_figure(argc, argv);
  if (command.rfind("--threads", 0) == 0)
    throw UsageError("--threads goes after the command's name: sinkscope-cli COMMAND --threads N ...");
  throw UsageError("unknown command \"" + command + "\" (see sinkscope-cli --help)");
}

}  // namespace

int main(int argc, char** argv) {
  guard_standard_streams();
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (exit 1), not a signal
  // Before any matrix product: OpenBLAS's kernels, memory and threads (cpu_runtime.h).
  const std::string threadError = sinkscope::models::configure_cpu_runtime();
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

