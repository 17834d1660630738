// sinkscope-cli figure and figure-set: the GUI binary's figure mode (app/figure_command.h),
// run as its own process so that sinkscope-cli itself links no Qt or VTK and
// starts as fast for every other command. Both programs take the same options.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "models/cpu_runtime.h"

namespace sinkscope::cli {

namespace {
// The `sinkscope` program beside this one (the build folder or the install's bin).
std::filesystem::path gui_program() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path beside = self.parent_path() / "sinkscope";
    if (std::filesystem::is_regular_file(beside, ec)) return beside;
  }
  return "sinkscope";  // from PATH
}
}  // namespace

int command_figure(int argc, char** argv) {
  // argv[1] is "figure" or "figure-set": the rest goes as it is, with the
  // thread count chosen here.
  std::vector<std::string> args{"sinkscope", argv[1]};
  for (int i = 2; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> raw;
  for (std::string& a : args) raw.push_back(a.data());
  raw.push_back(nullptr);
  const std::string threads = std::to_string(models::cpu_threads());
  ::setenv("SINKSCOPE_THREADS", threads.c_str(), 1);
  const std::filesystem::path program = gui_program();
  if (program.has_parent_path())
    ::execv(program.c_str(), raw.data());
  else
    ::execvp(program.c_str(), raw.data());
  throw std::runtime_error("figure: cannot run " + program.string() + " (" + std::strerror(errno) +
                           "); sinkscope-cli figure needs the sinkscope program beside it");
}

}  // namespace sinkscope::cli
