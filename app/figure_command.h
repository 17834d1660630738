#pragma once
// `sinkscope figure` (and `sinkscope-cli figure`, which runs it): a figure of
// any panel without a display. The window is made on Qt's
// offscreen platform and never shown; a session file, or a model and a
// sentence, is opened as the GUI opens it; the selection and camera asked for
// are applied; once every panel has drawn, the figure is written by the same
// export code as Ctrl+E. The user's settings are neither read nor written.
namespace sinkscope::app {

// argv[0] is "figure". Returns 0 when the figure was written, 1 when it could
// not be made, 2 for a bad command line.
int figure_command(int argc, char** argv);

// The same in a running QApplication (a test's), with the thread setting of
// SINKSCOPE_THREADS or every core; what it prints goes to stdout and stderr.
int figure_command_here(int argc, char** argv);

}  // namespace sinkscope::app
