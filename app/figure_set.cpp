#include "app/figure_set.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "analysis/table_io.h"
#include "app/figure_set_data.h"
#include "app/gui_support.h"
#include "models/corpus.h"
#include "models/loaded_model.h"
#include "render/figure_part.h"
#include "render/line_plot_view.h"
#include "render/panel_export.h"

namespace sinkscope::app {

namespace {

render::LinePlotData plot_data(const SetFigure& f) {
  render::LinePlotData d;
  d.title = QString::fromStdString(f.title);
  d.xLabel = QString::fromStdString(f.xLabel);
  d.yLabel = QString::fromStdString(f.yLabel);
  d.integerX = f.integerX;
  d.includeZero = f.includeZero;
  d.xPadding = f.xPadding;
  for (const SetCurve& c : f.curves) {
    render::LineSeries s{QString::fromStdString(c.name), c.x, c.y, c.reference};
    s.dashed = c.dashed;
    s.scatter = c.scatter;
    s.colourOf = c.colourOf;
    s.markers = c.markers;
    s.inLegend = c.inLegend;
    d.series.push_back(std::move(s));
  }
  return d;
}

int usage_error(const QString& message) {
  std::fprintf(stderr, "sinkscope figure-set: %s\n", qPrintable(message));
  return 2;
}

}  // namespace

int figure_set_command(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QTemporaryDir runtime;
  if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) qputenv("XDG_RUNTIME_DIR", runtime.path().toLocal8Bit());
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  QApplication app(argc, argv);
  name_application();
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "sinkscope figure-set: the figure kinds of the seed papers for a sentence file, pooled over "
      "its sentences, each as PDF (and PNG with --png) with the CSV of its numbers:\n"
      "  key_importance_by_layer  alpha_k by position per layer, uniform baseline (003, Gu et al.)\n"
      "  betti0_by_layer, betti1_by_layer  Betti curves per layer (000); reference_frame.csv: the frame and its evidence\n"
      "  fn_against_n_by_layer    F_N against N per layer with the random baseline (004)\n"
      "  taxonomy_by_layer        Retriever / Mixer / Reset shares per layer (004)\n"
      "  sparsification           dNLL against the share of heads kept, per ranking (004)\n"
      "  bos_removal              NLL change of removing the BOS token, per sentence (003)\n"
      "The last two need a model with an output head.\n"
      "Usage: sinkscope figure-set [MODEL] --sentences FILE --out DIR"));
  parser.addHelpOption();
  const QCommandLineOption sentencesOption{QStringLiteral("sentences"),
                                           QStringLiteral("One sentence per line, or JSONL with \"text\"."),
                                           QStringLiteral("FILE")};
  const QCommandLineOption outOption{QStringLiteral("out"), QStringLiteral("The folder to write."),
                                     QStringLiteral("DIR")};
  const QCommandLineOption maxOption{QStringLiteral("max-sentences"),
                                     QStringLiteral("Use the first N sentences (default 200)."),
                                     QStringLiteral("N"), QStringLiteral("200")};
  const QCommandLineOption layersOption{QStringLiteral("layers-shown"),
                                        QStringLiteral("Curves per plot (default 8 layers, evenly spread)."),
                                        QStringLiteral("N"), QStringLiteral("8")};
  const QCommandLineOption sparsifyOption{
      QStringLiteral("sparsification-sentences"),
      QStringLiteral("Sentences whose head ablation gives the sparsification curves (default 2)."),
      QStringLiteral("N"), QStringLiteral("2")};
  const QCommandLineOption presetOption{QStringLiteral("preset"),
                                        QStringLiteral("one-column (default), two-columns or slide."),
                                        QStringLiteral("PRESET"), QStringLiteral("one-column")};
  const QCommandLineOption pngOption{QStringLiteral("png"), QStringLiteral("Also a PNG of every figure at DPI."),
                                     QStringLiteral("DPI")};
  const QCommandLineOption forceOption{QStringLiteral("force"), QStringLiteral("Replace existing files.")};
  parser.addOptions({sentencesOption, outOption, maxOption, layersOption, sparsifyOption, presetOption,
                     pngOption, forceOption});
  parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A model folder or cache name."),
                               QStringLiteral("[MODEL]"));
  parser.process(arguments);

  if (!parser.isSet(sentencesOption) || !parser.isSet(outOption))
    return usage_error(QStringLiteral("give --sentences FILE and --out DIR"));
  if (parser.positionalArguments().size() > 1) return usage_error(QStringLiteral("give at most one MODEL"));
  auto count = [&](const QCommandLineOption& o, int lo, int hi) {
    bool ok = false;
    const int v = parser.value(o).toInt(&ok);
    return ok && v >= lo && v <= hi ? v : -1;
  };
  const int maxSentences = count(maxOption, 1, 1000000), layersShown = count(layersOption, 1, 64),
            sparsify = count(sparsifyOption, 0, 1000);
  if (maxSentences < 0 || layersShown < 0 || sparsify < 0)
    return usage_error(QStringLiteral("--max-sentences, --layers-shown and --sparsification-sentences "
                                      "take whole numbers (1..1000000, 1..64, 0..1000)"));
  render::FigureOptions options;
  const QString preset = parser.value(presetOption);
  if (preset == QLatin1String("one-column"))
    options = render::figure_preset(render::FigurePreset::OneColumn);
  else if (preset == QLatin1String("two-columns"))
    options = render::figure_preset(render::FigurePreset::TwoColumns);
  else if (preset == QLatin1String("slide"))
    options = render::figure_preset(render::FigurePreset::Slide);
  else
    return usage_error(QStringLiteral("--preset: \"%1\" is not one-column, two-columns or slide").arg(preset));
  int pngDpi = 0;
  if (parser.isSet(pngOption) && (pngDpi = count(pngOption, 10, 2400)) < 0)
    return usage_error(QStringLiteral("--png: a DPI from 10 to 2400"));

  const std::filesystem::path out = parser.value(outOption).toStdString();
  const bool force = parser.isSet(forceOption);
  try {
    std::vector<std::string> sentences =
        models::corpus_read_sentences(parser.value(sentencesOption).toStdString());
    if (sentences.empty())
      return usage_error(parser.value(sentencesOption) + QStringLiteral(": no sentences (every line is empty)"));
    if (sentences.size() > static_cast<std::size_t>(maxSentences)) sentences.resize(static_cast<std::size_t>(maxSentences));
    const QString modelName = parser.positionalArguments().isEmpty()
                                  ? default_model_folder(builtin_models_dir())
                                  : parser.positionalArguments().front();
    if (modelName.isEmpty()) return usage_error(QStringLiteral("no MODEL given and no built-in model found"));
    const models::LoadedModel model = models::loaded_model_open(modelName.toStdString());
    FigureSetParams params;
    params.shownLayers = layersShown;
    params.sparsificationSentences = sparsify;
    std::fprintf(stderr, "sinkscope figure-set: %zu sentences on %s\n", sentences.size(),
                 model.name.c_str());
    const std::vector<SetFigure> figures =
        figure_set(model, sentences, params, [&](std::size_t done) {
          std::fprintf(stderr, "  %zu / %zu sentences analysed\n", done, sentences.size());
        });
    std::filesystem::create_directories(out);
    for (const SetFigure& f : figures) {
      analysis::CsvTable table = f.table;
      table.comments.insert(table.comments.begin(),
                            {{"tool", "sinkscope figure-set " SINKSCOPE_VERSION},
                             {"model", model.name},
                             {"sentences", parser.value(sentencesOption).toStdString() + " (first " +
                                               std::to_string(sentences.size()) + ")"},
                             {"figure", f.title.empty() ? f.file : f.title}});
      const std::filesystem::path csv = out / (f.file + ".csv");
      analysis::output_check_replaceable(csv, force);
      analysis::file_write_atomic(csv, analysis::csv_render(table), force);
      std::printf("%s\n", csv.string().c_str());
      if (f.curves.empty() && f.title.empty()) continue;  // a table only
      render::LinePlotView view;
      view.resize(640, 480);
      view.setData(plot_data(f));
      const QString pdf = QString::fromStdString((out / (f.file + ".pdf")).string());
      render::figure_part_export(*render::figure_part(&view), pdf, options, {}, force);
      std::printf("%s\n", qPrintable(pdf));
      if (pngDpi > 0) {
        render::FigureOptions png = options;
        png.dpi = pngDpi;
        const QString file = QString::fromStdString((out / (f.file + ".png")).string());
        render::figure_part_export(*render::figure_part(&view), file, png, {}, force);
        std::printf("%s\n", qPrintable(file));
      }
    }
  } catch (const models::ModelInputError& e) {
    std::fprintf(stderr, "sinkscope figure-set: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sinkscope figure-set: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace sinkscope::app
