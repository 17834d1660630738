#pragma once
// The sinkscope-cli commands, one function each (argv[1] is the command).
#include "app/cli/cli_support.h"
#include "models/document/analyze_report.h"

namespace sinkscope::cli {

int command_info(int argc, char** argv);
int command_baseline(int argc, char** argv);
int command_inspect(int argc, char** argv);
int command_tokens(int argc, char** argv);
int command_attention(int argc, char** argv);
int command_tensors(int argc, char** argv);
int command_random_model(int argc, char** argv);
int command_corpus(int argc, char** argv);
int command_train(int argc, char** argv);
int command_sinks(int argc, char** argv);
int command_analyze(int argc, char** argv);
int command_experiment(int argc, char** argv);
int command_study(int argc, char** argv);
// Runs `sinkscope figure` (the GUI program, offscreen) with the same arguments.
int command_figure(int argc, char** argv);

}  // namespace sinkscope::cli
