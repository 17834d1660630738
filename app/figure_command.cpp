#include "app/figure_command.h"

#include <algorithm>

#include <QApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QMap>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "app/command_line.h"
#include "app/command_options.h"
#include "app/gui_support.h"
#include "app/setting_options.h"
#include "models/capture.h"
#include "models/cpu_runtime.h"
#include "models/input_files.h"
#include "render/panel_export.h"
#include "ui/example_picker.h"
#include "ui/figure_request.h"
#include "ui/figure_writer.h"
#include "ui/job_runner.h"
#include "ui/panel_board.h"
#include "ui/panel_registry.h"
#include "ui/session.h"
#include "ui/workspace.h"
#include "ui/workspace_session.h"

namespace sinkscope::app {

namespace {

// The export formats' suffixes (render::export_formats()).
std::vector<std::string> format_suffixes() {
  std::vector<std::string> suffixes;
  for (const render::ExportFormatInfo& f : render::export_formats())
    suffixes.push_back(f.suffix.toStdString());
  suffixes.push_back("html");  // the run as one web page (every panel)
  return suffixes;
}

// The figure command's options, declared once (app/command_line.h).
struct FigureOptionsLine {
  std::string session, capture, text, out, format, preset = "one-column", title, comparison,
      device = "cpu", model;
  PlaceOptions place;
  ComparisonOptions compare;
  std::vector<std::string> panels;
  double widthMm = 0, heightMm = 0, fontPt = 0, threshold = 0, azimuth = 0, elevation = 0;
  int dpi = 300, columns = 0, query = 0, key = 0, topN = 0, timeout = 1800;
  bool force = false, transparent = false, visibleSpaces = false, selection = false;
  // The analysis settings (analyze's options; top-N and the query are the
  // selection's above), applied after parsing.
  std::unique_ptr<SettingOptions> settingOptions;
  document::AnalysisSettings analysis;
  std::string checkpoints;
  CLI::Option *sessionOption, *captureOption, *checkpointsOption, *textOption, *widthOption,
      *heightOption, *fontOption, *titleOption, *queryOption, *keyOption, *thresholdOption,
      *topNOption, *azimuthOption, *elevationOption, *comparisonOption, *formatOption;

  explicit FigureOptionsLine(CLI::App& app) {
    const char* what = "What to draw";
    sessionOption = app.add_option("--session", session,
                                   "make the figure of the session FILE (.sinkscope)")
                        ->type_name("FILE")->group(what);
    captureOption = app.add_option("--capture", capture,
                                   "make the figure of a capture FILE (NPZ: attention [L, H, T, T], "
                                   "optionally values, tokens, model; no model runs)")
                        ->type_name("FILE")->group(what);
    checkpointsOption =
        app.add_option("--checkpoints", checkpoints,
                       "the training run in DIR (sinkscope-cli train --out DIR): its last "
                       "checkpoint is the model, and the emergence panel draws every checkpoint")
            ->type_name("DIR")
            ->group(what);
    app.add_option("MODEL", model, "a model folder or cache name (default: the built-in model)")
        ->type_name("[MODEL]")->group(what);
    textOption = app.add_option("--text", text, "the sentence (with MODEL; default: the window's)")
                     ->type_name("SENTENCE")->group(what);
    app.add_option("--panel", panels,
                   "a panel or view of the figure; repeat for several (a), (b), ... (see the "
                   "list below)")
        ->type_name("NAME")
        ->allow_extra_args(false)
        ->group(what);
    app.add_option("--device", device, "cpu or cuda")->type_name("DEVICE")->capture_default_str()
        ->group(what);
    app.add_option("--timeout", timeout,
                   range_text("give up after SECONDS if the run has not finished", 1,
                              7 * 24 * 3600))
        ->type_name("SECONDS")->check(whole_in(1, 7 * 24 * 3600))->capture_default_str()
        ->group(what);

    const char* file = "The file";
    app.add_option("--out", out,
                   "the figure: " + render::export_suffixes_text(false).toStdString() +
                       " (also .json: the views as data; one view: its numbers, .csv; .html: "
                       "the run as one self-contained web page of every panel and head, no "
                       "--panel)")
        ->type_name("FILE")
        ->required()
        ->group(file);
    app.add_flag("--force", force, "replace --out when it exists (a regular file only)")
        ->group(file);
    formatOption = app.add_option("--format", format, "must match --out's suffix")
                       ->type_name("FORMAT")->check(CLI::IsMember(format_suffixes(), CLI::ignore_case))
                       ->group(file);
    app.add_option("--preset", preset,
                   "one-column (85 mm), two-columns (178 mm), slide (16:9) or screen")
        ->type_name("PRESET")->check(CLI::IsMember(preset_names()))->capture_default_str()
        ->group(file);
    widthOption = app.add_option("--width-mm", widthMm, range_text("a custom width in mm (with --height-mm)", 10, 2000))
                      ->type_name("MM")->check(number_in(10, 2000))->group(file);
    heightOption = app.add_option("--height-mm", heightMm, range_text("a custom height in mm (with --width-mm)", 10, 2000))
                       ->type_name("MM")->check(number_in(10, 2000))->group(file);
    widthOption->needs(heightOption);
    heightOption->needs(widthOption);
    app.add_option("--dpi", dpi, range_text("PNG resolution", 10, 2400))
        ->type_name("DPI")->check(whole_in(10, 2400))->capture_default_str()->group(file);
    fontOption = app.add_option("--font-pt", fontPt, range_text("text size in points (the preset's by default)", 4, 72))
                     ->type_name("PT")->check(number_in(4, 72))->group(file);
    app.add_flag("--transparent", transparent, "no background")->group(file);
    app.add_flag("--selection", selection,
                 "a paper preset or size draws the selection too (the framed cell or head, "
                 "the selected layer or key); the screen's size always does")
        ->group(file);
    titleOption = app.add_option("--title", title,
                                 "a title drawn above the figure. Paper presets draw none "
                                 "otherwise (a caption says what a figure is); the views' own "
                                 "titles, with the model and place, are in the file's metadata "
                                 "and the CSV")
                      ->type_name("TEXT")->group(file);
    app.add_flag("--visible-spaces", visibleSpaces, "token labels show spaces as \u2423")
        ->group(file);
    app.add_option("--columns", columns,
                   range_text("views per row of a figure of several (0: one row)", 0, 26))
        ->type_name("N")->check(whole_in(0, 26))->capture_default_str()->group(file);

    const char* placeGroup = "The selection";
    place.declare(app, placeGroup);
    queryOption = app.add_option("--query", query, "select query token Q")
                      ->type_name("Q")->check(whole_in(0, kMaxIndex))->group(placeGroup);
    keyOption = app.add_option("--key", key, "select key token K")
                    ->type_name("K")->check(whole_in(0, kMaxIndex))->group(placeGroup);
    thresholdOption = app.add_option("--threshold", threshold, range_text("the graph threshold theta", 0, 1))
                          ->type_name("THETA")->check(number_in(0, 1))->group(placeGroup);
    topNOption = app.add_option("--top-n", topN, "N, the top keys of value space")
                     ->type_name("N")->check(whole_in(1, kMaxIndex))->group(placeGroup);
    azimuthOption = app.add_option("--azimuth", azimuth, range_text("3-D views: turn the camera by DEG about the up axis", -360, 360))
                        ->type_name("DEG")->check(number_in(-360, 360))->group(placeGroup);
    elevationOption = app.add_option("--elevation", elevation, range_text("3-D views: raise the camera by DEG", -90, 90))
                          ->type_name("DEG")->check(number_in(-90, 90))->group(placeGroup);

    const char* compareGroup = "A comparison";
    compare.declare(app, compareGroup);
    comparisonOption =
        app.add_option("--comparison", comparison,
                       "what a comparison shows: a, b, difference (same tokens) or side-by-side "
                       "(the default)")
            ->type_name("WHAT")
            ->transform(CLI::IsMember({"a", "b", "difference", "side-by-side"}, CLI::ignore_case))
            ->group(compareGroup);
    settingOptions = std::make_unique<SettingOptions>(
        app, [](const document::SettingSpec& spec) { return spec.python && !spec.selection; });
  }
};

CommandLine figure_command_line() {
  std::string panels;
  for (const ui::PanelEntry& p : ui::panel_registry())
    panels += "\n  " + p.name.toStdString() + ": " + p.description.toStdString() +
              " (views: " + p.views.join(QStringLiteral(", ")).toStdString() + ")";
  return CommandLine("sinkscope figure",
                     "A figure of SinkScope's panels without a display.\n"
                     "sinkscope figure (--session FILE | --capture FILE | [MODEL] [--text "
                     "SENTENCE] [--compare-sentence S | --compare-model DIR]) --panel NAME "
                     "[--panel NAME ...] --out FILE",
                     "Panels:" + panels);
}

render::FigureOptions figure_options(const FigureOptionsLine& o) {
  render::FigureOptions options = preset_named(o.preset, o.dpi);
  if (o.widthOption->count()) {
    options.widthMm = o.widthMm;
    options.heightMm = o.heightMm;
    if (options.fontPt <= 0) options.fontPt = 8.0;
  }
  if (o.fontOption->count()) options.fontPt = o.fontPt;
  options.transparent = o.transparent;
  options.visibleSpaces = o.visibleSpaces;
  options.drawSelection = o.selection;
  if (o.titleOption->count()) {
    options.title = QString::fromStdString(o.title);
    if (options.title.size() > 300 ||
        std::any_of(options.title.begin(), options.title.end(), [](QChar c) { return c.category() == QChar::Other_Control; }))
      throw UsageError("--title: at most 300 characters, no control characters");
  }
  return options;
}

ui::FigureRequest figure_request(const FigureOptionsLine& o) {
  ui::FigureRequest r;
  r.out = QString::fromStdString(o.out);
  const QString suffix = QFileInfo(r.out).suffix().toLower();
  if (suffix == QLatin1String("html")) {
    if (!o.panels.empty())
      throw UsageError("--panel: a web page (--out " + o.out +
                       ") holds every panel and head; leave --panel out");
  } else if (o.panels.empty()) {
    throw UsageError(
        "--panel: give at least one panel or view (or --out FILE.html for the "
        "run as a web page)");
  }
  for (const std::string& name : o.panels) r.names << QString::fromStdString(name);
  try {
    if (!r.names.isEmpty()) ui::figure_views_of(r.names);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::vector<std::string> suffixes = format_suffixes();
  if (std::find(suffixes.begin(), suffixes.end(), suffix.toStdString()) == suffixes.end())
    throw UsageError("--out " + o.out + ": name a " + render::export_suffixes_text(true).toStdString() +
                     " file");
  if (o.formatOption->count() && QString::fromStdString(o.format).toLower() != suffix)
    throw UsageError("--format " + o.format + ", but --out names a ." + suffix.toStdString() +
                     " file");
  r.options = figure_options(o);
  r.force = o.force;
  // Refused now, not after the model has run: what exists, links, FIFOs,
  // devices, and a PNG too large to draw.
  try {
    render::figure_output_check(r.out, r.force);
    constexpr double kPointsPerMm = 72.0 / 25.4;
    if (suffix == QLatin1String("png") && r.options.widthMm > 0)
      render::figure_check_pixels(r.options.widthMm * kPointsPerMm,
                                  r.options.heightMm * kPointsPerMm, r.options.dpi);
  } catch (const std::exception& e) {
    throw UsageError("--out " + o.out + ": " + e.what());
  }
  r.columns = o.columns;
  if (o.place.layerOption->count()) r.layer = o.place.layer;
  if (o.place.headOption->count()) r.head = head_value(o.place.head);
  if (o.queryOption->count()) r.query = o.query;
  if (o.keyOption->count()) r.key = o.key;
  if (o.thresholdOption->count()) r.threshold = o.threshold;
  if (o.topNOption->count()) r.topN = o.topN;
  if (o.azimuthOption->count() || o.elevationOption->count())
    r.camera = views::scene_camera_from_angles(o.azimuth, o.elevation);
  if (o.compare.layerOption->count()) r.compareLayer = o.compare.layer;
  if (o.compare.headOption->count()) r.compareHead = head_value(o.compare.head);
  if (o.comparisonOption->count()) {
    // The window's names for what a comparison shows.
    static const std::map<std::string, QString> kNames{{"a", QStringLiteral("before")},
                                                       {"b", QStringLiteral("after")},
                                                       {"difference", QStringLiteral("difference")},
                                                       {"side-by-side", QStringLiteral("side_by_side")}};
    r.comparison = kNames.at(o.comparison);
  }
  return r;
}

// The request of a parsed command line, with what only their combination
// says: sentences as given, byte for byte (a bad byte refused, never
// replaced), one comparison, and a session that names its own model,
// sentence and comparison (read now: a bad file is refused before any run).
ui::FigureRequest checked_request(FigureOptionsLine& o) {
  if (o.textOption->count()) sentence_value(o.text, "--text");
  o.settingOptions->apply(o.analysis);
  o.compare.check();
  ui::FigureRequest request = figure_request(o);
  if (o.compare.sentenceOption->count() && o.compare.modelOption->count())
    throw UsageError("give --compare-sentence or --compare-model, not both");
  if (o.checkpointsOption->count() && !o.model.empty())
    throw UsageError("--checkpoints opens its last checkpoint as the model: give no MODEL with it");
  if (o.captureOption->count()) {
    if (o.sessionOption->count() || o.checkpointsOption->count() || !o.model.empty() ||
        o.textOption->count() || o.compare.sentenceOption->count() ||
        o.compare.modelOption->count())
      throw UsageError(
          "--capture holds the attention: give no --session, --checkpoints, MODEL, "
          "--text or --compare-* with it");
    return request;
  }
  if (!o.sessionOption->count()) return request;
  if (!o.model.empty() || o.textOption->count() || o.checkpointsOption->count())
    throw UsageError(
        "--session names the model, the sentence and the checkpoints: give no MODEL, "
        "--text or --checkpoints with it");
  if (!o.settingOptions->given().empty())
    throw UsageError("--session names its analysis settings: give no " + o.settingOptions->given() +
                     " with it");
  if (o.compare.sentenceOption->count() || o.compare.modelOption->count())
    throw UsageError("--session names its comparison: give no --compare-sentence or "
                     "--compare-model with it");
  try {
    ui::session_read(o.session);
  } catch (const ui::SessionError& e) {
    throw UsageError(e.what());
  }
  return request;
}

// The document, its panels (under a widget never shown) and the figure
// writer, without a window; the model, sentence and comparison of the
// command line or the session, then one figure.
class FigureRun {
 public:
  FigureRun(const FigureOptionsLine& o, ui::FigureRequest request)
      : o_(o),
        request_(std::move(request)),
        host_(std::make_unique<QWidget>()),
        panels_(new ui::PanelBoard(&workspace_, host_.get())),
        session_(&workspace_, panels_),
        writer_(&workspace_, panels_) {
    workspace_.setDevice(QString::fromStdString(o.device));
    workspace_.setHashesWeights(false);  // no session is saved here: the weights stay unread
    workspace_.setAnalysisSettings(o.analysis);  // a session's own replace them
    try {
      panels_->drawOnlyPanelsOf(ui::figure_views_of(request_.names));
    } catch (const std::invalid_argument&) {
      // the writer names what is wrong with the request
    }
  }

  int exec() {
    QObject::connect(workspace_.jobs(), &ui::JobRunner::jobFailed, &workspace_,
                     [this](quint64, const QString& name, const QString& message, const QString&) {
                       finish(1, QStringLiteral("%1: %2").arg(name, message));
                     });
    QObject::connect(&writer_, &ui::FigureWriter::written, &workspace_,
                     [this](bool ok, const QString& pathOrReason) {
                       if (ok && !writer_.lastNote().isEmpty())
                         std::fprintf(stderr, "sinkscope figure: note: %s\n",
                                      qPrintable(writer_.lastNote()));
                       finish(ok ? 0 : 1,
                              ok ? QStringLiteral("Figure: %1")
                                       .arg(QFileInfo(pathOrReason).absoluteFilePath())
                                 : pathOrReason);
                     });
    // A place in B the session names and B lacks: no figure of another place.
    QObject::connect(&session_, &ui::WorkspaceSession::placesOutsideFound, &workspace_,
                     [this](const QString& message, const QString&) { finish(2, message); });
    if (const int refused = start(); refused != 0) return refused;
    QTimer::singleShot(o_.timeout * 1000, &workspace_, [this] {
      finish(1, QStringLiteral("the run did not finish within %1 s (--timeout)").arg(o_.timeout));
    });
    loop_.exec();
    workspace_.jobs()->cancelAll();
    return exitCode_;
  }

 private:
  // Opens the session, or the model with the sentence and comparison; 0, or
  // the exit code of a refusal.
  int start() {
    auto q = [](const std::string& s) { return QString::fromStdString(s); };
    if (o_.captureOption->count()) {
      // Read here, not in a job: a bad capture is refused (exit 2) before anything runs.
      ui::SentenceRun run;
      try {
        run = document::sentence_run_capture(models::capture_read(o_.capture));
      } catch (const models::CaptureError& e) {
        std::fprintf(stderr, "sinkscope figure: %s\n", e.what());
        return 2;
      }
      QObject::connect(&workspace_, &ui::Workspace::analysisFinished, &workspace_,
                       [this] { makeFigure(); }, Qt::SingleShotConnection);
      workspace_.showCapture(std::move(run), q(o_.capture));
      return 0;
    }
    if (o_.sessionOption->count()) {
      QObject::connect(&session_, &ui::WorkspaceSession::applied, &workspace_, [this] { makeFigure(); },
                       Qt::SingleShotConnection);
      try {
        session_.open(ui::session_read_here(o_.session));
      } catch (const ui::SessionError& e) {
        std::fprintf(stderr, "sinkscope figure: %s\n", e.what());
        return 2;
      }
      return 0;
    }
    QString model = o_.model.empty() ? default_model_folder(builtin_models_dir()) : q(o_.model);
    if (model.isEmpty() && !o_.checkpointsOption->count()) {
      std::fprintf(stderr, "sinkscope figure: no MODEL given and no built-in model found\n");
      return 2;
    }
    QObject::connect(&workspace_, &ui::Workspace::analysisFinished, &workspace_, [this] { makeFigure(); },
                     Qt::SingleShotConnection);
    // The window's sentence when none is given: the first example.
    const QStringList examples = ui::resource_lines(QStringLiteral(":/examples/sentences.txt"));
    if (o_.textOption->count())
      workspace_.setSentence(q(o_.text));
    else if (!examples.isEmpty())
      workspace_.setSentence(examples.front());
    if (o_.checkpointsOption->count()) {
      // After the sentence: the emergence is computed for it as the run opens.
      if (!workspace_.showCheckpoints(q(o_.checkpoints))) {
        std::fprintf(stderr,
                     "sinkscope figure: --checkpoints: %s holds no checkpoint (step-N folders "
                     "with a config.json, in the folder or its checkpoints/ folder)\n",
                     o_.checkpoints.c_str());
        return 2;
      }
      model = QString::fromStdString(workspace_.checkpoints().steps.back().folder.string());
    }
    workspace_.openModel(model);
    if (o_.compare.sentenceOption->count()) workspace_.compareWithSentence(q(o_.compare.sentence));
    if (o_.compare.modelOption->count()) workspace_.compareWithModel(q(o_.compare.model));
    return 0;
  }

  void makeFigure() {
    if (!session_.placesOutside().isEmpty())
      return finish(2, session_.placesOutside());  // a figure of another place than asked
    if (!session_.warning().isEmpty())
      std::fprintf(stderr, "sinkscope figure: warning: %s\n", qPrintable(session_.warning()));
    writer_.writeWhenReady(request_);
  }

  void finish(int code, const QString& message) {
    exitCode_ = code;
    if (!message.isEmpty())
      std::fprintf(code == 0 ? stdout : stderr, "%s%s\n", code == 0 ? "" : "sinkscope figure: ",
                   qPrintable(message));
    loop_.exit(code);
  }

  const FigureOptionsLine& o_;
  const ui::FigureRequest request_;
  // Destroyed in reverse: the panels (under host_) before the workspace whose jobs they use.
  ui::Workspace workspace_;
  std::unique_ptr<QWidget> host_;
  ui::PanelBoard* panels_;  // host_'s
  ui::WorkspaceSession session_;
  ui::FigureWriter writer_;
  QEventLoop loop_;
  int exitCode_ = 1;
};

}  // namespace

namespace {

// The figure of a parsed command line in the running application; the
// user's settings are neither read nor changed (this run keeps its settings
// in `settingsDir`).
int figure_in_application(const FigureOptionsLine& o, const ui::FigureRequest& request,
                          const QTemporaryDir& settingsDir) {
  name_application();
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
  return FigureRun(o, request).exec();
}

}  // namespace

namespace {

// The command line parsed and checked; `done` holds the exit code when there
// is nothing to draw (--help, a bad command line).
struct ParsedFigureLine {
  CommandLine line = figure_command_line();
  FigureOptionsLine o{line.app()};
  ui::FigureRequest request;
  std::optional<int> done;

  ParsedFigureLine(int argc, char** argv) {
    try {
      if (!line.parse(argc, argv, 1))
        done = 0;  // --help
      else
        request = checked_request(o);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "sinkscope figure: %s\n", e.what());
      done = 2;
    }
  }
};

}  // namespace

int figure_command(int argc, char** argv) {
  // No display needed, and the figure never depends on one: 3-D views are
  // drawn from their data by the exporter's flat projection.
  qputenv("QT_QPA_PLATFORM", "offscreen");
  // The user's settings (last session, recent files, layout) are neither read
  // nor changed: this run keeps its settings (and Qt its runtime files) in a
  // folder of its own.
  QTemporaryDir settingsDir;
  if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
    qputenv("XDG_RUNTIME_DIR", settingsDir.path().toLocal8Bit());
  // The command line before the application: QApplication takes some
  // arguments out of argv (X11's -session among them), and --session is ours.
  const ParsedFigureLine parsed(argc, argv);
  if (parsed.done) return *parsed.done;
  QApplication app(argc, argv);
  return figure_in_application(parsed.o, parsed.request, settingsDir);
}

int figure_command_here(int argc, char** argv) {
  if (const std::string threadError = models::apply_thread_environment(); !threadError.empty()) {
    std::fprintf(stderr, "sinkscope figure: %s\n", threadError.c_str());
    return 2;
  }
  const ParsedFigureLine parsed(argc, argv);
  if (parsed.done) return *parsed.done;
  const QTemporaryDir settingsDir;
  return figure_in_application(parsed.o, parsed.request, settingsDir);
}

}  // namespace sinkscope::app
