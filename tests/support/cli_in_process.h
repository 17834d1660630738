#pragma once
// sinkscope-cli's commands run in the test's own process (app/cli/run_cli.h):
// the program's ~1 s of start-up (Debian's libtorch and its ~290 libraries,
// loaded when a model first runs) is paid once per test program, not once per
// command. Tests that prove what only a process shows (exit codes on a lost
// stdout, signals, file-size limits, the libraries it loads) keep running the
// program.
#include <optional>
#include <string>

namespace sinkscope::testing {

struct CapturedCli {
  int exit = -1;
  std::string out, err;  // err is empty when merged into out
};

// `args` as /bin/sh would split them (quotes, no expansion), run as
// `sinkscope-cli ARGS` here, standard output and error captured (merged when
// `mergeErr`, as 2>&1). nullopt when the line needs a shell (redirections,
// pipes, $ or backslashes) or the command runs another program (figure-set,
// and figure unless run_figures_here was given it): run those as a process.
std::optional<CapturedCli> cli_in_process(const std::string& args, bool mergeErr);

// For programs that link the GUI program's figure command and run a
// QApplication: `figure` lines run here as well, by `figure` (argv[0] is
// "figure"; app/figure_command.h's figure_command_here).
void run_figures_here(int (*figure)(int argc, char** argv));

}  // namespace sinkscope::testing
