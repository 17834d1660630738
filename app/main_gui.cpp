// The SinkScope GUI. `--screenshot FILE` runs the window once, saves a PNG of
// it and exits: what the setup command does where there is no display.
#include <QApplication>
#include <QSettings>
#include <QBuffer>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "app/command_line.h"
#include "app/command_options.h"
#include "app/figure_command.h"
#include "app/figure_set.h"
#include "app/gui_support.h"
#include "models/cpu_runtime.h"
#include "render/gl_support.h"
#include "render/panel_export.h"
#include "render/heat_map_view.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "models/io/table_io.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"

using sinkscope::app::builtin_models_dir;
using sinkscope::app::CommandLine;
using sinkscope::app::ComparisonOptions;
using sinkscope::app::PlaceOptions;
using sinkscope::app::head_in;
using sinkscope::app::head_value;
using sinkscope::app::kMaxIndex;
using sinkscope::app::sentence_value;
using sinkscope::app::UsageError;
using sinkscope::app::whole_in;
using sinkscope::app::default_model_folder;
using sinkscope::app::name_application;

namespace {

// The window as a PNG, by the output rules of every command: written whole or
// not at all, replacing only a regular file (never a link, a FIFO or a device).
int save_screenshot(sinkscope::ui::MainWindow& window, const QString& path) {
  const QImage image = window.grab().toImage();
  QByteArray png;
  QBuffer buffer(&png);
  try {
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
      throw std::runtime_error("the image could not be encoded");
    QDir().mkpath(QFileInfo(path).absolutePath());
    sinkscope::io::file_write_atomic(std::filesystem::path(path.toStdString()),
                                           png.toStdString(), true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sinkscope: --screenshot %s: %s\n", qPrintable(path), e.what());
    return 1;
  }
  std::printf("Screenshot of the main window: %s\n",
              qPrintable(QFileInfo(path).absoluteFilePath()));
  return 0;
}

// The window's command line: what to open, what to select and show.
struct GuiOptions {
  std::string model, text, screenshot, device = "cpu", precision = "float32", study,
      checkpoints, session, capture;
  std::vector<std::string> show;
  PlaceOptions place;
  ComparisonOptions compare;
  bool resetLayout = false, present = false;
  CLI::Option *modelOption, *textOption, *screenshotOption, *studyOption, *checkpointsOption,
      *captureOption;

  explicit GuiOptions(CLI::App& app) {
    app.set_version_flag("-v,--version", "sinkscope " SINKSCOPE_VERSION, "the version");
    const char* open = "What to open";
    modelOption = app.add_option("--model", model, "open the model folder DIR")
                      ->type_name("DIR")->group(open);
    textOption = app.add_option("--text", text, "start with SENTENCE in the sentence box")
                     ->type_name("SENTENCE")->group(open);
    studyOption = app.add_option("--study", study,
                                 "open the merged corpus study in DIR (sinkscope-cli study merge) "
                                 "in the Study panel")
                      ->type_name("DIR")->group(open);
    checkpointsOption =
        app.add_option("--checkpoints", checkpoints,
                       "open the checkpoints of the training run in DIR (sinkscope-cli train "
                       "--out DIR) in the Checkpoints panel")
            ->type_name("DIR")->group(open);
    captureOption =
        app.add_option("--capture", capture,
                       "open the attention capture FILE.npz (sinkscope.save_capture in Python, "
                       "sinkscope-cli tensors, or np.savez with an 'attention' array) instead "
                       "of a model")
            ->type_name("FILE")->group(open);
    app.add_option("--device", device, "run models on DEVICE: cpu or cuda")
        ->type_name("DEVICE")->capture_default_str()->group(open);
    app.add_option("--precision", precision,
                   "compute BF16/F16 models in float32, or in their stored dtype as Hugging "
                   "Face's eager attention does")
        ->type_name("P")->check(CLI::IsMember({"float32", "stored"}))->capture_default_str()
        ->group(open);
    CLI::Option* sessionOption = app.add_option("session", session, "a session file (.sinkscope) to open")
        ->type_name("[FILE.sinkscope]");
    // A capture is a run without its model: it replaces what these open.
    captureOption->excludes(modelOption)->excludes(checkpointsOption)->excludes(sessionOption)
        ->excludes(textOption);

    const char* select = "What to select and compare";
    place.declare(app, select);
    compare.declare(app, select);
    captureOption->excludes(compare.sentenceOption)->excludes(compare.modelOption);

    const char* window = "The window";
    app.add_flag("--reset-layout", resetLayout, "start with the default dock layout")->group(window);
    app.add_option("--show", show,
                   "bring the panel NAME to the front (its title, e.g. Persistence); repeatable")
        ->type_name("NAME")->allow_extra_args(false)
        ->group(window);
    app.add_flag("--present", present,
                 "start in the classroom mode (View > Present): the map and one panel (the one "
                 "--show names) full screen in large text; Esc leaves")
        ->group(window);
    screenshotOption = app.add_option("--screenshot", screenshot,
                                      "run once, save a PNG of the main window to FILE and exit")
                           ->type_name("FILE")->group(window);
  }
};

CommandLine gui_command_line() {
  return CommandLine(
      "sinkscope", "SinkScope: explore attention sinks in transformer language models.",
      "Also: sinkscope figure --help, sinkscope figure-set --help, sinkscope paper --help.");
}

bool asks_for_help_or_version(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help" || a == "-v" || a == "--version") return true;
  }
  return false;
}


// --show NAME: brings the panels of that title to the front.
void show_panels(sinkscope::ui::MainWindow& window, const std::vector<std::string>& names) {
  for (const std::string& shown : names) {
    const QString name = QString::fromStdString(shown);
    bool found = false;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
      if (dock->windowTitle().compare(name, Qt::CaseInsensitive) == 0) {
        dock->show();
        dock->raise();
        found = true;
      }
    if (!found)
      std::fprintf(stderr, "sinkscope: --show: no panel called \"%s\"\n", qPrintable(name));
  }
}

// --layer, --head, --compare-*: the places selected once the runs are in, and run B.
void select_and_compare(sinkscope::ui::MainWindow& window, const GuiOptions& options) {
  auto q = [](const std::string& s) { return QString::fromStdString(s); };
  using sinkscope::ui::SelectionModel;
  if (options.compare.layerOption->count() || options.compare.headOption->count())
    // B's pinned place; each is clamped to B's shape when B's run is in.
    window.pinComparedRun(
        options.compare.layerOption->count() ? options.compare.layer : SelectionModel::kAutomatic,
        options.compare.headOption->count() ? head_value(options.compare.head)
                                           : SelectionModel::kAutomatic);
  if (options.place.layerOption->count() || options.place.headOption->count())
    window.selectAfterNextRun(
        options.place.layerOption->count() ? options.place.layer : -1,
        options.place.headOption->count() ? head_value(options.place.head) : SelectionModel::kAutomatic);
  if (options.compare.sentenceOption->count()) window.compareWithSentence(q(options.compare.sentence));
  if (options.compare.modelOption->count()) window.compareWithModel(q(options.compare.model));
}

// A session file given, or the last session (a setting), else a model.
void open_what_was_asked(sinkscope::ui::MainWindow& window, const GuiOptions& options,
                         const QString& defaultModel) {
  auto q = [](const std::string& s) { return QString::fromStdString(s); };
  const bool restoreLast = QSettings().value(QStringLiteral("sessions/restoreOnLaunch"), true).toBool() &&
                           !options.modelOption->count() && !options.textOption->count() &&
                           !options.checkpointsOption->count() && !options.captureOption->count() &&
                           !options.compare.sentenceOption->count() &&
                           !options.compare.modelOption->count();
  // Opening a model runs the sentence on it; without one, run the baseline now.
  if (!options.session.empty())
    window.openSession(q(options.session));
  else if (options.captureOption->count())
    window.openCapture(q(options.capture));
  else if (options.checkpointsOption->count())
    window.openCheckpoints(q(options.checkpoints));  // opens its last checkpoint
  else if (restoreLast && window.restoreLastSession())
    ;  // the session opens its model
  else if (options.modelOption->count())
    window.openModelFolder(q(options.model));
  else if (QFileInfo::exists(defaultModel + QStringLiteral("/config.json")))
    window.openModelFolder(defaultModel);
  else
    window.runSentence();

}

// Screenshot mode: wait for the run (and the model, if any) and a rendered
// frame, then grab. Give up after 60 s rather than hang a setup script.
int run_for_screenshot(QApplication& app, sinkscope::ui::MainWindow& window, const QString& path) {
  int exitCode = 1;
  bool grabbing = false;
  auto grabWhenReady = [&] {
    if (grabbing) return;
    grabbing = true;
    QTimer::singleShot(400, &window, [&] {
      // What the status bar says (a refused session, model or folder) is
      // said here too: the picture alone would hide it.
      const QString error = window.jobStatus()->lastError();
      if (!error.isEmpty()) std::fprintf(stderr, "sinkscope: %s\n", qPrintable(error));
      exitCode = save_screenshot(window, path);
      app.quit();
    });
  };
  QObject::connect(window.jobs(), &sinkscope::ui::JobRunner::idle, &window, grabWhenReady);
  // Nothing started (a session or folder refused before any job): grab now.
  QTimer::singleShot(0, &window, [&] {
    if (window.jobs()->activeJobCount() == 0) grabWhenReady();
  });
  QTimer::singleShot(60000, &app, [&] {
    if (window.lastRun() && (window.lastRun()->analysis || !window.lastRun()->trace)) {
      // Long inputs: per-head topology may still be computing in the background;
      // the panels say so, and the picture is still worth taking.
      std::fprintf(stderr,
                   "sinkscope: --screenshot: background work still running after 60 s; "
                   "taking the screenshot as the window is\n");
      grabWhenReady();
      return;
    }
    std::fprintf(stderr, "sinkscope: --screenshot: the window did not finish within 60 s%s%s\n",
                 window.jobStatus()->lastError().isEmpty() ? "" : "; ",
                 qPrintable(window.jobStatus()->lastError()));
    app.exit(1);
  });
  app.exec();
  return exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any matrix product: OpenBLAS's kernels, memory and threads (cpu_runtime.h).
  const std::string threadError = sinkscope::models::configure_cpu_runtime();
  sinkscope::render::figure_hash_seed();
  // `sinkscope figure ...`: a figure without a display (app/figure_command.h).
  if (argc > 1 && std::string(argv[1]) == "figure") {
    if (!threadError.empty()) {
      std::fprintf(stderr, "sinkscope figure: %s\n", threadError.c_str());
      return 2;
    }
    return sinkscope::app::figure_command(argc - 1, argv + 1);
  }
  if (argc > 1 && (std::string(argv[1]) == "figure-set" || std::string(argv[1]) == "paper")) {
    const bool paper = std::string(argv[1]) == "paper";
    if (!threadError.empty()) {
      std::fprintf(stderr, "sinkscope %s: %s\n", argv[1], threadError.c_str());
      return 2;
    }
    return paper ? sinkscope::app::paper_command(argc - 1, argv + 1)
                 : sinkscope::app::figure_set_command(argc - 1, argv + 1);
  }
  sinkscope::render::gl_configure_defaults();
  // Help and version need no display: answered before the GUI application,
  // which would abort without an X server.
  if (asks_for_help_or_version(argc, argv)) {
    CommandLine line = gui_command_line();
    const GuiOptions options(line.app());
    try {
      line.parse(argc, argv, 1);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "sinkscope: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  // Qt's own options (-platform, -style, ...) are taken out of argv first.
  QApplication app(argc, argv);
  name_application();
  if (!threadError.empty()) {
    std::fprintf(stderr, "sinkscope: %s\n", threadError.c_str());
    return 2;
  }
  CommandLine line = gui_command_line();
  GuiOptions options(line.app());
  try {
    line.parse(argc, argv, 1);
    if (options.textOption->count()) sentence_value(options.text, "--text");
    options.compare.check();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "sinkscope: %s\n", e.what());
    return 2;
  }
  auto q = [](const std::string& s) { return QString::fromStdString(s); };
  const bool stored = options.precision == "stored";
  sinkscope::ui::MainWindow window;
  window.setDevice(q(options.device));
  window.setPrecision(stored ? sinkscope::models::ComputePrecision::Stored
                          : sinkscope::models::ComputePrecision::Float32);
  const QString builtins = builtin_models_dir();
  window.setBuiltinModelsDir(builtins);
  if (options.resetLayout) window.resetLayout();
  if (options.textOption->count()) window.setSentence(q(options.text));
  window.show();
  show_panels(window, options.show);
  // A session (the last one, restored on launch) brings its own layout's
  // front tabs once its run is in: the panels asked for stay in front.
  QObject::connect(&window, &sinkscope::ui::MainWindow::sessionApplied, &window,
                   [&window, &options] {
                     if (!window.presenting()) show_panels(window, options.show);
                   });
  // The classroom mode, with the panel --show brought to the front beside the map.
  if (options.present) window.setPresenting(true);
  if (options.studyOption->count()) window.openStudy(q(options.study));
  select_and_compare(window, options);
  open_what_was_asked(window, options, default_model_folder(builtins));

  if (!options.screenshotOption->count()) return app.exec();

  return run_for_screenshot(app, window, q(options.screenshot));
}
