#pragma once
// Tests that run the programs: a shell command line's standard output and exit code.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#ifdef SINKSCOPE_CLI_IN_PROCESS
#include "support/cli_in_process.h"
#endif

struct CliRun {
  int exit = -1;
  std::string out;
};

// Runs `command` with /bin/sh and collects its stdout (merge stderr with 2>&1).
inline CliRun shell(const std::string& command) {
  CliRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

#ifdef SINKSCOPE_CLI
// Runs sinkscope-cli with `args` as a process (shell-quoted by the caller);
// stderr is merged into out.
inline CliRun cli_process(const std::string& args) {
  return shell(std::string("'") + SINKSCOPE_CLI + "' " + args + " 2>&1");
}

// The same, in this process where the program links the CLI's commands
// (support/cli_in_process.h) and the line needs no shell.
inline CliRun cli(const std::string& args) {
#ifdef SINKSCOPE_CLI_IN_PROCESS
  if (auto here = sinkscope::testing::cli_in_process(args, true)) return {here->exit, here->out};
#endif
  return cli_process(args);
}
#endif

// A whole text file ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The data rows of a CSV file: every line but the "# " header comments.
inline std::string csv_rows(const std::filesystem::path& p) {
  std::istringstream in(read_text(p));
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# ", 0) != 0) out += line + "\n";
  return out;
}
