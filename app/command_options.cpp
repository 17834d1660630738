#include "app/command_options.h"

#include <stdexcept>

#include "app/command_line.h"
#include "models/input_files.h"
#include "ui/selection_model.h"

namespace sinkscope::app {

int head_value(const std::string& text) {
  return text == "avg" ? ui::SelectionModel::kHeadAverage : std::stoi(text);
}

std::string sentence_value(const std::string& text, const std::string& option) {
  try {
    models::input_text_check(text, option);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  return text;
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names{"one-column", "two-columns", "slide", "screen"};
  return names;
}

render::FigureOptions preset_named(const std::string& name, int dpi) {
  using render::FigurePreset;
  const FigurePreset preset = name == "two-columns" ? FigurePreset::TwoColumns
                              : name == "slide"     ? FigurePreset::Slide
                              : name == "screen"    ? FigurePreset::Screen
                                                    : FigurePreset::OneColumn;
  return render::figure_preset(preset, dpi);
}

}  // namespace sinkscope::app
