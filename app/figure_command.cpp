#include "app/figure_command.h"

#include <algorithm>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMap>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <cmath>
#include <cstdio>
#include <optional>

#include "app/command_options.h"
#include "app/gui_support.h"
#include "models/cpu_runtime.h"
#include "models/input_files.h"
#include "render/panel_export.h"
#include "ui/figure_request.h"
#include "ui/job_runner.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"
#include "ui/session.h"

namespace sinkscope::app {

namespace {

struct FigureOptionsLine {
  QCommandLineOption session{QStringLiteral("session"),
                             QStringLiteral("Make the figure of the session FILE (.sinkscope)."),
                             QStringLiteral("FILE")};
  QCommandLineOption text{QStringLiteral("text"),
                          QStringLiteral("The sentence (with MODEL; default: the window's)."),
                          QStringLiteral("SENTENCE")};
  QCommandLineOption panel{QStringLiteral("panel"),
                           QStringLiteral("A panel or view of the figure; repeat for several "
                                          "(a), (b), ... (see the list below)."),
                           QStringLiteral("NAME")};
  QCommandLineOption out{QStringLiteral("out"),
                         QStringLiteral("The figure: .pdf, .svg, .png (one view: also .csv)."),
                         QStringLiteral("FILE")};
  QCommandLineOption force{QStringLiteral("force"),
                           QStringLiteral("Replace --out when it exists (a regular file only).")};
  QCommandLineOption format{QStringLiteral("format"),
                            QStringLiteral("pdf, svg, png or csv: must match --out's suffix."),
                            QStringLiteral("FORMAT")};
  QCommandLineOption preset{
      QStringLiteral("preset"),
      QStringLiteral("one-column (85 mm, default), two-columns (178 mm), slide (16:9) or screen."),
      QStringLiteral("PRESET"), QStringLiteral("one-column")};
  QCommandLineOption widthMm{QStringLiteral("width-mm"),
                             QStringLiteral("A custom width in mm (with --height-mm)."),
                             QStringLiteral("MM")};
  QCommandLineOption heightMm{QStringLiteral("height-mm"),
                              QStringLiteral("A custom height in mm (with --width-mm)."),
                              QStringLiteral("MM")};
  QCommandLineOption dpi{QStringLiteral("dpi"), QStringLiteral("PNG resolution (300)."),
                         QStringLiteral("DPI"), QStringLiteral("300")};
  QCommandLineOption fontPt{QStringLiteral("font-pt"),
                            QStringLiteral("Text size in points (the preset's by default)."),
                            QStringLiteral("PT")};
  QCommandLineOption transparent{QStringLiteral("transparent"),
                                 QStringLiteral("No background.")};
  QCommandLineOption title{
      QStringLiteral("title"),
      QStringLiteral("A title drawn above the figure. Paper presets draw none otherwise (a "
                     "caption says what a figure is); the views' own titles, with the model and "
                     "place, are in the file's metadata and the CSV."),
      QStringLiteral("TEXT")};
  QCommandLineOption visibleSpaces{QStringLiteral("visible-spaces"),
                                   QStringLiteral("Token labels show spaces as \u2423.")};
  QCommandLineOption columns{QStringLiteral("columns"),
                             QStringLiteral("Views per row of a figure of several (default: one row)."),
                             QStringLiteral("N"), QStringLiteral("0")};
  QCommandLineOption layer{QStringLiteral("layer"), QStringLiteral("Select layer L."),
                           QStringLiteral("L")};
  QCommandLineOption head{QStringLiteral("head"), QStringLiteral("Select head H, or avg."),
                          QStringLiteral("H")};
  QCommandLineOption query{QStringLiteral("query"), QStringLiteral("Select query token Q."),
                           QStringLiteral("Q")};
  QCommandLineOption key{QStringLiteral("key"), QStringLiteral("Select key token K."),
                         QStringLiteral("K")};
  QCommandLineOption threshold{QStringLiteral("threshold"),
                               QStringLiteral("The graph threshold theta (0 to 1)."),
                               QStringLiteral("THETA")};
  QCommandLineOption topN{QStringLiteral("top-n"), QStringLiteral("N, the top keys of value space."),
                          QStringLiteral("N")};
  QCommandLineOption azimuth{QStringLiteral("azimuth"),
                             QStringLiteral("3-D views: turn the camera by DEG about the up axis."),
                             QStringLiteral("DEG")};
  QCommandLineOption elevation{QStringLiteral("elevation"),
                               QStringLiteral("3-D views: raise the camera by DEG."),
                               QStringLiteral("DEG")};
  QCommandLineOption compareSentence{
      QStringLiteral("compare-sentence"),
      QStringLiteral("Compare with SENTENCE (B) on the same model, side by side by default."),
      QStringLiteral("SENTENCE")};
  QCommandLineOption compareModel{
      QStringLiteral("compare-model"),
      QStringLiteral("Compare with the model DIR (B) on the same sentence (any shape: layers "
                     "by relative depth)."),
      QStringLiteral("DIR")};
  QCommandLineOption compareLayer{QStringLiteral("compare-layer"),
                                  QStringLiteral("Pin B at its layer N (default: the same relative depth)."),
                                  QStringLiteral("N")};
  QCommandLineOption compareHead{
      QStringLiteral("compare-head"),
      QStringLiteral("Pin B at its head N or avg (default: the selected head when B's layers have "
                     "as many heads, else B's average)."),
      QStringLiteral("N|avg")};
  QCommandLineOption comparison{
      QStringLiteral("comparison"),
      QStringLiteral("What a comparison shows: a, b, difference (same tokens) or side-by-side "
                     "(default)."),
      QStringLiteral("WHAT")};
  QCommandLineOption device{QStringLiteral("device"), QStringLiteral("cpu (default) or cuda."),
                            QStringLiteral("DEVICE"), QStringLiteral("cpu")};
  QCommandLineOption threads{QStringLiteral("threads"), QStringLiteral("Use N threads."),
                             QStringLiteral("N")};
  QCommandLineOption timeout{
      QStringLiteral("timeout"),
      QStringLiteral("Give up after SECONDS (default 1800) if the run has not finished."),
      QStringLiteral("SECONDS"), QStringLiteral("1800")};

  explicit FigureOptionsLine(QCommandLineParser& parser) {
    QString panels;
    for (const ui::FigurePanelName& p : ui::figure_panel_names())
      panels += QStringLiteral("\n  %1: %2 (views: %3)")
                    .arg(p.name, p.description, p.views.join(QStringLiteral(", ")));
    parser.setApplicationDescription(
        QStringLiteral("sinkscope figure: a figure of SinkScope's panels without a display.\n"
                       "Usage: sinkscope figure (--session FILE | [MODEL] [--text SENTENCE] "
                       "[--compare-sentence S | --compare-model DIR]) --panel NAME [--panel NAME "
                       "...] --out FILE\nMODEL is a model folder or a Hugging Face cache name "
                       "(default: the built-in model).\nPanels:") +
        panels);
    parser.addHelpOption();
    parser.addOptions({session, text, panel, out, force, format, preset, widthMm, heightMm, dpi, fontPt,
                       transparent, title, visibleSpaces, columns, layer, head, query, key, threshold,
                       topN, azimuth, elevation, compareSentence, compareModel, compareLayer,
                       compareHead, comparison, device, threads, timeout});
    parser.addPositionalArgument(QStringLiteral("MODEL"),
                                 QStringLiteral("A model folder or cache name."),
                                 QStringLiteral("[MODEL]"));
  }
};

render::FigureOptions figure_options(const QCommandLineParser& parser, const FigureOptionsLine& o) {
  render::FigureOptions options = preset_named(parser.value(o.preset), int_option(parser, o.dpi, 10, 2400));
  if (parser.isSet(o.widthMm) != parser.isSet(o.heightMm))
    throw BadCommandLine{QStringLiteral("--width-mm and --height-mm go together")};
  if (parser.isSet(o.widthMm)) {
    options.widthMm = real_option(parser, o.widthMm, 10, 2000);
    options.heightMm = real_option(parser, o.heightMm, 10, 2000);
    if (options.fontPt <= 0) options.fontPt = 8.0;
  }
  if (parser.isSet(o.fontPt)) options.fontPt = real_option(parser, o.fontPt, 4, 72);
  options.transparent = parser.isSet(o.transparent);
  options.visibleSpaces = parser.isSet(o.visibleSpaces);
  if (parser.isSet(o.title)) {
    options.title = parser.value(o.title);
    if (options.title.size() > 300 ||
        std::any_of(options.title.begin(), options.title.end(), [](QChar c) { return c.category() == QChar::Other_Control; }))
      throw BadCommandLine{QStringLiteral("--title: at most 300 characters, no control characters")};
  }
  return options;
}

ui::FigureRequest figure_request(const QCommandLineParser& parser, const FigureOptionsLine& o) {
  ui::FigureRequest r;
  r.names = parser.values(o.panel);
  if (r.names.isEmpty()) throw BadCommandLine{QStringLiteral("give the figure's panels with --panel NAME")};
  try {
    ui::figure_views_of(r.names);
  } catch (const std::invalid_argument& e) {
    throw BadCommandLine{QString::fromUtf8(e.what())};
  }
  r.out = parser.value(o.out);
  if (r.out.isEmpty()) throw BadCommandLine{QStringLiteral("give the figure's file with --out FILE")};
  const QString suffix = QFileInfo(r.out).suffix().toLower();
  if (!QStringList{QStringLiteral("pdf"), QStringLiteral("svg"), QStringLiteral("png"),
                   QStringLiteral("csv")}
           .contains(suffix))
    throw BadCommandLine{QStringLiteral("--out %1: name a .pdf, .svg, .png or .csv file").arg(r.out)};
  if (parser.isSet(o.format) && parser.value(o.format).toLower() != suffix)
    throw BadCommandLine{QStringLiteral("--format %1, but --out names a .%2 file")
                      .arg(parser.value(o.format), suffix)};
  r.options = figure_options(parser, o);
  r.force = parser.isSet(o.force);
  // Refused now, not after the model has run: what exists, links, FIFOs,
  // devices, and a PNG too large to draw.
  try {
    render::figure_output_check(r.out, r.force);
    constexpr double kPointsPerMm = 72.0 / 25.4;
    if (suffix == QLatin1String("png") && r.options.widthMm > 0)
      render::figure_check_pixels(r.options.widthMm * kPointsPerMm,
                                  r.options.heightMm * kPointsPerMm, r.options.dpi);
  } catch (const std::exception& e) {
    throw BadCommandLine{QStringLiteral("--out %1: %2").arg(r.out, QString::fromUtf8(e.what()))};
  }
  r.columns = int_option(parser, o.columns, 0, 26);
  constexpr int kMaxIndex = 1 << 20;
  if (parser.isSet(o.layer)) r.layer = int_option(parser, o.layer, 0, kMaxIndex);
  if (parser.isSet(o.head))
    r.head = head_option(parser, o.head, kMaxIndex);
  if (parser.isSet(o.query)) r.query = int_option(parser, o.query, 0, kMaxIndex);
  if (parser.isSet(o.key)) r.key = int_option(parser, o.key, 0, kMaxIndex);
  if (parser.isSet(o.threshold)) r.threshold = real_option(parser, o.threshold, 0, 1);
  if (parser.isSet(o.topN)) r.topN = int_option(parser, o.topN, 1, kMaxIndex);
  if (parser.isSet(o.azimuth) || parser.isSet(o.elevation))
    r.camera = render::scene_camera_from_angles(
        parser.isSet(o.azimuth) ? real_option(parser, o.azimuth, -360, 360) : 0.0,
        parser.isSet(o.elevation) ? real_option(parser, o.elevation, -90, 90) : 0.0);
  if (parser.isSet(o.compareSentence) && parser.isSet(o.compareModel))
    throw BadCommandLine{QStringLiteral("give --compare-sentence or --compare-model, not both")};
  if (parser.isSet(o.compareSentence) && parser.value(o.compareSentence).trimmed().isEmpty())
    throw BadCommandLine{QStringLiteral("--compare-sentence: nothing to compare with (the sentence is blank)")};
  if (parser.isSet(o.compareLayer)) r.compareLayer = int_option(parser, o.compareLayer, 0, kMaxIndex);
  if (parser.isSet(o.compareHead))
    r.compareHead = head_option(parser, o.compareHead, kMaxIndex);
  if (parser.isSet(o.comparison)) {
    static const QMap<QString, QString> kNames{{QStringLiteral("a"), QStringLiteral("before")},
                                               {QStringLiteral("b"), QStringLiteral("after")},
                                               {QStringLiteral("difference"), QStringLiteral("difference")},
                                               {QStringLiteral("side-by-side"), QStringLiteral("side_by_side")}};
    r.comparison = kNames.value(parser.value(o.comparison).toLower());
    if (r.comparison.isEmpty())
      throw BadCommandLine{QStringLiteral("--comparison %1: give a, b, difference or side-by-side")
                               .arg(parser.value(o.comparison))};
  }
  return r;
}

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
  // The arguments as given: QApplication takes some out of argv (X11's
  // -session among them), and --session is ours.
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  // Sentences as given, byte for byte: Qt would put U+FFFD for a bad byte.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    for (const std::string name : {"--text", "--compare-sentence"}) {
      const bool joined = a.rfind(name + "=", 0) == 0;
      if (a != name && !joined) continue;
      const std::string value = joined ? a.substr(name.size() + 1) : (i + 1 < argc ? argv[i + 1] : "");
      try {
        models::input_text_check(value, name);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "sinkscope figure: %s\n", e.what());
        return 2;
      }
    }
  }
  QApplication app(argc, argv);
  name_application();
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
  QCommandLineParser parser;
  const FigureOptionsLine o(parser);
  parser.process(arguments);  // --help prints and exits

  ui::FigureRequest request;
  std::optional<ui::Session> session;
  int timeoutSeconds = 0;
  try {
    request = figure_request(parser, o);
    timeoutSeconds = int_option(parser, o.timeout, 1, 7 * 24 * 3600);
    if (parser.positionalArguments().size() > 1)
      throw BadCommandLine{QStringLiteral("give at most one MODEL")};
    if (parser.isSet(o.session)) {
      if (!parser.positionalArguments().isEmpty() || parser.isSet(o.text))
        throw BadCommandLine{QStringLiteral("--session names the model and the sentence: give no MODEL "
                                     "or --text with it")};
      if (parser.isSet(o.compareSentence) || parser.isSet(o.compareModel))
        throw BadCommandLine{QStringLiteral("--session names its comparison: give no --compare-sentence "
                                            "or --compare-model with it")};
      try {
        session = ui::session_read(parser.value(o.session));
      } catch (const ui::SessionError& e) {
        throw BadCommandLine{QString::fromUtf8(e.what())};
      }
    }
    if (parser.isSet(o.threads))
      models::set_cpu_threads(int_option(parser, o.threads, 1, 1024));
  } catch (const BadCommandLine& bad) {
    std::fprintf(stderr, "sinkscope figure: %s\n", qPrintable(bad.message));
    return 2;
  }

  ui::MainWindow window;
  window.setDevice(parser.value(o.device));
  const QString builtins = builtin_models_dir();
  window.setBuiltinModelsDir(builtins);
  int exitCode = 1;
  auto finish = [&](int code, const QString& message) {
    exitCode = code;
    if (!message.isEmpty())
      std::fprintf(code == 0 ? stdout : stderr, "%s%s\n", code == 0 ? "" : "sinkscope figure: ",
                   qPrintable(message));
    app.exit(code);
  };
  QObject::connect(window.jobs(), &ui::JobRunner::jobFailed, &window,
                   [&](quint64, const QString& name, const QString& message, const QString&) {
                     finish(1, QStringLiteral("%1: %2").arg(name, message));
                   });
  QObject::connect(&window, &ui::MainWindow::figureWritten, &window,
                   [&](bool ok, const QString& pathOrReason) {
                     if (ok && !window.lastExportNote().isEmpty())
                       std::fprintf(stderr, "sinkscope figure: note: %s\n",
                                    qPrintable(window.lastExportNote()));
                     finish(ok ? 0 : 1, ok ? QStringLiteral("Figure: %1").arg(
                                                 QFileInfo(pathOrReason).absoluteFilePath())
                                           : pathOrReason);
                   });
  auto makeFigure = [&] {
    if (!window.lastSessionPlacesOutside().isEmpty()) {
      finish(2, window.lastSessionPlacesOutside());  // a figure of another place than asked
      return;
    }
    if (!window.lastSessionWarning().isEmpty())
      std::fprintf(stderr, "sinkscope figure: warning: %s\n",
                   qPrintable(window.lastSessionWarning()));
    window.writeFigureWhenReady(request);
  };
  if (session) {
    QObject::connect(&window, &ui::MainWindow::sessionApplied, &window, makeFigure,
                     Qt::SingleShotConnection);
    window.openSession(parser.value(o.session));
  } else {
    QObject::connect(&window, &ui::MainWindow::analysisFinished, &window, makeFigure,
                     Qt::SingleShotConnection);
    if (parser.isSet(o.text)) window.setSentence(parser.value(o.text));
    const QString model = parser.positionalArguments().isEmpty()
                              ? default_model_folder(builtins)
                              : parser.positionalArguments().front();
    if (model.isEmpty()) {
      std::fprintf(stderr, "sinkscope figure: no MODEL given and no built-in model found\n");
      return 2;
    }
    window.openModelFolder(model);
    if (parser.isSet(o.compareSentence)) window.compareWithSentence(parser.value(o.compareSentence));
    if (parser.isSet(o.compareModel)) window.compareWithModel(parser.value(o.compareModel));
  }
  QTimer::singleShot(timeoutSeconds * 1000, &window, [&] {
    finish(1, QStringLiteral("the run did not finish within %1 s (--timeout)").arg(timeoutSeconds));
  });
  app.exec();
  window.jobs()->cancelAll();
  return exitCode;
}

}  // namespace sinkscope::app
