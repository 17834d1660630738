#pragma once
// What every sinkscope-cli command shares: exit codes, the usage error,
// number and head lists given as text, the input text and the provenance
// lines every table carries. Options are declared in command_line.h.
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/command_line.h"
#include "models/loaded_model.h"
#include "models/model.h"
#include "models/safetensors.h"

namespace sinkscope::cli {

// Exit codes: success, runtime failure, bad usage or bad input.
constexpr int kOk = 0, kFailure = 1, kBadUsage = 2;

using app::UsageError;

// A number option within [lo, hi]; bad text or range is a usage error naming the option.
double parse_real(const std::string& option, const std::string& text, double lo, double hi);
int parse_int(const std::string& option, const std::string& text, int lo, int hi);
// "a,b,c": numbers, each within [lo, hi] (parse_real's errors).
std::vector<double> parse_reals(const std::string& option, const std::string& text, double lo, double hi);
// A weight dtype a folder may be written in: F16, BF16 or F32.
sinkscope::models::DType parse_weight_dtype(const std::string& option, const std::string& text);
// "L:H,L:H" as (layer, head) pairs.
std::vector<std::pair<int, int>> parse_heads(const char* option, const std::string& text);

std::string read_stdin();
// The input text of a --text value ("-": standard input): valid UTF-8
// without NUL (files and stdin can hold anything).
std::string text_checked(const std::string& given);
// The command as it was typed, quoted for a shell where needed.
std::string command_line(int argc, char** argv);
// Where an output's numbers came from: the full command, the model's config
// and tokenizer hashes and its weight files.
std::vector<std::pair<std::string, std::string>> provenance(const models::LoadedModel& m, int argc,
                                                            char** argv);
// A folder or cache name; not finding it is bad input.
std::filesystem::path resolve_model(const std::string& spec);
std::string gib(double bytes);

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

}  // namespace sinkscope::cli
