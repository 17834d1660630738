#pragma once
// The command lines of both programs (`sinkscope` with its figure and
// figure-set commands, and every `sinkscope-cli` command), with CLI11: each
// option declared once, with its type, its range and its help; `--help` is
// generated from the declarations. Mistakes are UsageError (exit 2) naming
// the option.
#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

namespace sinkscope::app {

// A command-line mistake; its message names the option (exit status 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A number from lo to hi (any form strtod reads, hexadecimal floats too).
CLI::Validator number_in(double lo, double hi);
// A whole number from lo to hi.
CLI::Validator whole_in(long long lo, long long hi);
// A head: a whole number from 0 to hi, or "avg" (the head average).
CLI::Validator head_in(int hi);
// An option's help with its range: "TEXT (lo to hi)".
std::string range_text(const std::string& text, double lo, double hi);

// The largest layer, head or token index a command line may name: the
// model's own range is checked once it is loaded.
constexpr int kMaxIndex = 1 << 20;

class CommandLine {
 public:
  // `program`: how the usage line names it ("sinkscope-cli analyze",
  // "sinkscope figure"); `about`: what it does, shown above the options;
  // `details`: shown after them; `errorPrefix`: put before every mistake's
  // message ("analyze: "). Every command line takes --threads N.
  CommandLine(const std::string& program, const std::string& about,
              const std::string& details = {}, std::string errorPrefix = {});
  CLI::App& app() { return app_; }
  // Parses argv[first..argc). False when --help (or a --version declared) was
  // asked for: the help of the command (or of its subcommand), or the
  // version, is then printed. Throws UsageError.
  bool parse(int argc, char** argv, int first);

 private:
  void refuse_empty_paths(const CLI::App& app) const;

  CLI::App app_;
  std::string errorPrefix_;
};

}  // namespace sinkscope::app
