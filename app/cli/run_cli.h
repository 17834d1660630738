#pragma once
// sinkscope-cli without its process: argv[1] is the command. Prints to
// std::cout and std::cerr and returns the exit code (0 success, 1 runtime
// failure, 2 bad usage or bad input); never throws. Tests run commands here,
// in their own process, where a separate process would prove nothing more.
namespace sinkscope::cli {

int run_cli(int argc, char** argv);

}  // namespace sinkscope::cli
