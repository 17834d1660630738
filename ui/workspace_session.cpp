#include "ui/workspace_session.h"

#include <QStringList>
#include <filesystem>

#include "models/model_identity.h"
#include "ui/job_runner.h"
#include "ui/panel_board.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

namespace {
// The weights a session hashes while the window waits (once per version of
// the files: the hash is cached): a larger model's session records none.
constexpr std::uint64_t kHashedWeightsMax = std::uint64_t{2} << 30;
}  // namespace

WorkspaceSession::WorkspaceSession(Workspace* workspace, PanelBoard* panels, QObject* parent)
    : QObject(parent), workspace_(workspace), panels_(panels) {
  connect(workspace, &Workspace::runFinished, this, &WorkspaceSession::finish);
  connect(workspace, &Workspace::counterpartOutside, this, [this](const QString& what) {
    outsideDetails_ += (outsideDetails_.isEmpty() ? QString() : QStringLiteral("\n")) + what;
    placesOutside_ =
        tr("This session names what the model, sentence or folders shown "
           "lack: %1. The nearest places are shown.")
            .arg(QString(outsideDetails_).replace(QLatin1Char('\n'), QStringLiteral("; ")));
    Q_EMIT placesOutsideFound(placesOutside_, outsideDetails_);
  });
  connect(workspace->jobs(), &JobRunner::jobFailed, this, [this](quint64 id) {
    if (workspace_->isModelOrRunJob(id)) pending_.reset();  // its model or run failed
  });
}

Session WorkspaceSession::current() const {
  Session s;
  const Workspace& w = *workspace_;
  if (w.model()) {
    s.model = w.model()->name;
    s.modelFolder = w.model()->model->folder().string();
    try {
      const models::ModelIdentity id = models::model_identity(w.model()->model->folder());
      s.configSha256 = id.configSha256;
      s.tokenizerSha256 = id.tokenizerSha256;
      s.weightsSha256 = models::weight_files_sha256(w.model()->model->folder(), kHashedWeightsMax);
    } catch (const std::exception&) {
      // the folder changed under us: the session names it without hashes
    }
  }
  const SelectionModel& selection = *w.selection();
  s.text = w.sentence().toStdString();
  s.layer = selection.layer();
  s.head = selection.head();
  s.query = selection.queryToken();
  s.key = selection.keyToken();
  s.threshold = selection.threshold();
  s.topN = selection.topN();
  s.interventions = selection.interventions();
  s.analysis = w.analysisSettings();
  s.comparison = document::comparison_name(w.comparison());
  if (w.comparing()) {
    s.compareModel = w.comparedModelFolder().toStdString();
    s.compareSentence = w.comparedSentence().toStdString();
    s.compareLayer = selection.pinnedCounterpartLayer();
    s.compareHead = selection.pinnedCounterpartHead();
  }
  if (!w.checkpoints().steps.empty()) s.checkpoints = w.checkpointsFolder().toStdString();
  if (w.study()) s.study = w.studyFolder().toStdString();
  panels_->storeOptions(s);
  return s;
}

void WorkspaceSession::open(Session s) {
  warning_.clear();
  warningDetails_.clear();
  placesOutside_.clear();
  outsideDetails_.clear();
  workspace_->setAnalysisSettings(s.analysis);  // before the run it analyses
  workspace_->setSentence(QString::fromStdString(s.text));
  const std::filesystem::path folder = s.modelFolder;
  const auto& model = workspace_->model();
  const bool shown =
      model && ((!folder.empty() && model->model->folder() == folder) || model->name == s.model);
  std::error_code ec;
  const QString open = QString::fromStdString(
      !folder.empty() && std::filesystem::is_directory(folder, ec) ? s.modelFolder : s.model);
  pending_ = std::move(s);
  if (shown)
    workspace_->runSentence();
  else
    workspace_->openModel(open);  // runs the sentence once the model is open
}

void WorkspaceSession::openWithCapture(Session s, const QString& captureFile) {
  warning_.clear();
  warningDetails_.clear();
  placesOutside_.clear();
  outsideDetails_.clear();
  workspace_->setAnalysisSettings(s.analysis);
  workspace_->setSentence(QString::fromStdString(s.text));
  // What reruns or loads a model stays out: a capture holds the run only.
  s.interventions = {};
  s.compareSentence.clear();
  s.checkpoints.clear();
  pending_ = std::move(s);
  workspace_->openCapture(captureFile);  // finish() applies the rest once it is shown
}

void WorkspaceSession::finish() {
  if (!pending_) return;
  const Session s = std::move(*pending_);
  pending_.reset();
  SelectionModel* selection = workspace_->selection();
  // A place the model or sentence does not have is said, never moved silently.
  QStringList outside;
  for (const std::string& place : session_places_outside(s, selection->layerCount(),
                                                         selection->headCount(),
                                                         selection->tokenCount()))
    outside << QString::fromStdString(place);
  auto q = [](const std::string& text) { return QString::fromStdString(text); };
  selection->setLayer(s.layer);
  selection->setHead(s.head);
  selection->setQueryToken(s.query);
  selection->setKeyToken(s.key);
  selection->setThreshold(s.threshold);
  selection->setTopN(s.topN);
  selection->setInterventions(s.interventions);
  // B's pinned layer and head apply once B's run (and shape) is in.
  static_assert(Session::kAutomatic == SelectionModel::kAutomatic);
  if (!s.compareSentence.empty() || !s.compareModel.empty())
    workspace_->pinNextComparedRun(s.compareLayer, s.compareHead);
  if (!s.compareSentence.empty()) workspace_->compareWithSentence(q(s.compareSentence));
  if (!s.compareModel.empty()) workspace_->compareWithModel(q(s.compareModel));
  if (const auto c = document::comparison_of(s.comparison)) workspace_->setComparison(*c);
  if (!s.checkpoints.empty() && !workspace_->showCheckpoints(q(s.checkpoints)))
    outside << tr("checkpoints: %1 holds no checkpoint (step-N folders with a config.json)")
                   .arg(q(s.checkpoints));
  // The study opens in a job of its own; a study that is gone or damaged
  // says so in its dock, as when opened by hand.
  if (!s.study.empty()) workspace_->openStudy(q(s.study));
  panels_->applyOptions(s);
  checkModelChanges(s);
  if (!outside.isEmpty()) {
    placesOutside_ = tr("This session names what the model, sentence or folders shown "
                        "lack: %1. The nearest places are shown.")
                         .arg(outside.join(QStringLiteral("; ")));
    outsideDetails_ = outside.join(QLatin1Char('\n'));
  }
  Q_EMIT applied(s);
}

// A model that changed since the session was saved: say what differs.
void WorkspaceSession::checkModelChanges(const Session& s) {
  if (!workspace_->model()) return;
  std::string config, tokenizer, weights;
  try {
    const models::ModelIdentity id = models::model_identity(workspace_->model()->model->folder());
    config = id.configSha256;
    tokenizer = id.tokenizerSha256;
    if (!s.weightsSha256.empty())
      weights =
          models::weight_files_sha256(workspace_->model()->model->folder(), kHashedWeightsMax);
  } catch (const std::exception&) {
  }
  QStringList changes;
  for (const std::string& change : session_model_changes(s, config, tokenizer, weights))
    changes << QString::fromStdString(change);
  if (changes.isEmpty()) return;
  warning_ = tr("The model changed since this session was saved: %1. The numbers shown may "
                "differ from the session's figures.")
                 .arg(changes.join(QStringLiteral("; ")));
  warningDetails_ = changes.join(QLatin1Char('\n'));
}

}  // namespace sinkscope::ui
