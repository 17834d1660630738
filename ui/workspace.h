#pragma once
// The GUI's document as Qt sees it: document::Workbench (the sentence, the
// open model, runs A and B, the comparison, the experiments, study and
// checkpoints) and the selection with its signals, plus the jobs that
// compute runs. Its slots are the named commands that menus, shortcuts, the
// command line, the figure command and tests call; its signals say what
// changed, and the window (layout only) redraws from them.
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "models/document/analysis_settings.h"
#include "models/document/checkpoint_emergence.h"
#include "models/document/plot_views.h"
#include "models/document/run_comparison.h"
#include "models/document/sentence_run.h"
#include "models/document/study_tables.h"
#include "models/document/trace_analysis.h"
#include "models/document/workbench.h"
#include "models/loaded_model.h"
#include "models/model_discovery.h"
#include "ui/job_runner.h"
#include "ui/shown_place.h"

namespace sinkscope::ui {

using document::SentenceRun;
using document::TraceAnalysis;

class JobRunner;
class SelectionModel;

using document::Comparison;
using document::ExperimentResults;
using document::TokenAlignment;

// What the attention map and key importance draw now: the shown run at its
// place, and how B stands to A when both are drawn.
struct DrawnRuns {
  const SentenceRun* shown = nullptr;  // null: nothing has run yet
  ShownPlace place;                    // the selection's place in `shown`
  bool difference = false;             // B minus A (runs of the same tokens)
  bool differenceRefused = false;      // a difference asked of runs with other tokens
  bool sideBySide = false;             // A | B
  bool comparingModels = false;        // side by side, two models (two tokenizers)
  bool byToken = false;                // side by side, B's tokens placed at A's
  TokenAlignment alignment;            // when byToken: A to B and B to A
  // The shown run's map at `place`, and A's at the selection when side by side.
  analysis::AttentionMatrix map, before;
  // A layer to recompute first (LayerFetch), of this run: no maps meanwhile.
  const SentenceRun* waitingRun = nullptr;
  int waitingForLayer = -1;
  QString waitingNote;  // what the maps say meanwhile (LayerFetch::note)
};

class Workspace : public QObject {
  Q_OBJECT

 public:
  explicit Workspace(QObject* parent = nullptr);
  ~Workspace() override;
  // Whether the open model's weights hash (models::weight_files_sha256) is
  // still being computed in the background; tests wait on it.
  bool hashingWeights() const;
  // Whether opening a model hashes its weights (on by default; a program
  // that saves no session turns it off).
  void setHashesWeights(bool on) { hashesWeights_ = on; }
  // The attention a run keeps for every layer at once (models::RunOptions'
  // capture budget); past it a layer is recomputed when shown. Tests make it small.
  void setKeptAttentionBytes(std::size_t bytes) { keptAttentionBytes_ = bytes; }

  SelectionModel* selection() const { return selection_; }
  JobRunner* jobs() const { return jobs_; }
  // The document's state, as the front ends without Qt hold it.
  const document::Workbench& document() const { return workbench_; }
  const std::optional<models::LoadedModel>& model() const { return workbench_.model(); }
  QString sentence() const { return QString::fromStdString(workbench_.sentence()); }
  // Run A: the sentence on the model (or the uniform baseline without one).
  const std::optional<SentenceRun>& run() const { return workbench_.run(); }
  // Run B: the intervened run, or a comparison's other run; empty while none.
  const std::optional<SentenceRun>& runB() const { return workbench_.runB(); }
  // Whether B is a comparison's (another sentence or model), not interventions'.
  bool comparing() const { return workbench_.comparing(); }
  bool comparingModels() const { return workbench_.comparingModels(); }
  // What B is of a comparison: another sentence (empty otherwise), or the
  // other model's folder (empty otherwise).
  QString comparedSentence() const { return QString::fromStdString(workbench_.comparedSentence()); }
  QString comparedModelFolder() const {
    return QString::fromStdString(workbench_.comparedModelFolder());
  }
  Comparison comparison() const { return workbench_.comparison(); }
  // The run the panels draw: A, or B when there is one and the comparison asks for it.
  const SentenceRun* shownRun() const { return workbench_.shownRun(); }
  // The runs' names: before/after for interventions, A/B or the models' names.
  QString leftName() const { return QString::fromStdString(workbench_.runNames().before); }
  QString rightName() const { return QString::fromStdString(workbench_.runNames().after); }
  // Both, as the document layer's views name the runs.
  const document::RunNames& runNames() const { return workbench_.runNames(); }
  // Where the selection (made on run A) lands in `run`: the selection itself,
  // or for B its counterpart (another shape, another tokenizer, a dropped first token).
  ShownPlace placeOf(const SentenceRun& run) const;
  // Throws what a run's attention() throws (a damaged capture).
  DrawnRuns drawnRuns() const;
  // A and B's tokens aligned by the characters they cover (two tokenizers).
  TokenAlignment comparedTokenAlignment() const { return workbench_.comparedTokenAlignment(); }
  // B with interventions that dropped the first token: A's token k is B's k - 1.
  const std::optional<TokenAlignment>& droppedFirstAlignment() const {
    return workbench_.droppedFirstAlignment();
  }
  // The functional experiments of run A, once computed (Experiments menu).
  const ExperimentResults& experiments() const { return workbench_.experiments(); }
  // Where models opened from now on run: "cpu" or "cuda", and in which precision.
  void setDevice(const QString& device) { device_ = device; }
  void setPrecision(models::ComputePrecision precision) { precision_ = precision; }
  // What every exported file records of how it was made: the tool, the model
  // (name, folder, identity), the sentence, the sink reading, the selection,
  // B's place and the interventions; one "key: value" line each.
  QStringList provenance() const;
  // A merged corpus study, once opened, and its folder.
  const std::optional<document::StudyTables>& study() const { return workbench_.study(); }
  QString studyFolder() const { return QString::fromStdString(workbench_.studyFolder()); }
  // Whether the open model has the study's layers and heads (its heads can be selected).
  bool studyMatchesModel() const { return workbench_.studyMatchesModel(); }
  // A training run's checkpoints, once opened, and its folder.
  const models::CheckpointList& checkpoints() const { return workbench_.checkpoints(); }
  QString checkpointsFolder() const {
    return QString::fromStdString(workbench_.checkpointsFolder());
  }
  // Whether job `id` opened the model or ran the sentence (its failure ends what waited on it).
  bool isModelOrRunJob(quint64 id) const {
    return id != 0 && (id == modelJob_ || id == runJob_ || id == captureJob_);
  }
  // What every head of every run is analysed with (analyze's settings; the
  // selection's theta and top-N are the panels' own).
  const document::AnalysisSettings& analysisSettings() const {
    return workbench_.analysisSettings();
  }
  // Whether run A is a capture's (no model made it).
  bool showingCapture() const { return workbench_.showingCapture(); }
  // What makes the shown run's web page (File > Share as web page) as the
  // run is now: a copy of its inputs, safe on another thread; empty when no
  // run is shown.
  std::function<std::string(const JobProgress&)> webPageMaker() const;

 public Q_SLOTS:
  void setSentence(const QString& text);
  // Runs the sentence on the open model (the uniform baseline without one).
  void runSentence();
  // A folder, or a Hugging Face cache name org/name; then runs the sentence on it.
  void openModel(const QString& folderOrName);
  // Opens a model in a job without making it the open one: `onLoaded` gets it.
  quint64 loadModel(const QString& folderOrName, const QString& jobName, const QString& group,
                    std::function<void(models::LoadedModel)> onLoaded);
  // B: another sentence on this model, or this sentence on another model (any
  // shape). The comparison follows new sentences until stopped; interventions end it.
  void compareWithSentence(const QString& text);
  void compareWithModel(const QString& folderOrName);
  void stopComparing();
  // Pins B's layer and head (SelectionModel::kAutomatic: follow the selection,
  // kHeadAverage: B's head average): now when B is in, else when it arrives.
  void pinComparedRun(int layer, int head);
  // The same for the next comparison's B, whatever B is shown now (a session's).
  void pinNextComparedRun(int layer, int head) { workbench_.pinNextComparedRun(layer, head); }
  void setComparison(Comparison comparison);
  // Experiments: single-head ablation dNLL of every head, and KL after sink
  // removal plus the Fisher trace per layer.
  void computeHeadAblation();
  void computeLayerFunction();
  // The shown run's tensors (attention, q, k, v, residuals, ids, tokens) as
  // NPZ, written in a job (models::trace_write_npz); a notice when done.
  void exportRunTensors(const QString& path, bool overwrite = true);
  // The shown run as one self-contained web page (document/web_page.h: every
  // head's views and analyze's numbers), made and written in a job; a notice
  // when done.
  void shareAsWebPage(const QString& path, bool overwrite = true);

  // A merged corpus study folder (sinkscope-cli study merge), read in a job.
  void openStudy(const QString& folder);
  // The step-N folders of a training run and the sentence's sink emergence
  // over them; false when the folder holds none.
  bool showCheckpoints(const QString& folder);
  // The same, then the last checkpoint opened as the model.
  void openCheckpoints(const QString& folder);
  // alpha_0 of every head at every checkpoint for the sentence (a job).
  void computeEmergence();
  // A run shown as it is (a session's baseline, a run made elsewhere).
  void showRun(SentenceRun run);
  // A capture file (models/capture.h: attention from any framework), read in
  // a job and shown as the run; the open model is closed (interventions and
  // experiments need one, and say so).
  void openCapture(const QString& path);
  // A capture's run (sentence_run_capture) shown now, read by the caller.
  void showCapture(SentenceRun run, const QString& path);
  // New analysis settings: the shown runs are analysed again with them
  // (analysisFinished when A's heads are in; B's and the intervened run's
  // follow as runBChanged).
  void setAnalysisSettings(const sinkscope::document::AnalysisSettings& settings);
  // Selects `layer` (-1: keep) and `head` (SelectionModel::kHeadAverage, or
  // SelectionModel::kAutomatic: keep) once the next run is shown; a place the
  // model lacks is reported (failed()), not clamped.
  void selectAfterNextRun(int layer, int head);
  // Runs `text` with (layer, head) selected once it is shown, opening the
  // study's model first when another one is open.
  void openStudySentence(const QString& text, int layer, int head);

 Q_SIGNALS:
  void sentenceChanged(const QString& text);
  void modelOpened(const QString& folder);
  void captureOpened(const QString& path);  // its run is shown; no model is open
  void runShown();          // A replaced (B cleared): redraw
  void runFinished();       // ... and what follows it (interventions, analysis) started
  void analysisFinished();  // every head of A analysed
  void analysisSettingsChanged();
  void runBChanged();       // B computed or cleared: redraw
  void interventionsFinished();
  void comparisonFinished();  // a comparison's B is in
  void comparisonChanged(sinkscope::ui::Comparison comparison);
  void runNamesChanged(const QString& left, const QString& right);
  void experimentsChanged();
  void experimentsFinished();  // one experiment's results are in
  void studyOpened(const QString& folder);
  void studyRefused(const QString& folder, const QString& message);
  void checkpointsOpened(const QString& folder);
  void emergenceComputed(const sinkscope::document::CheckpointAlpha0& alpha0, const QString& text);
  // A command that cannot go on (message, details); errorsCleared: a new command started.
  void failed(const QString& message, const QString& details);
  void errorsCleared();
  // A passing note for the status bar (a comparison's sentences, a long input).
  void notice(const QString& message, int milliseconds);
  // A pinned place in B (a session's compare.layer or compare.head) that B's
  // run does not have, in words; the nearest place is shown.
  void counterpartOutside(const QString& what);

 private:
  void setModel(models::LoadedModel loaded);
  void setRunB(std::optional<SentenceRun> run);
  void analyseRun();
  void runComparison();
  // Recomputes B for the interventions (a job), or the comparison's B.
  void runInterventions();
  void onJobFailed(quint64 id, const QString& message);
  void selectPendingPlace();
  void emitRunNames();
  // B of a comparison with `source`, side by side.
  void beginComparison(document::ComparisonSource source);
  // Whether A can be run again on its model; else says why (a capture's run, no model).
  bool canRerunModel();
  void refuseModelRerun();

  SelectionModel* selection_;
  JobRunner* jobs_;
  document::Workbench workbench_;
  QString device_ = QStringLiteral("cpu");
  models::ComputePrecision precision_ = models::ComputePrecision::Float32;
  quint64 runJob_ = 0;      // the newest Run sentence job
  quint64 modelJob_ = 0;    // the newest Open model job
  quint64 studyJob_ = 0;    // the newest Open study job
  quint64 captureJob_ = 0;  // the newest Open capture job
  QString studyAsked_;      // the folder the newest Open study job reads
  // Hashes an opened model's weights off the window's thread, so that a
  // session saved later finds the hash in the cache whatever the model's size;
  // stopped (between 4 MiB blocks) by the next model or the window's end.
  std::jthread weightsHasher_;
  std::size_t keptAttentionBytes_ = models::RunOptions{}.capture_budget_bytes;
  std::atomic<bool> hashingWeights_{false};
  bool hashesWeights_ = true;
};

}  // namespace sinkscope::ui
