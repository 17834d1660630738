#include "app/command_options.h"

#include <cmath>

#include "ui/selection_model.h"

namespace sinkscope::app {

double real_option(const QCommandLineParser& parser, const QCommandLineOption& option, double lo,
                   double hi) {
  bool ok = false;
  const double v = parser.value(option).toDouble(&ok);
  if (!ok || !std::isfinite(v) || v < lo || v > hi)
    throw BadCommandLine{QStringLiteral("--%1: \"%2\" is not a number from %3 to %4")
                             .arg(option.names().front(), parser.value(option))
                             .arg(lo)
                             .arg(hi)};
  return v;
}

int int_option(const QCommandLineParser& parser, const QCommandLineOption& option, int lo, int hi) {
  bool ok = false;
  const int v = parser.value(option).toInt(&ok);
  if (!ok || v < lo || v > hi)
    throw BadCommandLine{QStringLiteral("--%1: \"%2\" is not a whole number from %3 to %4")
                             .arg(option.names().front(), parser.value(option))
                             .arg(lo)
                             .arg(hi)};
  return v;
}

int head_option(const QCommandLineParser& parser, const QCommandLineOption& option, int hi) {
  if (parser.value(option) == QLatin1String("avg")) return ui::SelectionModel::kHeadAverage;
  try {
    return int_option(parser, option, 0, hi);
  } catch (BadCommandLine& bad) {
    bad.message += QStringLiteral(", or avg");
    throw;
  }
}

render::FigureOptions preset_named(const QString& name, int dpi) {
  if (name == QLatin1String("one-column")) return render::figure_preset(render::FigurePreset::OneColumn, dpi);
  if (name == QLatin1String("two-columns")) return render::figure_preset(render::FigurePreset::TwoColumns, dpi);
  if (name == QLatin1String("slide")) return render::figure_preset(render::FigurePreset::Slide, dpi);
  if (name == QLatin1String("screen")) return render::figure_preset(render::FigurePreset::Screen, dpi);
  throw BadCommandLine{
      QStringLiteral("--preset: \"%1\" is not one-column, two-columns, slide or screen").arg(name)};
}

}  // namespace sinkscope::app
