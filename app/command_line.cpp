#include "app/command_line.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include "models/cpu_runtime.h"

namespace sinkscope::app {

namespace {

std::string shown(double v) {
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

std::string whole_check(const std::string& text, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || v < lo || v > hi)
    return "\"" + text + "\" is not a whole number from " + std::to_string(lo) + " to " +
           std::to_string(hi);
  return {};
}

}  // namespace

std::string range_text(const std::string& text, double lo, double hi) {
  return text + " (" + shown(lo) + " to " + shown(hi) + ")";
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
          return "\"" + text + "\" is not a number";
        if (v < lo || v > hi)
          return "\"" + text + "\" is not from " + shown(lo) + " to " + shown(hi);
        return {};
      },
      std::string());
}

CLI::Validator whole_in(long long lo, long long hi) {
  return CLI::Validator([lo, hi](std::string& text) { return whole_check(text, lo, hi); },
                        std::string());
}

CLI::Validator head_in(int hi) {
  return CLI::Validator(
      [hi](std::string& text) -> std::string {
        if (text == "avg") return {};
        const std::string problem = whole_check(text, 0, hi);
        return problem.empty() ? problem : problem + ", or avg";
      },
      std::string());
}

CommandLine::CommandLine(const std::string& program, const std::string& about,
                         const std::string& details, std::string errorPrefix)
    : app_(about, program), errorPrefix_(std::move(errorPrefix)) {
  app_.set_help_flag("-h,--help", "this help");
  app_.footer(details);
  app_.get_formatter()->column_width(34);
  app_.get_formatter()->label("REQUIRED", "(required)");
  // Options given after a subcommand's (study run MODEL --threads 2) are the command's.
  app_.fallthrough();
  // One thread count for the forward passes and the per-head analysis, after
  // SINKSCOPE_THREADS (cpu_runtime.h), so that the option wins.
  app_.add_option_function<int>(
         "--threads", [](int threads) { models::set_cpu_threads(threads); },
         range_text("threads for forward passes and the per-head analysis (default: every core; "
                    "SINKSCOPE_THREADS=N does the same)",
                    1, 1024))
      ->type_name("N")
      ->check(whole_in(1, 1024));
}

bool CommandLine::parse(int argc, char** argv, int first) {
  try {
    app_.parse(argc - (first - 1), argv + (first - 1));  // argv[first - 1] stands for the program
  } catch (const CLI::CallForVersion& version) {
    std::cout << version.what() << "\n";
    return false;
  } catch (const CLI::CallForHelp&) {
    // The help of the subcommand asked about (study run --help), else the command's.
    const CLI::App* asked = &app_;
    while (!asked->get_subcommands().empty()) asked = asked->get_subcommands().back();
    std::cout << (asked == &app_ ? app_.help() : asked->help(app_.get_name()));
    return false;
  } catch (const CLI::ExtrasError&) {
    // Named in the order given (CLI11's message lists them backwards).
    std::string extras;
    for (const std::string& word : app_.remaining(true))
      extras += (extras.empty() ? "" : " ") + word;
    throw UsageError(errorPrefix_ + "not an option or argument here: " + extras);
  } catch (const CLI::ParseError& e) {
    const std::vector<CLI::App*> actions = app_.get_subcommands({});
    if (!actions.empty() && app_.get_subcommands().empty()) {
      std::string names;
      for (std::size_t k = 0; k < actions.size(); ++k)
        names += (k == 0 ? "" : k + 1 == actions.size() ? " or " : ", ") + actions[k]->get_name();
      const std::string command = app_.get_name().substr(app_.get_name().rfind(' ') + 1);
      throw UsageError(errorPrefix_ + "give " + names + " (see " + command + " --help)");
    }
    throw UsageError(errorPrefix_ + e.what());
  }
  refuse_empty_paths(app_);
  return true;
}

// A path option given as "" would name the working folder ("--out ''" wrote
// analyze's tables there): every option whose value is a file or folder
// (its type name says FILE or DIR) must be given a name.
void CommandLine::refuse_empty_paths(const CLI::App& app) const {
  for (const CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (option->count() == 0 ||
        (type.find("FILE") == std::string::npos && type.find("DIR") == std::string::npos))
      continue;
    for (const std::string& given : option->results())
      if (given.empty())
        throw UsageError(errorPrefix_ + option->get_name() + ": give a " +
                         (type.find("DIR") != std::string::npos ? "folder" : "file") +
                         " name, not an empty one");
  }
  for (const CLI::App* sub : app.get_subcommands()) refuse_empty_paths(*sub);
}

}  // namespace sinkscope::app
