#include "support/cli_in_process.h"

#include <fcntl.h>
#include <unistd.h>
#include <wordexp.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "app/cli/run_cli.h"
#include "models/cpu_runtime.h"

namespace sinkscope::testing {

namespace {

// The words of `args`, or nullopt where /bin/sh would do more than split and unquote.
std::optional<std::vector<std::string>> shell_words(const std::string& args) {
  if (args.find_first_of("|&;<>(){}$`\\\n*?[~") != std::string::npos) return std::nullopt;
  wordexp_t words;
  if (wordexp(args.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF) != 0) return std::nullopt;
  std::vector<std::string> out(words.we_wordv, words.we_wordv + words.we_wordc);
  wordfree(&words);
  return out;
}

std::string whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A descriptor of the test process (1 or 2) pointed at a file while it lives.
class Redirected {
 public:
  Redirected(int fd, const std::string& path) : fd_(fd), saved_(::dup(fd)) {
    const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ::dup2(file, fd_);
    ::close(file);
  }
  ~Redirected() {
    ::dup2(saved_, fd_);
    ::close(saved_);
  }
  Redirected(const Redirected&) = delete;
  Redirected& operator=(const Redirected&) = delete;

 private:
  int fd_, saved_;
};

std::string temporary_file() {
  std::string path = (std::filesystem::temp_directory_path() / "sinkscope-cli-XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  if (fd >= 0) ::close(fd);
  return path;
}

void flush_all() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

int (*figureHere)(int, char**) = nullptr;

}  // namespace

void run_figures_here(int (*figure)(int argc, char** argv)) { figureHere = figure; }

std::optional<CapturedCli> cli_in_process(const std::string& args, bool mergeErr) {
  auto words = shell_words(args);
  if (!words || words->empty() || (*words)[0] == "figure-set") return std::nullopt;
  const bool figure = (*words)[0] == "figure";
  if (figure && !figureHere) return std::nullopt;
  // The program's kernels (it corrects OpenBLAS's choice on CPUs OpenBLAS does not know).
  static const bool kernels = (models::fix_blas_core(), true);
  (void)kernels;
  words->insert(words->begin(), SINKSCOPE_CLI);
  std::vector<char*> argv;
  for (std::string& w : *words) argv.push_back(w.data());
  argv.push_back(nullptr);

  const std::string outPath = temporary_file(), errPath = mergeErr ? outPath : temporary_file();
  CapturedCli r;
  flush_all();
  {
    const Redirected out(1, outPath), err(2, errPath);
    std::clearerr(stdout);
    std::cout.clear();
    std::cerr.clear();
    const int argc = static_cast<int>(argv.size()) - 1;
    r.exit = figure ? figureHere(argc - 1, argv.data() + 1) : cli::run_cli(argc, argv.data());
    flush_all();
  }
  std::clearerr(stdout);
  std::cout.clear();
  r.out = whole_file(outPath);
  if (!mergeErr) r.err = whole_file(errPath);
  std::remove(outPath.c_str());
  if (!mergeErr) std::remove(errPath.c_str());
  return r;
}

}  // namespace sinkscope::testing
