// The SinkScope GUI. `--screenshot FILE` runs the window once, saves a PNG of
// it and exits: what the setup command does where there is no display.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimer>
#include <cstdio>

#include "models/cpu_runtime.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/job_runner.h"
#include "ui/main_window.h"

namespace {

int save_screenshot(sinkscope::ui::MainWindow& window, const QString& path) {
  const QImage image = window.grab().toImage();
  QDir().mkpath(QFileInfo(path).absolutePath());
  QSaveFile file(path);  // written atomically: temporary file, then rename
  if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
    std::fprintf(stderr, "sinkscope: --screenshot %s: cannot write the file\n", qPrintable(path));
    return 1;
  }
  std::printf("Screenshot of the main window: %s\n",
              qPrintable(QFileInfo(path).absoluteFilePath()));
  return 0;
}

// Where the built-in models are: $SINKSCOPE_MODELS_DIR, the installed data
// folder beside the executable, or the source tree this binary was built from.
QString builtin_models_dir() {
  const QStringList candidates{
      qEnvironmentVariable("SINKSCOPE_MODELS_DIR"),
      QCoreApplication::applicationDirPath() + QStringLiteral("/../share/sinkscope/models"),
      QStringLiteral(SINKSCOPE_SOURCE_DIR "/resources/models")};
  for (const QString& c : candidates)
    if (!c.isEmpty() && QFileInfo(c).isDir()) return QDir(c).absolutePath();
  return {};
}

constexpr const char* kDefaultModel =
    "rope-decoder-bos-first";  // the clearest first-token sink (docs/sinks.md)

}  // namespace

int main(int argc, char** argv) {
  // Before any matrix product: OpenBLAS's kernels for this CPU (cpu_runtime.h).
  sinkscope::models::fix_blas_core();
  sinkscope::models::keep_freed_memory();
  sinkscope::render::gl_configure_defaults();
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("SinkScope"));
  QApplication::setApplicationName(QStringLiteral("sinkscope"));
  QApplication::setApplicationVersion(QStringLiteral(SINKSCOPE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("SinkScope: explore attention sinks in transformer language models."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption modelOption(
      QStringLiteral("model"), QStringLiteral("Open the model folder DIR."), QStringLiteral("DIR"));
  const QCommandLineOption textOption(QStringLiteral("text"),
                                      QStringLiteral("Start with SENTENCE in the sentence box."),
                                      QStringLiteral("SENTENCE"));
  const QCommandLineOption screenshotOption(
      QStringLiteral("screenshot"),
      QStringLiteral("Run once, save a PNG of the main window to FILE and exit."),
      QStringLiteral("FILE"));
  const QCommandLineOption deviceOption(
      QStringLiteral("device"), QStringLiteral("Run models on DEVICE: cpu (default) or cuda."),
      QStringLiteral("DEVICE"), QStringLiteral("cpu"));
  const QCommandLineOption resetLayoutOption(QStringLiteral("reset-layout"),
                                             QStringLiteral("Start with the default dock layout."));
  const QCommandLineOption showOption(
      QStringLiteral("show"),
      QStringLiteral(
          "Bring the panel NAME to the front (its title, e.g. Persistence); repeatable."),
      QStringLiteral("NAME"));
  const QCommandLineOption threadsOption(
      QStringLiteral("threads"),
      QStringLiteral("Use N threads for forward passes and analysis (default: every core; "
                     "SINKSCOPE_THREADS=N does the same)."),
      QStringLiteral("N"));
  parser.addOptions({modelOption, textOption, screenshotOption, deviceOption, resetLayoutOption,
                     showOption, threadsOption});
  parser.process(app);
  if (const std::string error = sinkscope::models::apply_thread_environment(); !error.empty()) {
    std::fprintf(stderr, "sinkscope: %s\n", error.c_str());
    return 2;
  }
  if (parser.isSet(threadsOption)) {
    bool ok = false;
    const int threads = parser.value(threadsOption).toInt(&ok);
    if (!ok || threads < 1 || threads > 1024) {
      std::fprintf(stderr, "sinkscope: --threads: \"%s\" is not a thread count from 1 to 1024\n",
                   qPrintable(parser.value(threadsOption)));
      return 2;
    }
    sinkscope::models::set_cpu_threads(threads);
  }

  sinkscope::ui::MainWindow window;
  window.setDevice(parser.value(deviceOption));
  const QString builtins = builtin_models_dir();
  window.setBuiltinModelsDir(builtins);
  const QString defaultModel =
      builtins.isEmpty() ? QString() : QDir(builtins).filePath(QLatin1String(kDefaultModel));
  if (parser.isSet(resetLayoutOption)) window.resetLayout();
  if (parser.isSet(textOption)) window.setSentence(parser.value(textOption));
  window.show();
  for (const QString& name : parser.values(showOption)) {
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
  // Opening a model runs the sentence on it; without one, run the baseline now.
  if (parser.isSet(modelOption))
    window.openModelFolder(parser.value(modelOption));
  else if (QFileInfo::exists(defaultModel + QStringLiteral("/config.json")))
    window.openModelFolder(defaultModel);
  else
    window.runSentence();

  if (!parser.isSet(screenshotOption)) return app.exec();

  // Screenshot mode: wait for the run (and the model, if any) and a rendered
  // frame, then grab. Give up after 60 s rather than hang a setup script.
  const QString path = parser.value(screenshotOption);
  int exitCode = 1;
  bool grabbing = false;
  auto grabWhenReady = [&] {
    if (grabbing) return;
    grabbing = true;
    QTimer::singleShot(400, &window, [&] {
      exitCode = save_screenshot(window, path);
      app.quit();
    });
  };
  QObject::connect(window.jobs(), &sinkscope::ui::JobRunner::idle, &window, grabWhenReady);
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
    std::fprintf(stderr, "sinkscope: --screenshot: the window did not finish within 60 s\n");
    app.exit(1);
  });
  app.exec();
  return exitCode;
}
