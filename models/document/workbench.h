#pragma once
// The window's document without a widget or a thread: the sentence, the open
// model, run A and run B (the run with the interventions, or a comparison's
// other sentence or model), which of them is shown and what both are called,
// the places waiting for the next run, the functional experiments of A, an
// open corpus study and a training run's checkpoints. Its commands change
// that state and answer what changed or what the user must be told; running a
// model is the caller's (the GUI's jobs, a test). The selection lives beside
// it with its signals in the front end and is passed to what reads it.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/document/analysis_settings.h"
#include "models/document/plot_views.h"
#include "models/document/run_comparison.h"
#include "models/document/selection.h"
#include "models/document/sentence_run.h"
#include "models/document/study_tables.h"
#include "models/loaded_model.h"
#include "models/model_discovery.h"

namespace sinkscope::document {

// What run B of a comparison is: another sentence on the open model, or the
// sentence on another model.
struct ComparisonSource {
  std::string sentence;
  std::optional<models::LoadedModel> model;
};

// A layer (-1: keep) and head (Selection::kHeadAverage, or kAutomatic: keep)
// to select once a run is shown.
struct PendingPlace {
  int layer = -1;
  int head = Selection::kAutomatic;
};

// The compared run to compute: the model and text it runs, and the run A it
// is compared with (its answer is dropped when A has changed since).
struct ComparedRunToMake {
  models::LoadedModel model;
  std::string text;
  std::shared_ptr<const models::Trace> base;
};

class Workbench {
 public:
  const std::string& sentence() const { return sentence_; }
  // Whether the sentence changed.
  bool setSentence(std::string text);

  const std::optional<models::LoadedModel>& model() const { return model_; }
  void setModel(models::LoadedModel model) { model_ = std::move(model); }
  void closeModel() { model_.reset(); }

  // Run A: the sentence on the model (the uniform baseline without one, a capture's run).
  const std::optional<SentenceRun>& run() const { return run_; }
  // Run B: the intervened run, or a comparison's other run; empty while none.
  const std::optional<SentenceRun>& runB() const { return runB_; }
  // The run the panels draw: A, or B when there is one and the comparison asks for it.
  const SentenceRun* shownRun() const;
  // Whether run A is a capture's (no model made it).
  bool showingCapture() const { return run_ && run_->trace && !model_; }
  // Whether `trace` is run A's (an answer for an older run is dropped).
  bool isRunA(const std::shared_ptr<const models::Trace>& trace) const {
    return run_ && run_->trace == trace;
  }
  // A replaced: B and A's experiments are cleared.
  void showRun(SentenceRun run);
  // A's analysis, when `trace` is still A's; whether it was taken.
  bool setAnalysis(const std::shared_ptr<const models::Trace>& trace,
                   std::shared_ptr<const TraceAnalysis> analysis);
  // B, computed for `selection`'s interventions or a comparison, or cleared.
  void setRunB(std::optional<SentenceRun> run, const Selection& selection);

  const AnalysisSettings& analysisSettings() const { return analysisSettings_; }
  // Whether they differ from the settings held; if so A's analysis is dropped
  // (the caller analyses A again, and B when there is one).
  bool setAnalysisSettings(const AnalysisSettings& settings);

  // Comparisons. Run B is a comparison's, not the interventions'.
  bool comparing() const { return comparing_.has_value(); }
  bool comparingModels() const { return comparing_ && comparing_->model; }
  // Another sentence (empty otherwise), or the other model's folder (empty otherwise).
  std::string comparedSentence() const { return comparing_ ? comparing_->sentence : std::string(); }
  std::string comparedModelFolder() const;
  // Starts comparing with `source` side by side; B follows new sentences until stopped.
  void beginComparison(ComparisonSource source);
  // Ends the comparison (B cleared, the runs named before and after);
  // whether there was one.
  bool endComparison();
  // What B of the comparison runs, and the runs' names set for it; an error
  // for the status bar when it cannot run (no model: the comparison ends).
  std::pair<std::optional<ComparedRunToMake>, std::string> comparedRunToMake();
  // Takes the compared run `b` for A's `base`; nothing when A changed or the
  // comparison stopped since. The caller gives the selection B's bounds and
  // the place pinned for B (`outside`: what of it B lacks, in words).
  struct ComparedRunTaken {
    int layers = 0, heads = 0;
    std::optional<std::pair<int, int>> pinned;
    std::string outside;
  };
  std::optional<ComparedRunTaken> takeComparedRun(SentenceRun b,
                                                  const std::shared_ptr<const models::Trace>& base);
  // The note shown when B arrives: the runs' names and texts, and how a place
  // is found in B when the models' shapes differ.
  std::string comparisonNotice() const;
  Comparison comparison() const { return comparison_; }
  // Whether it changed.
  bool setComparison(Comparison comparison);
  const RunNames& runNames() const { return names_; }
  // Pins B's layer and head for when B arrives, unless `selection` already
  // has B's place (then the caller pins it there); whether it was held.
  bool holdPinUntilComparedRun(int layer, int head, const Selection& selection);
  // The same for the next comparison's B, whatever B is shown now (a session's).
  void pinNextComparedRun(int layer, int head) { pendingCounterpart_ = {layer, head}; }

  // Where A's tokens land in B: by characters (two tokenizers; A's token k
  // lands on comparedTokens()[k]) and, for interventions that dropped the
  // first token, shifted by one.
  TokenAlignment comparedTokenAlignment() const;
  const std::vector<int>& comparedTokens() const { return comparedTokens_; }
  const std::optional<TokenAlignment>& droppedFirstAlignment() const;

  // The place to select once the next run is shown.
  void selectAfterNextRun(int layer, int head) { pendingPlace_ = PendingPlace{layer, head}; }
  std::optional<PendingPlace> takePendingPlace();
  // Why `place` cannot be selected in `selection`'s bounds ("" when it can).
  static std::string placeOutside(const PendingPlace& place, const Selection& selection);

  // A's functional experiments (Experiments menu), kept while `trace` is A's;
  // whether they were taken.
  const ExperimentResults& experiments() const { return experiments_; }
  bool setHeadDnll(const std::shared_ptr<const models::Trace>& trace, std::vector<double> dnll);
  bool setLayerFunction(const std::shared_ptr<const models::Trace>& trace,
                        std::vector<double> klPerLayer, std::vector<double> fisherPerParameter);

  // A merged corpus study, once opened, and its folder.
  const std::optional<StudyTables>& study() const { return study_; }
  const std::string& studyFolder() const { return studyFolder_; }
  void setStudy(StudyTables study, std::string folder);
  // Whether the open model has the study's layers and heads.
  bool studyMatchesModel() const;
  // Whether the study's model is the open one (by folder or by name).
  bool studyModelIsOpen() const;
  // The study's model: its folder when it still exists, else its name.
  std::string studyModelToOpen() const;

  // A training run's checkpoints, once opened, and its folder.
  const models::CheckpointList& checkpoints() const { return checkpoints_; }
  const std::string& checkpointsFolder() const { return checkpointsFolder_; }
  // False when `steps` holds none.
  bool setCheckpoints(models::CheckpointList steps, std::string folder);

  // What every exported file records of how it was made, one "key: value"
  // line each: the tool, the model (name, folder, identity), the sentence,
  // the sink reading, the selection, B's place and the interventions.
  std::vector<std::string> provenance(const Selection& selection, const std::string& tool) const;

 private:
  void setNames(std::string before, std::string after, bool comparison = false);
  std::optional<TokenAlignment> droppedFirstOf(const Selection& selection) const;

  std::string sentence_;
  std::optional<models::LoadedModel> model_;
  std::optional<SentenceRun> run_, runB_;
  AnalysisSettings analysisSettings_;
  std::optional<ComparisonSource> comparing_;
  std::optional<PendingPlace> pendingPlace_;
  std::optional<std::pair<int, int>> pendingCounterpart_;
  Comparison comparison_ = Comparison::After;
  RunNames names_;
  std::vector<int> comparedTokens_;
  std::optional<TokenAlignment> droppedFirst_;
  ExperimentResults experiments_;
  std::optional<StudyTables> study_;
  std::string studyFolder_;
  models::CheckpointList checkpoints_;
  std::string checkpointsFolder_;
};

// The head ablation dNLL of every head of `trace` (layer-major), and the KL
// after sink removal and the Fisher trace per parameter of each layer: the
// numbers `sinkscope-cli experiment ablate/kl/fisher` write, on one BLAS thread.
std::vector<double> head_ablation_of_run(const models::LoadedModel& model,
                                         const models::Trace& trace,
                                         const models::ProgressFn& progress = {});
std::pair<std::vector<double>, std::vector<double>> layer_function_of_run(
    const models::LoadedModel& model, const models::Trace& trace,
    const models::ProgressFn& progress = {});

}  // namespace sinkscope::document
