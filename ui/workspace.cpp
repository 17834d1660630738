#include "ui/workspace.h"
#include "models/document/analyze_report.h"
#include "models/document/web_page.h"
#include "models/io/table_io.h"

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
                      std::size_t keptAttentionBytes, const JobProgress& progress) {
  if (text.trimmed().isEmpty())
    throw std::invalid_argument("sentence: nothing to run (type a sentence first)");
  models::RunOptions options;
  options.capture_budget_bytes = keptAttentionBytes;
  return document::sentence_run(model, text.toStdString(), options, progress);
}

}  // namespace

Workspace::Workspace(QObject* parent)
    : QObject(parent), selection_(new SelectionModel(this)), jobs_(new JobRunner(this)) {
  selection_->setBounds(1, 1, 0);
  connect(selection_, &SelectionModel::interventionsChanged, this, &Workspace::runInterventions);
  connect(jobs_, &JobRunner::jobFailed, this,
          [this](quint64 id, const QString&, const QString& message, const QString&) {
            onJobFailed(id, message);
          });
  connect(this, &Workspace::runFinished, this, &Workspace::selectPendingPlace);
}

void Workspace::selectAfterNextRun(int layer, int head) {
  workbench_.selectAfterNextRun(layer, head);
}

void Workspace::selectPendingPlace() {
  const std::optional<document::PendingPlace> place = workbench_.takePendingPlace();
  if (!place) return;
  // A place the model does not have is said, never clamped silently.
  const std::string outside = document::Workbench::placeOutside(*place, selection_->state());
  if (!outside.empty()) {
    Q_EMIT failed(QString::fromStdString(outside), QString());
    return;
  }
  if (place->layer >= 0) selection_->setLayer(place->layer);
  if (place->head != SelectionModel::kAutomatic) selection_->setHead(place->head);
}

void Workspace::openStudySentence(const QString& text, int layer, int head) {
  if (!workbench_.study()) return;
  workbench_.selectAfterNextRun(layer, head);
  setSentence(text);
  if (workbench_.studyModelIsOpen())
    runSentence();
  else
    openModel(QString::fromStdString(workbench_.studyModelToOpen()));
}

Workspace::~Workspace() {
  jobs_->cancelAll();
  weightsHasher_ = {};  // stops and joins the weights' hash
}

bool Workspace::hashingWeights() const { return hashingWeights_; }

void Workspace::setSentence(const QString& text) {
  if (workbench_.setSentence(text.toStdString())) Q_EMIT sentenceChanged(text);
}

void Workspace::runSentence() {
  const QString text = sentence();
  Q_EMIT errorsCleared();
  jobs_->cancelGroup(QStringLiteral("analysis"));  // of the run this one replaces
  std::optional<models::LoadedModel> model = workbench_.model();
  runJob_ = jobs_->submit<SentenceRun>(
      tr("Run sentence"),
      [text, model, kept = keptAttentionBytes_](const JobProgress& progress) {
        job_check(progress, 0.0);
        SentenceRun run = model ? model_run(*model, text, kept, progress)
                                : document::sentence_run_baseline(text.toStdString());
        job_check(progress, 1.0);
        return run;
      },
      [this](SentenceRun run) { showRun(std::move(run)); }, QStringLiteral("run"));
}

void Workspace::showRun(SentenceRun run) {
  workbench_.showRun(std::move(run));
  Q_EMIT experimentsChanged();  // they belonged to the previous run
  const SentenceRun& shown = *workbench_.run();
  if (!shown.beyondTrainedContext.empty())
    Q_EMIT notice(QString::fromStdString(shown.beyondTrainedContext), 20000);
  const int layers = shown.trace ? shown.trace->layers() : 1;
  const int heads = shown.trace ? shown.trace->heads() : 1;
  selection_->setBounds(layers, heads, shown.tokenCount());
  Q_EMIT runShown();
  runInterventions();
  Q_EMIT runFinished();
  analyseRun();
}

void Workspace::analyseRun() {
  const auto& run = workbench_.run();
  if (!run || !run->trace || run->analysis) return;
  const std::shared_ptr<const models::Trace> trace = run->trace;
  const document::AnalysisSettings settings = workbench_.analysisSettings();
  jobs_->submit<std::shared_ptr<const TraceAnalysis>>(
      tr("Analyse every head"),
      [trace, settings](const JobProgress& progress) {
        return document::analyse_shown_run(*trace, settings, progress);
      },
      [this, trace](std::shared_ptr<const TraceAnalysis> analysis) {
        // A newer run is shown: its own analysis follows.
        if (workbench_.setAnalysis(trace, std::move(analysis))) Q_EMIT analysisFinished();
      },
      QStringLiteral("analysis"));
}

void Workspace::setAnalysisSettings(const document::AnalysisSettings& settings) {
  if (!workbench_.setAnalysisSettings(settings)) return;
  Q_EMIT analysisSettingsChanged();
  if (!run() || !run()->trace) return;
  analyseRun();
  if (runB()) runInterventions();  // B, intervened or compared, with its analysis again
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
  workbench_.closeModel();
  stopComparing();
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
  workbench_.setModel(std::move(loaded));
  // The weights' hash, for the sessions saved with this model (cached; a
  // model already hashed costs a stat of its files).
  weightsHasher_ = {};  // the previous model's, stopped
  if (hashesWeights_) {
    hashingWeights_ = true;
    weightsHasher_ =
        std::jthread([this, folder = model()->model->folder()](const std::stop_token& stop) {
          try {
            models::weight_files_sha256(folder, ~std::uint64_t{0},
                                        [&stop] { return stop.stop_requested(); });
          } catch (const std::exception&) {
            // an unreadable file: the session records no weights hash
          }
          hashingWeights_ = false;
        });
  }
  Q_EMIT modelOpened(QString::fromStdString(model()->model->folder().string()));
  runSentence();  // the new model on the current sentence
}

void Workspace::onJobFailed(quint64 id, const QString& message) {
  // A refused study says why where the study is shown.
  if (id == studyJob_) Q_EMIT studyRefused(studyAsked_, message);
  // A model that fails to open before anything is shown leaves the uniform
  // baseline on screen, as with no model at all; the baseline only where it
  // can be drawn: a failed baseline would hide the model's error, which is
  // the one the user needs.
  if (id == modelJob_ && !run() && !model() &&
      document::sentence_word_offsets(workbench_.sentence()).size() <=
          static_cast<std::size_t>(document::kMaxBaselineWords))
    runSentence();
  // The sentence failed on a newly opened model (too long for it, say): the
  // panels must not go on showing the previous model's run under the new
  // model's name. Show the sentence's uniform baseline; the error stays.
  if (id == runJob_ && run() && run()->model && model() && run()->model != model()->model.get()) {
    try {
      showRun(document::sentence_run_baseline(workbench_.sentence()));
    } catch (const std::exception&) {
      // no word to show: keep what is shown, the error says why
    }
  }
}

void Workspace::openStudy(const QString& folder) {
  Q_EMIT errorsCleared();
  const std::filesystem::path path = folder.toStdString();
  studyAsked_ = folder;
  studyJob_ = jobs_->submit<document::StudyTables>(
      tr("Open study"), [path](const JobProgress&) { return document::study_tables_read(path); },
      [this, folder](document::StudyTables study) {
        workbench_.setStudy(std::move(study), folder.toStdString());
        Q_EMIT studyOpened(folder);
      },
      QStringLiteral("study"));
}

bool Workspace::showCheckpoints(const QString& folder) {
  if (!workbench_.setCheckpoints(models::training_checkpoints(folder.toStdString()),
                                 folder.toStdString()))
    return false;
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
  openModel(QString::fromStdString(checkpoints().steps.back().folder.string()));
}

void Workspace::computeEmergence() {
  const std::vector<models::Checkpoint> steps = checkpoints().steps;
  const QString text = sentence();
  if (steps.empty() || text.trimmed().isEmpty()) return;
  jobs_->submit<document::CheckpointAlpha0>(
      tr("Sink emergence over %1 checkpoints").arg(steps.size()),
      [steps, text = text.toStdString()](const JobProgress& progress) {
        return document::checkpoint_alpha0(steps, text, progress);
      },
      [this, steps, text](document::CheckpointAlpha0 alpha0) {
        if (steps.size() != checkpoints().steps.size()) return;  // another run opened since
        Q_EMIT emergenceComputed(alpha0, text);
      },
      QStringLiteral("emergence"));
}

void Workspace::setComparison(Comparison comparison) {
  if (workbench_.setComparison(comparison)) Q_EMIT comparisonChanged(comparison);
}

void Workspace::emitRunNames() { Q_EMIT runNamesChanged(leftName(), rightName()); }

void Workspace::setRunB(std::optional<SentenceRun> run) {
  workbench_.setRunB(std::move(run), selection_->state());
}

void Workspace::compareWithSentence(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  selection_->setInterventions({});
  beginComparison({text.toStdString(), std::nullopt});
}

void Workspace::compareWithModel(const QString& folderOrName) {
  loadModel(folderOrName, tr("Open the compared model"), QStringLiteral("compare"),
            [this](models::LoadedModel loaded) {
              selection_->setInterventions({});
              beginComparison({std::string(), std::move(loaded)});
            });
}

void Workspace::beginComparison(document::ComparisonSource source) {
  const Comparison before = comparison();
  workbench_.beginComparison(std::move(source));
  if (comparison() != before) Q_EMIT comparisonChanged(comparison());
  runComparison();
}

void Workspace::pinComparedRun(int layer, int head) {
  if (workbench_.holdPinUntilComparedRun(layer, head, selection_->state())) return;
  selection_->setCounterpartLayer(layer);
  selection_->setCounterpartHead(head);
}

void Workspace::stopComparing() {
  if (!workbench_.endComparison()) return;
  selection_->setCounterpartBounds(0, 0);
  emitRunNames();
  Q_EMIT runBChanged();
}

void Workspace::runComparison() {
  auto [toMake, refusal] = workbench_.comparedRunToMake();
  if (!refusal.empty()) Q_EMIT failed(QString::fromStdString(refusal), QString());
  if (!toMake) return;
  emitRunNames();
  const bool otherModel = comparingModels();
  jobs_->submit<SentenceRun>(
      otherModel ? tr("Run the sentence on the compared model") : tr("Run the compared sentence"),
      [model = toMake->model, text = toMake->text, settings = workbench_.analysisSettings(),
       kept = keptAttentionBytes_](const JobProgress& progress) {
        SentenceRun run = model_run(model, QString::fromStdString(text), kept, progress);
        run.analysis = document::analyse_shown_run(*run.trace, settings, progress);
        return run;
      },
      [this, base = toMake->base](SentenceRun b) {
        const auto taken = workbench_.takeComparedRun(std::move(b), base);
        if (!taken) return;  // a newer run, or stopped
        Q_EMIT notice(QString::fromStdString(workbench_.comparisonNotice()), 10000);
        selection_->setCounterpartBounds(taken->layers, taken->heads);
        if (taken->pinned) {  // a session's pinned place in B
          if (!taken->outside.empty())
            Q_EMIT counterpartOutside(QString::fromStdString(taken->outside));
          selection_->setCounterpartLayer(taken->pinned->first);
          selection_->setCounterpartHead(taken->pinned->second);
        }
        Q_EMIT runBChanged();
        Q_EMIT comparisonFinished();
      },
      QStringLiteral("interventions"));
}

void Workspace::runInterventions() {
  const models::Intervention list = selection_->interventions();
  if (comparing() && list.empty()) {
    runComparison();  // a new sentence: its B again
    return;
  }
  if (comparing()) {  // interventions end a comparison
    stopComparing();
  }
  if (!list.empty() && showingCapture())
    Q_EMIT failed(tr("Interventions rerun the model: a capture holds its attention only (open "
                     "the model to run them)"),
                  {});
  if (list.empty() || !run() || !run()->trace || !model()) {
    const bool had = runB().has_value();
    setRunB(std::nullopt);
    if (had) Q_EMIT runBChanged();
    return;
  }
  const SentenceRun base = *run();
  const models::LoadedModel model = *workbench_.model();
  jobs_->submit<SentenceRun>(
      tr("Run interventions"),
      [base, model, list, settings = workbench_.analysisSettings()](const JobProgress& progress) {
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

void Workspace::refuseModelRerun() {
  Q_EMIT failed(showingCapture() ? tr("This reruns the model: a capture holds its attention only "
                                      "(open the model to run it)")
                                 : tr("Open a model and run a sentence first"),
                {});
}

bool Workspace::canRerunModel() {
  if (run() && run()->trace && model()) return true;
  refuseModelRerun();
  return false;
}

void Workspace::computeHeadAblation() {
  if (!canRerunModel()) return;
  const auto trace = run()->trace;
  jobs_->submit<std::vector<double>>(
      tr("Head ablation"),
      [trace, model = *model()](const JobProgress& progress) {
        return document::head_ablation_of_run(model, *trace, progress);
      },
      [this, trace](std::vector<double> dnll) {
        if (!workbench_.setHeadDnll(trace, std::move(dnll))) return;  // a newer run replaced it
        Q_EMIT experimentsChanged();
        Q_EMIT experimentsFinished();
      },
      QStringLiteral("experiments"));
}

void Workspace::computeLayerFunction() {
  if (!canRerunModel()) return;
  const auto trace = run()->trace;
  using Result = std::pair<std::vector<double>, std::vector<double>>;
  jobs_->submit<Result>(
      tr("KL and Fisher per layer"),
      [trace, model = *model()](const JobProgress& progress) {
        return document::layer_function_of_run(model, *trace, progress);
      },
      [this, trace](Result r) {
        if (!workbench_.setLayerFunction(trace, std::move(r.first), std::move(r.second))) return;
        Q_EMIT experimentsChanged();
        Q_EMIT experimentsFinished();
      },
      QStringLiteral("experiments"));
}

QStringList Workspace::provenance() const {
  QStringList lines;
  for (const std::string& line :
       workbench_.provenance(selection_->state(),
                             "sinkscope " + QCoreApplication::applicationVersion().toStdString()))
    lines << QString::fromStdString(line);
  return lines;
}

void Workspace::exportRunTensors(const QString& path, bool overwrite) {
  const SentenceRun* shown = shownRun();
  if (!shown || !shown->trace) {
    refuseModelRerun();
    return;
  }
  QJsonObject params{
      {QStringLiteral("schema_version"), 1},
      {QStringLiteral("tool"),
       QStringLiteral("sinkscope ") + QCoreApplication::applicationVersion()},
      {QStringLiteral("command"), QStringLiteral("export run tensors")},
      {QStringLiteral("model"), model() ? QString::fromStdString(model()->model->folder().string())
                                        : QString::fromStdString(shown->source)},
      {QStringLiteral("text"), QString::fromStdString(shown->text)},
      {QStringLiteral("tokens"), shown->tokenCount()},
      {QStringLiteral("layers"), shown->trace->layers()},
      {QStringLiteral("heads"), shown->trace->heads()},
      {QStringLiteral("hidden_size"), shown->trace->hiddenSize()},
      {QStringLiteral("causal"), shown->trace->causal()}};
  if (model()) try {
      for (const auto& [k, v] :
           models::model_identity_header(models::model_identity(model()->model->folder())))
        params.insert(QString::fromStdString(k), QString::fromStdString(v));
    } catch (const std::exception&) {
    }
  QJsonArray interventions;
  if (shown != &*run())
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

std::function<std::string(const JobProgress&)> Workspace::webPageMaker() const {
  const SentenceRun* shown = shownRun();
  if (!shown || !shown->trace) return {};
  document::AnalysisSettings settings = analysisSettings();
  settings.weightSpectra = false;  // the page draws the run's heads, not the weights
  // The command that makes the same page without a window (the settings
  // other than their defaults are in the page's parameters table).
  const auto quoted = [](const std::string& text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  };
  const std::string command =
      model() ? "sinkscope-cli analyze " + quoted(model()->model->folder().string()) + " --text " +
                    quoted(shown->text) + " --out DIR --html run.html"
              : "sinkscope: File > Share as web page (" + shown->source + ")";
  std::vector<std::pair<std::string, std::string>> header = {
      {"model", model() ? model()->model->folder().string() : shown->source}, {"command", command}};
  if (model()) try {
      for (const auto& [k, v] :
           models::model_identity_header(models::model_identity(model()->model->folder())))
        header.emplace_back(k, v);
    } catch (const std::exception&) {
      // a folder changed since it opened: the page names the model without its hashes
    }
  const auto trace = shown->trace;
  const std::vector<std::string> tokens = shown->tokenStrings();
  const std::string text = shown->text;
  return [trace, tokens, text, header, settings](const JobProgress& progress) {
    document::AnalyzeSubject subject;
    subject.trace = trace.get();
    subject.tokens = tokens;
    document::WebPageInputs page;
    page.trace = trace.get();
    page.tokens = tokens;
    page.sentence = text;
    page.header = header;
    page.settings = settings;
    page.tables = document::analyze_subject_csv(subject, settings,
                                                [&](double done) { return progress(0.5 * done); });
    job_check(progress, 0.5);
    return document::web_page_html(document::web_page_data(page));
  };
}

void Workspace::shareAsWebPage(const QString& path, bool overwrite) {
  auto make = webPageMaker();
  if (!make) {
    refuseModelRerun();
    return;
  }
  const std::string file = path.toStdString();
  jobs_->submit<bool>(
      tr("Share as web page"),
      [make, file, overwrite](const JobProgress& progress) {
        io::file_write_atomic(file, make(progress), overwrite);
        return true;
      },
      [this, path](bool) { Q_EMIT notice(tr("Shared as web page: %1").arg(path), 5000); });
}

DrawnRuns Workspace::drawnRuns() const {
  DrawnRuns d;
  d.shown = shownRun();
  if (!d.shown) return d;
  // A difference needs the same tokens in both runs (not just as many).
  const auto& a = run();
  const auto& b = runB();
  d.difference =
      b && comparison() == Comparison::Difference && document::runs_have_same_tokens(*a, *b);
  d.differenceRefused = b && comparison() == Comparison::Difference && !d.difference;
  d.sideBySide = b && comparison() == Comparison::SideBySide;
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
  // A layer that must be recomputed is fetched in the background, not here.
  const auto wait = [&d](const SentenceRun& run, int layer) {
    if (run.layerAtHand(layer)) return false;
    d.waitingRun = &run;
    d.waitingForLayer = layer;
    return true;
  };
  if (wait(*d.shown, d.place.layer()) ||
      ((d.sideBySide || d.difference) && wait(*a, selection_->layer())))
    return d;
  d.map = d.shown->attention(d.place.layer(), d.place.head());
  if (d.sideBySide) d.before = a->attention(selection_->layer(), selection_->head());
  return d;
}

ShownPlace Workspace::placeOf(const SentenceRun& run) const {
  const bool isB = runB() && &run == &*runB();
  if (comparing() && isB)
    // Two models: A's tokens land on B's through their characters (one model:
    // comparedTokens() is empty, by position).
    return ShownPlace(selection_, run.tokenCount(), workbench_.comparedTokens());
  // Without its first token the run's tokens are A's shifted by one: the
  // selection follows its token, not its position.
  if (isB)
    if (const auto& dropped = droppedFirstAlignment())
      return ShownPlace(selection_, run.tokenCount(), dropped->first, true);
  return ShownPlace(selection_);
}

}  // namespace sinkscope::ui
