#include "app/cli/cli_support.h"

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
#include "models/model_discovery.h"
#include "models/model_identity.h"

namespace sinkscope::cli {

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
  if (!(x >= lo && x <= hi)) {  // NaN, which no comparison holds for, is refused too
    std::ostringstream range;
    range << lo << ".." << hi;
    throw UsageError("option --" + option + ": \"" + text + "\" must be a number in " +
                     range.str());
  }
  return x;
}

std::vector<double> parse_reals(const std::string& option, const std::string& text, double lo, double hi) {
  std::vector<double> values;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) values.push_back(parse_real(option, part, lo, hi));
  return values;
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

sinkscope::models::DType parse_weight_dtype(const std::string& option, const std::string& text) {
  namespace m = sinkscope::models;
  const auto d = m::dtype_parse(text);
  if (!d || (*d != m::DType::F16 && *d != m::DType::BF16 && *d != m::DType::F32))
    throw UsageError("option --" + option + ": use F16, BF16 or F32");
  return *d;
}

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

std::string text_checked(const std::string& t) {
  std::string text = t == "-" ? read_stdin() : t;
  try {
    sinkscope::models::input_text_check(text, t == "-" ? "--text - (standard input)" : "--text");
  } catch (const sinkscope::models::ModelInputError& e) {
    throw UsageError(e.what());
  }
  return text;
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

}  // namespace sinkscope::cli
