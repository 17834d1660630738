#pragma once
// What the GUI binary's two modes (the window, and `sinkscope figure`) share:
// the application's name and where the built-in models are.
#include <QString>

namespace sinkscope::app {

// Organisation, application name and version, for QSettings and --version.
void name_application();
// Where the built-in models are: $SINKSCOPE_MODELS_DIR, the installed data
// folder beside the executable, or the source tree this binary was built
// from; empty when none exists.
QString builtin_models_dir();
// The default model's folder under `builtins` (empty when there is none):
// rope-decoder-bos-first, the clearest first-token sink (docs/sinks.md).
QString default_model_folder(const QString& builtins);

}  // namespace sinkscope::app
