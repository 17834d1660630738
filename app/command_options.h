#pragma once
// What `sinkscope`, `sinkscope figure` and `sinkscope figure-set` read from
// their command lines alike (app/command_line.h declares the options): heads
// and sentences as given, and the figure size presets by name.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "render/panel_export.h"

namespace sinkscope::app {

// --layer and --head: the place selected once the sentence has run.
struct PlaceOptions {
  int layer = 0;
  std::string head;
  CLI::Option *layerOption = nullptr, *headOption = nullptr;
  void declare(CLI::App& app, const std::string& group);
};

// --compare-sentence or --compare-model: run B beside the sentence (A) in
// every panel; --compare-layer, --compare-head: B pinned at that place.
struct ComparisonOptions {
  std::string sentence, model, head;
  int layer = 0;
  CLI::Option *sentenceOption = nullptr, *modelOption = nullptr, *layerOption = nullptr,
              *headOption = nullptr;
  void declare(CLI::App& app, const std::string& group);
  // After parsing: a sentence given byte for byte (sentence_value) and not
  // blank; throws UsageError.
  void check() const;
};

// A head_in value: SelectionModel::kHeadAverage for "avg", else the number.
int head_value(const std::string& text);
// A sentence given on the command line, checked as every input text is (valid
// UTF-8 without NUL: a bad byte is refused, never replaced); throws UsageError
// naming `option`.
std::string sentence_value(const std::string& text, const std::string& option);
// one-column, two-columns, slide, screen.
const std::vector<std::string>& preset_names();
// The preset `name` (one of preset_names()) at `dpi`.
render::FigureOptions preset_named(const std::string& name, int dpi);

}  // namespace sinkscope::app
