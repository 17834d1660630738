#include "app/command_options.h"

#include <QString>
#include <stdexcept>

#include "app/command_line.h"
#include "models/input_files.h"
#include "ui/selection_model.h"

namespace sinkscope::app {

void PlaceOptions::declare(CLI::App& app, const std::string& group) {
  layerOption = app.add_option("--layer", layer, "select layer N once the sentence has run")
                    ->type_name("N")->check(whole_in(0, kMaxIndex))->group(group);
  headOption = app.add_option("--head", head,
                              "select head N, or avg (the head average), once the sentence has run")
                   ->type_name("N|avg")->check(head_in(kMaxIndex))->group(group);
}

void ComparisonOptions::declare(CLI::App& app, const std::string& group) {
  sentenceOption = app.add_option("--compare-sentence", sentence,
                                  "show SENTENCE (B) beside the sentence (A) in every panel")
                       ->type_name("SENTENCE")->group(group);
  modelOption = app.add_option("--compare-model", model,
                               "run the sentence on the model DIR too and show both runs side by "
                               "side (a model of another shape is compared layer by relative depth)")
                    ->type_name("DIR")->group(group);
  layerOption = app.add_option("--compare-layer", layer,
                               "pin the compared run B at its layer N (default: the selected "
                               "layer's counterpart at the same relative depth)")
                    ->type_name("N")->check(whole_in(0, kMaxIndex))->group(group);
  headOption = app.add_option("--compare-head", head,
                              "pin the compared run B at its head N or avg (default: the selected "
                              "head when B's layers have as many heads, else B's head average)")
                   ->type_name("N|avg")->check(head_in(kMaxIndex))->group(group);
}

void ComparisonOptions::check() const {
  if (!sentenceOption->count()) return;
  sentence_value(sentence, "--compare-sentence");
  if (QString::fromStdString(sentence).trimmed().isEmpty())
    throw UsageError("--compare-sentence: nothing to compare with (the sentence is blank)");
}

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
