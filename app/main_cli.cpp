// sinkscope-cli: SinkScope without a display.
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input. The
// commands live in app/cli/ (run_cli.h); this file sets up the process: its
// standard streams, SIGPIPE and OpenBLAS's kernels and memory.
#include <csignal>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "app/cli/run_cli.h"
#include "models/cpu_runtime.h"

namespace {

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

}  // namespace

int main(int argc, char** argv) {
  guard_standard_streams();
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (exit 1), not a signal
  // Before any matrix product: OpenBLAS's kernels and memory (cpu_runtime.h);
  // run_cli applies the thread setting.
  sinkscope::models::fix_blas_core();
  sinkscope::models::keep_freed_memory();
  return sinkscope::cli::run_cli(argc, argv);
}
