#include "models/document/workbench.h"

#include <filesystem>

#include "analysis/run_correspondence.h"
#include "models/cpu_runtime.h"
#include "models/document/trace_analysis.h"
#include "models/experiments.h"
#include "models/fisher.h"
#include "models/model.h"
#include "models/model_identity.h"

namespace sinkscope::document {

bool Workbench::setSentence(std::string text) {
  if (text == sentence_) return false;
  sentence_ = std::move(text);
  return true;
}

const SentenceRun* Workbench::shownRun() const {
  if (!run_) return nullptr;
  if (runB_ && comparison_ != Comparison::Before) return &*runB_;
  return &*run_;
}

void Workbench::showRun(SentenceRun run) {
  experiments_ = {};  // they belonged to the previous run
  run_ = std::move(run);
  runB_.reset();
  droppedFirst_.reset();
}

bool Workbench::setAnalysis(const std::shared_ptr<const models::Trace>& trace,
                            std::shared_ptr<const TraceAnalysis> analysis) {
  if (!trace || !isRunA(trace)) return false;
  run_->analysis = std::move(analysis);
  return true;
}

void Workbench::setRunB(std::optional<SentenceRun> run, const Selection& selection) {
  runB_ = std::move(run);
  droppedFirst_ = droppedFirstOf(selection);
}

bool Workbench::setAnalysisSettings(const AnalysisSettings& settings) {
  // The same settings again (a session's defaults, most often): nothing to redo.
  if (settings_json(settings, true) == settings_json(analysisSettings_, true)) return false;
  analysisSettings_ = settings;
  if (run_ && run_->trace) run_->analysis.reset();
  return true;
}

std::string Workbench::comparedModelFolder() const {
  return comparingModels() ? comparing_->model->model->folder().string() : std::string();
}

void Workbench::beginComparison(ComparisonSource source) {
  comparing_ = std::move(source);
  comparison_ = Comparison::SideBySide;
}

bool Workbench::endComparison() {
  if (!comparing_) return false;
  comparing_.reset();
  runB_.reset();
  droppedFirst_.reset();
  comparedTokens_.clear();
  setNames("before", "after");
  return true;
}

void Workbench::setNames(std::string before, std::string after, bool comparison) {
  names_ = RunNames{std::move(before), std::move(after), comparison};
}

std::pair<std::optional<ComparedRunToMake>, std::string> Workbench::comparedRunToMake() {
  if (!run_ || !comparing_) return {std::nullopt, {}};
  if (!run_->trace || !model_) {
    comparing_.reset();
    return {std::nullopt, "Compare: open a model first"};
  }
  const bool otherModel = comparing_->model.has_value();
  if (otherModel)
    setNames(models::model_display_name(model_->model->folder()),
             models::model_display_name(comparing_->model->model->folder()), true);
  else
    setNames("A", "B", true);
  return {ComparedRunToMake{otherModel ? *comparing_->model : *model_,
                            otherModel ? run_->text : comparing_->sentence, run_->trace},
          {}};
}

std::optional<Workbench::ComparedRunTaken> Workbench::takeComparedRun(
    SentenceRun b, const std::shared_ptr<const models::Trace>& base) {
  if (!run_ || run_->trace != base || !comparing_ || !b.trace) return std::nullopt;
  ComparedRunTaken taken;
  taken.layers = b.trace->layers();
  taken.heads = b.trace->heads();
  if (pendingCounterpart_) {  // a session's pinned place in B
    // Said, never moved silently: a place B lacks is named.
    const auto [layer, head] = *pendingCounterpart_;
    if (layer != Selection::kAutomatic && layer >= taken.layers)
      taken.outside = "compare.layer " + std::to_string(layer) + " (B has " +
                      std::to_string(taken.layers) + " layers)";
    if (head != Selection::kAutomatic && head != Selection::kHeadAverage && head >= taken.heads)
      taken.outside += (taken.outside.empty() ? "" : "; ") + std::string("compare.head ") +
                       std::to_string(head) + " (B has " + std::to_string(taken.heads) + " heads)";
    taken.pinned = pendingCounterpart_;
    pendingCounterpart_.reset();
  }
  runB_ = std::move(b);
  droppedFirst_.reset();
  // Two tokenizers: where each token of A lands in B, once per pair of runs.
  comparedTokens_ = comparing_->model
                        ? analysis::token_counterparts(run_->tokens.offsets, runB_->tokens.offsets)
                        : std::vector<int>{};
  return taken;
}

std::string Workbench::comparisonNotice() const {
  if (!run_ || !runB_ || !run_->trace || !runB_->trace) return {};
  const models::Trace& a = *run_->trace;
  const models::Trace& b = *runB_->trace;
  std::string shape;
  if (b.layers() != a.layers() || b.heads() != a.heads())
    shape = " (" + std::to_string(a.layers()) + " x " + std::to_string(a.heads()) +
            " heads against " + std::to_string(b.layers()) + " x " + std::to_string(b.heads()) +
            ": B's layer at the same relative depth, B's head average unless the layers have as "
            "many heads; pin B's layer and head in the selection bar)";
  return "Comparing " + names_.before + ": \"" + run_->text + "\" with " + names_.after + ": \"" +
         runB_->text + "\"" + shape;
}

bool Workbench::setComparison(Comparison comparison) {
  if (comparison == comparison_) return false;
  comparison_ = comparison;
  return true;
}

bool Workbench::holdPinUntilComparedRun(int layer, int head, const Selection& selection) {
  if (selection.hasCounterpart()) return false;
  pendingCounterpart_ = {layer, head};  // for the comparison still running
  return true;
}

TokenAlignment Workbench::comparedTokenAlignment() const {
  if (!run_ || !runB_) return {};
  return tokens_aligned_by_characters(*run_, *runB_);
}

const std::optional<TokenAlignment>& Workbench::droppedFirstAlignment() const {
  static const std::optional<TokenAlignment> none;
  return comparing_ ? none : droppedFirst_;
}

std::optional<TokenAlignment> Workbench::droppedFirstOf(const Selection& selection) const {
  if (comparing_ || !run_ || !runB_ || !selection.interventions().dropFirstToken)
    return std::nullopt;
  return tokens_aligned_after_first_dropped(*run_, *runB_);
}

std::optional<PendingPlace> Workbench::takePendingPlace() {
  std::optional<PendingPlace> place = pendingPlace_;
  pendingPlace_.reset();
  return place;
}

std::string Workbench::placeOutside(const PendingPlace& place, const Selection& selection) {
  const int layers = selection.layerCount(), heads = selection.headCount();
  if (place.layer < layers && place.head < heads) return {};
  std::string where;
  if (place.layer >= 0) where = "Layer " + std::to_string(place.layer);
  if (place.head != Selection::kAutomatic)
    where += (where.empty() ? "" : ", ") + head_name(place.head);
  return where + ": the model has " + std::to_string(layers) + " layers of " +
         std::to_string(heads) + " heads (0.." + std::to_string(layers - 1) + ", 0.." +
         std::to_string(heads - 1) + "); the selection stays where it was";
}

bool Workbench::setHeadDnll(const std::shared_ptr<const models::Trace>& trace,
                            std::vector<double> dnll) {
  if (!trace || !isRunA(trace)) return false;
  experiments_.headDnll = std::move(dnll);
  return true;
}

bool Workbench::setLayerFunction(const std::shared_ptr<const models::Trace>& trace,
                                 std::vector<double> klPerLayer,
                                 std::vector<double> fisherPerParameter) {
  if (!trace || !isRunA(trace)) return false;
  experiments_.klPerLayer = std::move(klPerLayer);
  experiments_.fisherPerParameter = std::move(fisherPerParameter);
  return true;
}

void Workbench::setStudy(StudyTables study, std::string folder) {
  study_ = std::move(study);
  studyFolder_ = std::move(folder);
}

bool Workbench::studyMatchesModel() const {
  return study_ && model_ && model_->model->config().num_layers == study_->layers &&
         model_->model->config().num_heads == study_->heads;
}

bool Workbench::studyModelIsOpen() const {
  return study_ && model_ &&
         (model_->model->folder() == std::filesystem::path(study_->modelFolder) ||
          model_->name == study_->model);
}

std::string Workbench::studyModelToOpen() const {
  if (!study_) return {};
  std::error_code ec;
  return std::filesystem::is_directory(study_->modelFolder, ec) ? study_->modelFolder
                                                                : study_->model;
}

bool Workbench::setCheckpoints(models::CheckpointList steps, std::string folder) {
  if (steps.steps.empty()) return false;
  checkpoints_ = std::move(steps);
  checkpointsFolder_ = std::move(folder);
  return true;
}

std::vector<std::string> Workbench::provenance(const Selection& selection,
                                               const std::string& tool) const {
  std::vector<std::string> lines{"tool: " + tool};
  if (run_) {
    // The model by its name (a cache snapshot's repository and revision), and its folder.
    lines.push_back("model: " + run_->source);
    if (model_) lines.push_back("model_folder: " + model_->model->folder().string());
    lines.push_back("text: " + run_->text);
    // The model's identity (config and tokenizer hashes, weight files).
    if (model_) try {
        for (const auto& [k, v] :
             models::model_identity_header(models::model_identity(model_->model->folder())))
          lines.push_back(k + ": " + v);
      } catch (const std::exception&) {
        lines.push_back("model_config_sha256: unavailable (the folder changed)");
      }
    // The sink reading the red marks used (metrics.md s. 1), worded as analyze's headers.
    lines.push_back("sink_set: " + sink_set_description(run_->analysis ? run_->analysis->settings
                                                                       : analysisSettings_));
  }
  lines.push_back("selection: layer " + std::to_string(selection.layer()) + ", " +
                  head_name(selection.head()) + ", threshold " +
                  short_number(selection.threshold()) + ", top-N " +
                  std::to_string(selection.topN()));
  if (comparing_ && selection.hasCounterpart()) {
    // Where run B was drawn, and how that place was chosen.
    auto how = [](bool pinned, const char* automatic) {
      return pinned ? std::string("pinned") : std::string(automatic);
    };
    lines.push_back(
        "compared run " + names_.after + " at layer " +
        std::to_string(selection.counterpartLayer()) + " (" +
        how(selection.pinnedCounterpartLayer() != Selection::kAutomatic, "same relative depth") +
        "), " + head_name(selection.counterpartHead()) + " (" +
        how(selection.pinnedCounterpartHead() != Selection::kAutomatic,
            "the same head when the layers have as many, else the average") +
        ")");
    if (comparingModels()) lines.push_back("compared_model_folder: " + comparedModelFolder());
  }
  for (const std::string& line : selection.interventions().describe())
    lines.push_back("intervention: " + line);
  return lines;
}

std::vector<double> head_ablation_of_run(const models::LoadedModel& model,
                                         const models::Trace& trace,
                                         const models::ProgressFn& progress) {
  const models::SingleThreadedBlas exactProducts;  // the CLI's numbers
  return models::head_ablation_dnll(*model.model, trace, true, progress);
}

std::pair<std::vector<double>, std::vector<double>> layer_function_of_run(
    const models::LoadedModel& model, const models::Trace& trace,
    const models::ProgressFn& progress) {
  const models::SingleThreadedBlas exactProducts;  // the CLI's numbers
  std::vector<double> kl;
  for (const auto& row : models::kl_sink_removal(*model.model, trace, {}, progress))
    if (row.scope != "all") kl.push_back(row.meanKl);
  std::vector<double> fisher(static_cast<std::size_t>(trace.layers()), 0.0);
  for (const auto& f : models::fisher_per_layer(*model.model, trace.ids(), progress))
    if (f.layer >= 0) fisher[static_cast<std::size_t>(f.layer)] = f.perParameter;
  return {std::move(kl), std::move(fisher)};
}

}  // namespace sinkscope::document
