#include "ui/workspace.h"

#include "models/capture.h"
#include "models/cpu_runtime.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFileInfo>

#include "analysis/run_correspondence.h"
#include "analysis/token_alignment.h"
#include "models/document/trace_analysis.h"
#include "models/experiments.h"
#include "models/fisher.h"
#include "models/model_discovery.h"
#include "models/model_identity.h"
#include "models/trace_export.h"
#include "ui/job_runner.h"
#include "ui/panels/panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {
// The sentence on the model; a sentence of white space only is refused
// before the model is asked.
SentenceRun model_run(const models::LoadedModel& model, const QString& text,
                      const JobProgress& progress) {
  if (text.trimmed().isEmpty())
    throw std::invalid_argument("sentence: nothing to run (type a sentence first)");
  return document::sentence_run(model, text.toStdString(), {}, progress);
}

}  // namespace

Workspace::Workspace(QObject* parent)
    : QObject(parent),
      selection_(new SelectionModel(this)),
      jobs_(new JobRunner(this)),
      leftName_(tr("before")),
      rightName_(tr("after")) {
  selection_->setBounds(1, 1, 0);
  connect(selection_, &SelectionModel::interventionsChanged, this, &Workspace::runInterventions);
  connect(jobs_, &JobRunner::jobFailed, this,
          [this](quint64 id, const QString&, const QString& message, const QString&) {
            onJobFailed(id, message);
          });
  connect(this, &Workspace::runFinished, this, &Workspace::selectPendingPlace);
}

void Workspace::selectAfterNextRun(int layer, int head) { pendingPlace_ = std::make_pair(layer, head); }

void Workspace::selectPendingPlace() {
  if (!pendingPlace_) return;
  const auto [layer, head] = *pendingPlace_;
  pendingPlace_.reset();
  // A place the model does not have is said, never clamped silently.
  const int layers = selection_->layerCount(), heads = selection_->headCount();
  if (layer >= layers || head >= heads) {
    QStringList place;
    if (layer >= 0) place << tr("Layer %1").arg(layer);
    if (head != SelectionModel::kAutomatic)
      place << (head == SelectionModel::kHeadAverage ? tr("head average") : tr("head %1").arg(head));
    Q_EMIT failed(tr("%1: the model has %2 layers of %3 heads (0..%4, 0..%5); the selection "
                     "stays where it was")
                      .arg(place.join(QStringLiteral(", ")))
                      .arg(layers)
                      .arg(heads)
                      .arg(layers - 1)
                      .arg(heads - 1),
                  QString());
    return;
  }
  if (layer >= 0) selection_->setLayer(layer);
  if (head != SelectionModel::kAutomatic) selection_->setHead(head);
}

void Workspace::openStudySentence(const QString& text, int layer, int head) {
  if (!study_) return;
  pendingPlace_ = std::make_pair(layer, head);
  setSentence(text);
  // The study's model, unless it is the one open: its folder when it still
  // exists, else the name it was given (a cache name).
  const std::filesystem::path folder = study_->modelFolder;
  std::error_code ec;
  const bool same =
      model_ && (model_->model->folder() == folder || model_->name == study_->model);
  if (same)
    runSentence();
  else
    openModel(std::filesystem::is_directory(folder, ec) ? QString::fromStdString(folder.string())
                                                        : QString::fromStdString(study_->model));
}

Workspace::~Workspace() { jobs_->cancelAll(); }

void Workspace::setSentence(const QString& text) {
  if (text == sentence_) return;
  sentence_ = text;
  Q_EMIT sentenceChanged(text);
}

void Workspace::runSentence() {
  const QString text = sentence_;
  Q_EMIT errorsCleared();
  jobs_->cancelGroup(QStringLiteral("analysis"));  // of the run this one replaces
  std::optional<models::LoadedModel> model = model_;
  runJob_ = jobs_->submit<SentenceRun>(
      tr("Run sentence"),
      [text, model](const JobProgress& progress) {
        job_check(progress, 0.0);
        SentenceRun run = model ? model_run(*model, text, progress)
                                : document::sentence_run_baseline(text.toStdString());
        job_check(progress, 1.0);
        return run;
      },
      [this](SentenceRun run) { showRun(std::move(run)); }, QStringLiteral("run"));
}

void Workspace::showRun(SentenceRun run) {
  experiments_ = {};  // they belonged to the previous run
  Q_EMIT experimentsChanged();
  run_ = std::move(run);
  if (!run_->beyondTrainedContext.empty())
    Q_EMIT notice(QString::fromStdString(run_->beyondTrainedContext), 20000);
  const int layers = run_->trace ? run_->trace->layers() : 1;
  const int heads = run_->trace ? run_->trace->heads() : 1;
  selection_->setBounds(layers, heads, run_->tokenCount());
  setRunB(std::nullopt);
  Q_EMIT runShown();
  runInterventions();
  Q_EMIT runFinished();
  analyseRun();
}

void Workspace::analyseRun() {
  if (!run_ || !run_->trace || run_->analysis) return;
  const std::shared_ptr<const models::Trace> trace = run_->trace;
  const document::AnalysisSettings settings = analysisSettings_;
  jobs_->submit<std::shared_ptr<const TraceAnalysis>>(
      tr("Analyse every head"),
      [trace, settings](const JobProgress& progress) {
        return document::analyse_shown_run(*trace, settings, progress);
      },
      [this, trace](std::shared_ptr<const TraceAnalysis> analysis) {
        if (!run_ || run_->trace != trace) return;  // a newer run is shown
        run_->analysis = std::move(analysis);
        Q_EMIT analysisFinished();
      },
      QStringLiteral("analysis"));
}

void Workspace::setAnalysisSettings(const document::AnalysisSettings& settings) {
  // The same settings again (a session's defaults, most often): nothing to redo.
  if (document::settings_json(settings, true) == document::settings_json(analysisSettings_, true))
    return;
  analysisSettings_ = settings;
  Q_EMIT analysisSettingsChanged();
  if (!run_ || !run_->trace) return;
  run_->analysis.reset();
  analyseRun();
  if (runB_) runInterventions();  // B, intervened or compared, with its analysis again
}

void Workspace::openCapture(const QString& path) {
  Q_EMIT errorsCleared();
  const std::string file = path.toStdString();
  captureJob_ = jobs_->submit<SentenceRun>(
      tr("Open capture"),
      [file](const JobProgress& progress) {
        job_check(progress, 0.0);
        try {
          return document::sentence_run_capture(models::capture_read(file));
        } catch (const models::CaptureError& e) {
          throw std::invalid_argument(e.what());
        }
      },
      [this, path](SentenceRun run) { showCapture(std::move(run), path); },
      QStringLiteral("run"));
}

void Workspace::showCapture(SentenceRun run, const QString& path) {
  model_.reset();
  if (comparing_) stopComparing();
  selection_->setInterventions({});
  showRun(std::move(run));
  Q_EMIT captureOpened(path);
}

void Workspace::openModel(const QString& folderOrName) {
  modelJob_ = loadModel(folderOrName, tr("Open model"), QStringLiteral("model"),
                        [this](models::LoadedModel loaded) { setModel(std::move(loaded)); });
}

quint64 Workspace::loadModel(const QString& folderOrName, const QString& jobName,
                             const QString& group,
                             std::function<void(models::LoadedModel)> onLoaded) {
  Q_EMIT errorsCleared();
  const std::string spec =
      folderOrName.contains(QLatin1Char('/')) && QFileInfo(folderOrName).isDir()
          ? QDir::cleanPath(folderOrName).toStdString()
          : folderOrName.toStdString();
  models::LoadOptions options;
  options.device = device_.toStdString();
  options.precision = precision_;
  // Every file read of the load happens in the job (a hostile folder can make
  // reads slow, never the GUI); Cancel stops it between weight tensors.
  return jobs_->submit<models::LoadedModel>(
      jobName,
      [spec, options](const JobProgress& progress) {
        models::LoadOptions withProgress = options;
        withProgress.progress = [&progress](double f) { return progress(0.95 * f); };
        return models::loaded_model_open(spec, withProgress);
      },
      std::move(onLoaded), group);
}

void Workspace::setModel(models::LoadedModel loaded) {
  model_ = std::move(loaded);
  Q_EMIT modelOpened(QString::fromStdString(model_->model->folder().string()));
  runSentence();  // the new model on the current sentence
}

void Workspace::onJobFailed(quint64 id, const QString& message) {
  // A refused study says why where the study is shown.
  if (id == studyJob_) Q_EMIT studyRefused(studyAsked_, message);
  // A model that fails to open before anything is shown leaves the uniform
  // baseline on screen, as with no model at all; the baseline only where it
  // can be drawn: a failed baseline would hide the model's error, which is
  // the one the user needs.
  if (id == modelJob_ && !run_ && !model_ &&
      document::sentence_word_offsets(sentence_.toStdString()).size() <=
          static_cast<std::size_t>(document::kMaxBaselineWords))
    runSentence();
  // The sentence failed on a newly opened model (too long for it, say): the
  // panels must not go on showing the previous model's run under the new
  // model's name. Show the sentence's uniform baseline; the error stays.
  if (id == runJob_ && run_ && run_->model && model_ && run_->model != model_->model.get()) {
    try {
      showRun(document::sentence_run_baseline(sentence_.toStdString()));
    } catch (const std::exception&) {
      // no word to show: keep what is shown, the error says why
    }
  }
}

QString Workspace::comparedModelFolder() const {
  return comparingModels() ? QString::fromStdString(comparing_->model->model->folder().string())
                           : QString();
}

void Workspace::openStudy(const QString& folder) {
  Q_EMIT errorsCleared();
  const std::filesystem::path path = folder.toStdString();
  studyAsked_ = folder;
  studyJob_ = jobs_->submit<document::StudyTables>(
      tr("Open study"), [path](const JobProgress&) { return document::study_tables_read(path); },
      [this, folder](document::StudyTables study) {
        study_ = std::move(study);
        studyFolder_ = folder;
        Q_EMIT studyOpened(folder);
      },
      QStringLiteral("study"));
}

bool Workspace::studyMatchesModel() const {
  return study_ && model_ && model_->model->config().num_layers == study_->layers &&
         model_->model->config().num_heads == study_->heads;
}

bool Workspace::showCheckpoints(const QString& folder) {
  models::CheckpointList steps = models::training_checkpoints(folder.toStdString());
  if (steps.steps.empty()) return false;
  checkpoints_ = std::move(steps);
  checkpointsFolder_ = folder;
  Q_EMIT checkpointsOpened(folder);
  computeEmergence();
  return true;
}

void Workspace::openCheckpoints(const QString& folder) {
  if (!showCheckpoints(folder)) {
    const QString message =
        tr("%1: no checkpoints (step-N folders with a config.json, in the folder or its "
           "checkpoints/ folder)")
            .arg(folder);
    Q_EMIT failed(message, message);
    return;
  }
  // Every panel shows the last checkpoint.
  openModel(QString::fromStdString(checkpoints_.steps.back().folder.string()));
}

void Workspace::computeEmergence() {
  const std::vector<models::Checkpoint> steps = checkpoints_.steps;
  const QString text = sentence_;
  if (steps.empty() || text.trimmed().isEmpty()) return;
  jobs_->submit<document::CheckpointAlpha0>(
      tr("Sink emergence over %1 checkpoints").arg(steps.size()),
      [steps, text = text.toStdString()](const JobProgress& progress) {
        return document::checkpoint_alpha0(steps, text, progress);
      },
      [this, steps, text](document::CheckpointAlpha0 alpha0) {
        if (steps.size() != checkpoints_.steps.size()) return;  // another run opened since
        Q_EMIT emergenceComputed(alpha0, text);
      },
      QStringLiteral("emergence"));
}

const SentenceRun* Workspace::shownRun() const {
  if (!run_) return nullptr;
  if (runB_ && comparison_ != Comparison::Before) return &*runB_;
  return &*run_;
}

void Workspace::setComparison(Comparison comparison) {
  if (comparison == comparison_) return;
  comparison_ = comparison;
  Q_EMIT comparisonChanged(comparison);
}

void Workspace::setRunNames(const QString& left, const QString& right) {
  leftName_ = left;
  rightName_ = right;
  Q_EMIT runNamesChanged(left, right);
}

void Workspace::setRunB(std::optional<SentenceRun> run) {
  runB_ = std::move(run);
  droppedFirst_ = computeDroppedFirstAlignment();
}

void Workspace::compareWithSentence(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  selection_->setInterventions({});
  comparing_ = ComparisonSource{text, std::nullopt};
  setComparison(Comparison::SideBySide);
  runComparison();
}

void Workspace::compareWithModel(const QString& folderOrName) {
  loadModel(folderOrName, tr("Open the compared model"), QStringLiteral("compare"),
            [this](models::LoadedModel loaded) {
              selection_->setInterventions({});
              comparing_ = ComparisonSource{QString(), std::move(loaded)};
              setComparison(Comparison::SideBySide);
              runComparison();
            });
}

void Workspace::pinComparedRun(int layer, int head) {
  if (!selection_->hasCounterpart()) {
    pendingCounterpart_ = {layer, head};  // for the comparison still running
    return;
  }
  selection_->setCounterpartLayer(layer);
  selection_->setCounterpartHead(head);
}

void Workspace::stopComparing() {
  if (!comparing_) return;
  comparing_.reset();
  setRunB(std::nullopt);
  selection_->setCounterpartBounds(0, 0);
  setRunNames(tr("before"), tr("after"));
  Q_EMIT runBChanged();
}

void Workspace::runComparison() {
  if (!run_ || !comparing_) return;
  if (!run_->trace || !model_) {
    Q_EMIT failed(tr("Compare: open a model first"), QString());
    comparing_.reset();
    return;
  }
  const bool otherModel = comparing_->model.has_value();
  setRunNames(otherModel ? QString::fromStdString(models::model_display_name(model_->model->folder()))
                         : tr("A"),
              otherModel ? QString::fromStdString(
                               models::model_display_name(comparing_->model->model->folder()))
                         : tr("B"));
  const models::LoadedModel model = otherModel ? *comparing_->model : *model_;
  const QString text = otherModel ? QString::fromStdString(run_->text) : comparing_->sentence;
  const std::shared_ptr<const models::Trace> base = run_->trace;
  jobs_->submit<SentenceRun>(
      otherModel ? tr("Run the sentence on the compared model") : tr("Run the compared sentence"),
      [model, text, settings = analysisSettings_](const JobProgress& progress) {
        SentenceRun run = model_run(model, text, progress);
        run.analysis = document::analyse_shown_run(*run.trace, settings, progress);
        return run;
      },
      [this, base](SentenceRun b) {
        if (!run_ || run_->trace != base || !comparing_) return;  // a newer run, or stopped
        QString shape;
        if (b.trace->layers() != base->layers() || b.trace->heads() != base->heads())
          shape = tr(" (%1 x %2 heads against %3 x %4: B's layer at the same relative depth, "
                     "B's head average unless the layers have as many heads; pin B's layer and head "
                     "in the selection bar)")
                      .arg(base->layers())
                      .arg(base->heads())
                      .arg(b.trace->layers())
                      .arg(b.trace->heads());
        Q_EMIT notice(tr("Comparing %1: \"%2\" with %3: \"%4\"%5")
                          .arg(leftName_, QString::fromStdString(run_->text), rightName_,
                               QString::fromStdString(b.text), shape),
                      10000);
        selection_->setCounterpartBounds(b.trace->layers(), b.trace->heads());
        if (pendingCounterpart_) {  // a session's pinned place in B
          // Said, never moved silently: a place B lacks is named.
          const auto [layer, head] = *pendingCounterpart_;
          QStringList outside;
          if (layer != SelectionModel::kAutomatic && layer >= b.trace->layers())
            outside << tr("compare.layer %1 (B has %2 layers)").arg(layer).arg(b.trace->layers());
          if (head != SelectionModel::kAutomatic && head != SelectionModel::kHeadAverage &&
              head >= b.trace->heads())
            outside << tr("compare.head %1 (B has %2 heads)").arg(head).arg(b.trace->heads());
          if (!outside.isEmpty()) Q_EMIT counterpartOutside(outside.join(QStringLiteral("; ")));
          selection_->setCounterpartLayer(pendingCounterpart_->first);
          selection_->setCounterpartHead(pendingCounterpart_->second);
          pendingCounterpart_.reset();
        }
        setRunB(std::move(b));
        // Two tokenizers: where each token of A lands in B, once per pair of runs.
        comparedTokens_ = comparing_->model ? comparedTokenCounterparts() : std::vector<int>{};
        Q_EMIT runBChanged();
        Q_EMIT comparisonFinished();
      },
      QStringLiteral("interventions"));
}

void Workspace::runInterventions() {
  if (comparing_ && selection_->interventions().empty()) {
    runComparison();  // a new sentence: its B again
    return;
  }
  if (comparing_) {  // interventions end a comparison
    comparing_.reset();
    selection_->setCounterpartBounds(0, 0);
    setRunNames(tr("before"), tr("after"));
  }
  const models::Intervention list = selection_->interventions();
  if (!list.empty() && showingCapture())
    Q_EMIT failed(tr("Interventions rerun the model: a capture holds its attention only (open "
                     "the model to run them)"),
                  {});
  if (list.empty() || !run_ || !run_->trace || !model_) {
    const bool had = runB_.has_value();
    setRunB(std::nullopt);
    if (had) Q_EMIT runBChanged();
    return;
  }
  const SentenceRun base = *run_;
  const models::LoadedModel model = *model_;
  jobs_->submit<SentenceRun>(
      tr("Run interventions"),
      [base, model, list, settings = analysisSettings_](const JobProgress& progress) {
        job_check(progress, 0.0);
        list.check_fits(base.trace->layers(), base.trace->heads());  // a session's, say
        SentenceRun after = document::sentence_run_intervened(model, base, list, progress);
        after.analysis = document::analyse_shown_run(*after.trace, settings, progress);
        return after;
      },
      [this](SentenceRun after) {
        setRunB(std::move(after));
        Q_EMIT runBChanged();
        Q_EMIT interventionsFinished();
      },
      QStringLiteral("interventions"));
}

void Workspace::computeHeadAblation() {
  if (!run_ || !run_->trace || !model_) {
    Q_EMIT failed(showingCapture() ? tr("This reruns the model: a capture holds its attention only "
                                        "(open the model to run it)")
                                   : tr("Open a model and run a sentence first"),
                  {});
    return;
  }
  const auto trace = run_->trace;
  const models::LoadedModel model = *model_;
  jobs_->submit<std::vector<double>>(
      tr("Head ablation"),
      [trace, model](const JobProgress& progress) {
        const models::SingleThreadedBlas exactProducts;  // the CLI's numbers
        return models::head_ablation_dnll(*model.model, *trace, true, progress);
      },
      [this, trace](std::vector<double> dnll) {
        if (!run_ || run_->trace != trace) return;  // a newer run replaced it
        experiments_.headDnll = std::move(dnll);
        Q_EMIT experimentsChanged();
        Q_EMIT experimentsFinished();
      },
      QStringLiteral("experiments"));
}

void Workspace::computeLayerFunction() {
  if (!run_ || !run_->trace || !model_) {
    Q_EMIT failed(showingCapture() ? tr("This reruns the model: a capture holds its attention only "
                                        "(open the model to run it)")
                                   : tr("Open a model and run a sentence first"),
                  {});
    return;
  }
  const auto trace = run_->trace;
  const models::LoadedModel model = *model_;
  using Result = std::pair<std::vector<double>, std::vector<double>>;
  jobs_->submit<Result>(
      tr("KL and Fisher per layer"),
      [trace, model](const JobProgress& progress) {
        const models::SingleThreadedBlas exactProducts;  // the CLI's numbers
        Result r;
        for (const auto& row : models::kl_sink_removal(*model.model, *trace, {}, progress))
          if (row.scope != "all") r.first.push_back(row.meanKl);
        std::vector<double> fisher(static_cast<std::size_t>(trace->layers()), 0.0);
        for (const auto& f : models::fisher_per_layer(*model.model, trace->ids(), progress))
          if (f.layer >= 0) fisher[static_cast<std::size_t>(f.layer)] = f.perParameter;
        r.second = std::move(fisher);
        return r;
      },
      [this, trace](Result r) {
        if (!run_ || run_->trace != trace) return;
        experiments_.klPerLayer = std::move(r.first);
        experiments_.fisherPerParameter = std::move(r.second);
        Q_EMIT experimentsChanged();
        Q_EMIT experimentsFinished();
      },
      QStringLiteral("experiments"));
}

QStringList Workspace::provenance() const {
  QStringList comments{QStringLiteral("tool: sinkscope ") + QCoreApplication::applicationVersion()};
  if (run_) {
    // The model by its name (a cache snapshot's repository and revision), and its folder.
    comments << QStringLiteral("model: ") + QString::fromStdString(run_->source);
    if (model_)
      comments << QStringLiteral("model_folder: ") +
                      QString::fromStdString(model_->model->folder().string());
    comments << QStringLiteral("text: ") + QString::fromStdString(run_->text);
    // The model's identity (config and tokenizer hashes, weight files).
    if (model_) try {
        for (const auto& [k, v] : models::model_identity_header(
                 models::model_identity(model_->model->folder())))
          comments << QString::fromStdString(k + ": " + v);
      } catch (const std::exception&) {
        comments << QStringLiteral("model_config_sha256: unavailable (the folder changed)");
      }
    // The sink reading the red marks used (metrics.md s. 1).
    const analysis::SinkSetParams sinks =
        run_->analysis ? run_->analysis->params.sinks : analysis::SinkSetParams{};
    comments << QStringLiteral(
                    "sink_set: percentile mode, p = %1, gamma = %2 (reading: A >= tau and A > 0); "
                    "frequency over %3 queries")
                    .arg(sinks.percentile)
                    .arg(sinks.gamma)
                    .arg(sinks.denominator == analysis::SinkSetParams::Denominator::AllQueries
                             ? QStringLiteral("all T")
                             : QStringLiteral("the visible"));
  }
  comments << QStringLiteral("selection: layer %1, %2, threshold %3, top-N %4")
                  .arg(selection_->layer())
                  .arg(selection_->headAveraged()
                           ? QStringLiteral("head average")
                           : QStringLiteral("head %1").arg(selection_->head()))
                  .arg(selection_->threshold())
                  .arg(selection_->topN());
  if (comparing_ && selection_->hasCounterpart()) {
    // Where run B was drawn, and how that place was chosen.
    auto how = [](bool pinned, const char* automatic) {
      return pinned ? QStringLiteral("pinned") : QString::fromLatin1(automatic);
    };
    comments << QStringLiteral("compared run %1 at layer %2 (%3), %4 (%5)")
                    .arg(rightName_)
                    .arg(selection_->counterpartLayer())
                    .arg(how(selection_->pinnedCounterpartLayer() != SelectionModel::kAutomatic,
                             "same relative depth"))
                    .arg(head_name(selection_->counterpartHead()))
                    .arg(how(selection_->pinnedCounterpartHead() != SelectionModel::kAutomatic,
                             "the same head when the layers have as many, else the average"));
    if (comparingModels())
      comments << QStringLiteral("compared_model_folder: ") + comparedModelFolder();
  }
  for (const std::string& line : selection_->interventions().describe())
    comments << QStringLiteral("intervention: ") + QString::fromStdString(line);
  return comments;
}

void Workspace::exportRunTensors(const QString& path, bool overwrite) {
  const SentenceRun* shown = shownRun();
  if (!shown || !shown->trace) {
    Q_EMIT failed(showingCapture() ? tr("This reruns the model: a capture holds its attention only "
                                        "(open the model to run it)")
                                   : tr("Open a model and run a sentence first"),
                  {});
    return;
  }
  QJsonObject params{
      {QStringLiteral("schema_version"), 1},
      {QStringLiteral("tool"),
       QStringLiteral("sinkscope ") + QCoreApplication::applicationVersion()},
      {QStringLiteral("command"), QStringLiteral("export run tensors")},
      {QStringLiteral("model"), model_ ? QString::fromStdString(model_->model->folder().string())
                                       : QString::fromStdString(shown->source)},
      {QStringLiteral("text"), QString::fromStdString(shown->text)},
      {QStringLiteral("tokens"), shown->tokenCount()},
      {QStringLiteral("layers"), shown->trace->layers()},
      {QStringLiteral("heads"), shown->trace->heads()},
      {QStringLiteral("hidden_size"), shown->trace->hiddenSize()},
      {QStringLiteral("causal"), shown->trace->causal()}};
  if (model_) try {
      for (const auto& [k, v] :
           models::model_identity_header(models::model_identity(model_->model->folder())))
        params.insert(QString::fromStdString(k), QString::fromStdString(v));
    } catch (const std::exception&) {
    }
  QJsonArray interventions;
  if (shown != &*run_)
    for (const std::string& line : selection_->interventions().describe())
      interventions.append(QString::fromStdString(line));
  params.insert(QStringLiteral("interventions"), interventions);
  models::TraceExportOptions options;
  options.overwrite = overwrite;
  options.paramsJson = QJsonDocument(params).toJson(QJsonDocument::Compact).toStdString();
  std::vector<std::string> tokens = shown->tokenStrings();
  const auto trace = shown->trace;
  const std::string file = path.toStdString();
  jobs_->submit<bool>(
      tr("Export run tensors"),
      [trace, tokens, file, options](const JobProgress&) {
        models::trace_write_npz(*trace, tokens, file, options);
        return true;
      },
      [this, path](bool) { Q_EMIT notice(tr("Exported %1").arg(path), 5000); });
}

DrawnRuns Workspace::drawnRuns() const {
  DrawnRuns d;
  d.shown = shownRun();
  if (!d.shown) return d;
  // A difference needs the same tokens in both runs (not just as many).
  d.difference = runB_ && comparison_ == Comparison::Difference &&
                 document::runs_have_same_tokens(*run_, *runB_);
  d.differenceRefused = runB_ && comparison_ == Comparison::Difference && !d.difference;
  d.sideBySide = runB_ && comparison_ == Comparison::SideBySide;
  // Two models side by side: their tokens matched by characters.
  d.comparingModels = d.sideBySide && comparingModels();
  // Without its first token, the intervened run's tokens are A's shifted by one.
  const std::optional<TokenAlignment> dropped =
      d.sideBySide ? droppedFirstAlignment() : std::nullopt;
  d.byToken = d.comparingModels || dropped.has_value();
  if (dropped)
    d.alignment = *dropped;
  else if (d.comparingModels)
    d.alignment = comparedTokenAlignment();
  // B of a comparison is drawn at the selection's counterpart (another shape:
  // the same relative depth).
  d.place = placeOf(*d.shown);
  d.map = d.shown->attention(d.place.layer(), d.place.head());
  if (d.sideBySide) d.before = run_->attention(selection_->layer(), selection_->head());
  return d;
}

TokenAlignment Workspace::comparedTokenAlignment() const {
  if (!run_ || !runB_) return {};
  return document::tokens_aligned_by_characters(*run_, *runB_);
}

std::vector<int> Workspace::comparedTokenCounterparts() const {
  if (!run_ || !runB_) return {};
  return analysis::token_counterparts(run_->tokens.offsets, runB_->tokens.offsets);
}

const std::optional<TokenAlignment>& Workspace::droppedFirstAlignment() const {
  static const std::optional<TokenAlignment> none;
  return comparing_ ? none : droppedFirst_;
}

std::optional<TokenAlignment> Workspace::computeDroppedFirstAlignment() const {
  if (comparing_ || !run_ || !runB_ || !selection_->interventions().dropFirstToken)
    return std::nullopt;
  return document::tokens_aligned_after_first_dropped(*run_, *runB_);
}

ShownPlace Workspace::placeOf(const SentenceRun& run) const {
  const bool isB = runB_ && &run == &*runB_;
  if (comparing_ && isB) {
    // Two models: A's tokens land on B's through their characters; one model: by position.
    static const std::vector<int> none;
    return ShownPlace(selection_, run.tokenCount(), comparing_->model ? comparedTokens_ : none);
  }
  // Without its first token the run's tokens are A's shifted by one: the
  // selection follows its token, not its position.
  if (isB)
    if (const auto& dropped = droppedFirstAlignment())
      return ShownPlace(selection_, run.tokenCount(), dropped->first, true);
  return ShownPlace(selection_);
}

}  // namespace sinkscope::ui
