// The SinkScope GUI. `--screenshot FILE` runs the window once, saves a PNG of
// it and exits: what the setup command does where there is no display.
#include <QApplication>
#include <QSettings>
#include <QCommandLineParser>
#include <QBuffer>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

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
#include "analysis/table_io.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"

using sinkscope::app::builtin_models_dir;
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
    sinkscope::analysis::file_write_atomic(std::filesystem::path(path.toStdString()),
                                           png.toStdString(), true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sinkscope: --screenshot %s: %s\n", qPrintable(path), e.what());
    return 1;
  }
  std::printf("Screenshot of the main window: %s\n",
              qPrintable(QFileInfo(path).absoluteFilePath()));
  return 0;
}

// The command line, added to `parser` on construction.
struct GuiOptions {
  QCommandLineOption model{QStringLiteral("model"), QStringLiteral("Open the model folder DIR."),
                           QStringLiteral("DIR")};
  QCommandLineOption text{QStringLiteral("text"),
                          QStringLiteral("Start with SENTENCE in the sentence box."),
                          QStringLiteral("SENTENCE")};
  QCommandLineOption screenshot{
      QStringLiteral("screenshot"),
      QStringLiteral("Run once, save a PNG of the main window to FILE and exit."),
      QStringLiteral("FILE")};
  QCommandLineOption device{QStringLiteral("device"),
                            QStringLiteral("Run models on DEVICE: cpu (default) or cuda."),
                            QStringLiteral("DEVICE"), QStringLiteral("cpu")};
  QCommandLineOption precision{
      QStringLiteral("precision"),
      QStringLiteral("Compute BF16/F16 models in float32 (default) or in their stored dtype "
                     "as Hugging Face's eager attention does (stored)."),
      QStringLiteral("PRECISION"), QStringLiteral("float32")};
  QCommandLineOption resetLayout{QStringLiteral("reset-layout"),
                                 QStringLiteral("Start with the default dock layout.")};
  QCommandLineOption show{
      QStringLiteral("show"),
      QStringLiteral("Bring the panel NAME to the front (its title, e.g. Persistence); repeatable."),
      QStringLiteral("NAME")};
  QCommandLineOption study{
      QStringLiteral("study"),
      QStringLiteral("Open the merged corpus study in DIR (sinkscope-cli study merge) in the "
                     "Study panel."),
      QStringLiteral("DIR")};
  QCommandLineOption checkpoints{
      QStringLiteral("checkpoints"),
      QStringLiteral("Open the checkpoints of the training run in DIR (sinkscope-cli train "
                     "--out DIR) in the Checkpoints panel."),
      QStringLiteral("DIR")};
  QCommandLineOption compareSentence{
      QStringLiteral("compare-sentence"),
      QStringLiteral("Show SENTENCE (B) beside the sentence (A) in every panel."),
      QStringLiteral("SENTENCE")};
  QCommandLineOption compareModel{
      QStringLiteral("compare-model"),
      QStringLiteral("Run the sentence on the model DIR too and show both runs side by side "
                     "(a model of another shape is compared layer by relative depth)."),
      QStringLiteral("DIR")};
  QCommandLineOption compareLayer{
      QStringLiteral("compare-layer"),
      QStringLiteral("Pin the compared run B at its layer N (default: the selected layer's "
                     "counterpart at the same relative depth)."),
      QStringLiteral("N")};
  QCommandLineOption compareHead{
      QStringLiteral("compare-head"),
      QStringLiteral("Pin the compared run B at its head N or 'avg' (default: the selected head "
                     "when B's layers have as many heads, else B's head average)."),
      QStringLiteral("N|avg")};
  QCommandLineOption layer{
      QStringLiteral("layer"), QStringLiteral("Select layer N once the sentence has run."),
      QStringLiteral("N")};
  QCommandLineOption head{
      QStringLiteral("head"),
      QStringLiteral("Select head N, or 'avg' (the head average), once the sentence has run."),
      QStringLiteral("N|avg")};
  QCommandLineOption present{
      QStringLiteral("present"),
      QStringLiteral("Start in the classroom mode (View > Present): the map and one panel (the "
                     "one --show names) full screen in large text; Esc leaves.")};
  QCommandLineOption threads{
      QStringLiteral("threads"),
      QStringLiteral("Use N threads for forward passes and analysis (default: every core; "
                     "SINKSCOPE_THREADS=N does the same)."),
      QStringLiteral("N")};

  explicit GuiOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        QStringLiteral("SinkScope: explore attention sinks in transformer language models."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({model, text, screenshot, device, precision, resetLayout, show, study, checkpoints,
                       compareSentence, compareModel, compareLayer, compareHead, layer, head,
                       present, threads});
    parser.addPositionalArgument(QStringLiteral("session"),
                                 QStringLiteral("A session file (.sinkscope) to open."),
                                 QStringLiteral("[FILE.sinkscope]"));
  }
};

bool asks_for_help_or_version(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "-?" || a == "-v" ||
        a == "--version")
      return true;
  }
  return false;
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
  if (argc > 1 && std::string(argv[1]) == "figure-set") {
    if (!threadError.empty()) {
      std::fprintf(stderr, "sinkscope figure-set: %s\n", threadError.c_str());
      return 2;
    }
    return sinkscope::app::figure_set_command(argc - 1, argv + 1);
  }
  sinkscope::render::gl_configure_defaults();
  // Help and version need no display: answered by a core application, made
  // before the GUI one would abort without an X server.
  if (asks_for_help_or_version(argc, argv)) {
    QCoreApplication core(argc, argv);
    name_application();
    QCommandLineParser parser;
    const GuiOptions options(parser);
    parser.process(core);  // prints and exits
    return 0;
  }
  QApplication app(argc, argv);
  name_application();
  QCommandLineParser parser;
  const GuiOptions options(parser);
  parser.process(app);
  if (!threadError.empty()) {
    std::fprintf(stderr, "sinkscope: %s\n", threadError.c_str());
    return 2;
  }
  if (parser.isSet(options.threads)) {
    bool ok = false;
    const int threads = parser.value(options.threads).toInt(&ok);
    if (!ok || threads < 1 || threads > 1024) {
      std::fprintf(stderr, "sinkscope: --threads: \"%s\" is not a thread count from 1 to 1024\n",
                   qPrintable(parser.value(options.threads)));
      return 2;
    }
    sinkscope::models::set_cpu_threads(threads);
  }

  const QString precision = parser.value(options.precision);
  if (precision != QLatin1String("float32") && precision != QLatin1String("stored")) {
    std::fprintf(stderr, "sinkscope: --precision: \"%s\": use float32 or stored\n",
                 qPrintable(precision));
    return 2;
  }
  sinkscope::ui::MainWindow window;
  window.setDevice(parser.value(options.device));
  window.setPrecision(precision == QLatin1String("stored")
                          ? sinkscope::models::ComputePrecision::Stored
                          : sinkscope::models::ComputePrecision::Float32);
  const QString builtins = builtin_models_dir();
  window.setBuiltinModelsDir(builtins);
  const QString defaultModel = default_model_folder(builtins);
  if (parser.isSet(options.resetLayout)) window.resetLayout();
  if (parser.isSet(options.text)) window.setSentence(parser.value(options.text));
  window.show();
  for (const QString& name : parser.values(options.show)) {
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
  // The classroom mode, with the panel --show brought to the front beside the map.
  if (parser.isSet(options.present)) window.setPresenting(true);
  if (parser.isSet(options.study)) window.openStudy(parser.value(options.study));
  if (parser.isSet(options.compareLayer) || parser.isSet(options.compareHead)) {
    // B's pinned place; each is clamped to B's shape when B's run is in.
    using sinkscope::ui::SelectionModel;
    int layer = SelectionModel::kAutomatic, head = SelectionModel::kAutomatic;
    try {
      constexpr int kMaxIndex = 1 << 20;
      if (parser.isSet(options.compareLayer))
        layer = sinkscope::app::int_option(parser, options.compareLayer, 0, kMaxIndex);
      if (parser.isSet(options.compareHead))
        head = sinkscope::app::head_option(parser, options.compareHead, kMaxIndex);
    } catch (const sinkscope::app::BadCommandLine& bad) {
      std::fprintf(stderr, "sinkscope: %s\n", qPrintable(bad.message));
      return 2;
    }
    window.pinComparedRun(layer, head);
  }
  if (parser.isSet(options.layer) || parser.isSet(options.head)) {
    int layer = -1, head = sinkscope::ui::SelectionModel::kAutomatic;
    try {
      constexpr int kMaxIndex = 1 << 20;
      if (parser.isSet(options.layer)) layer = sinkscope::app::int_option(parser, options.layer, 0, kMaxIndex);
      if (parser.isSet(options.head)) head = sinkscope::app::head_option(parser, options.head, kMaxIndex);
    } catch (const sinkscope::app::BadCommandLine& bad) {
      std::fprintf(stderr, "sinkscope: %s\n", qPrintable(bad.message));
      return 2;
    }
    window.selectAfterNextRun(layer, head);
  }
  if (parser.isSet(options.compareSentence)) {
    if (parser.value(options.compareSentence).trimmed().isEmpty()) {
      std::fprintf(stderr, "sinkscope: --compare-sentence: nothing to compare with (the sentence is blank)\n");
      return 2;
    }
    window.compareWithSentence(parser.value(options.compareSentence));
  }
  if (parser.isSet(options.compareModel)) window.compareWithModel(parser.value(options.compareModel));
  // A session file given, or the last session (a setting), else a model.
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    std::fprintf(stderr, "sinkscope: give at most one session file\n");
    return 2;
  }
  const bool restoreLast = QSettings().value(QStringLiteral("sessions/restoreOnLaunch"), true).toBool() &&
                           !parser.isSet(options.model) && !parser.isSet(options.text) &&
                           !parser.isSet(options.checkpoints) && !parser.isSet(options.compareSentence) &&
                           !parser.isSet(options.compareModel);
  // Opening a model runs the sentence on it; without one, run the baseline now.
  if (!positional.isEmpty())
    window.openSession(positional.front());
  else if (parser.isSet(options.checkpoints))
    window.openCheckpoints(parser.value(options.checkpoints));  // opens its last checkpoint
  else if (restoreLast && window.restoreLastSession())
    ;  // the session opens its model
  else if (parser.isSet(options.model))
    window.openModelFolder(parser.value(options.model));
  else if (QFileInfo::exists(defaultModel + QStringLiteral("/config.json")))
    window.openModelFolder(defaultModel);
  else
    window.runSentence();

  if (!parser.isSet(options.screenshot)) return app.exec();

  // Screenshot mode: wait for the run (and the model, if any) and a rendered
  // frame, then grab. Give up after 60 s rather than hang a setup script.
  const QString path = parser.value(options.screenshot);
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
