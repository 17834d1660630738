#include "render/panel_export.h"
#include "render/token_label.h"

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QHashFunctions>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>

#include "models/io/table_io.h"
#include "models/views/colours.h"
#include "models/views/view_json.h"
#include "render/figure_part.h"
#include "render/heat_map_view.h"
#include "render/label_layout.h"
#include "render/line_plot_view.h"
#include "render/qcustomplot_include.h"
#include "render/scene_view.h"
#include "render/text_wrap.h"

namespace sinkscope::render {

void figure_output_check(const QString& path, bool overwrite) {
  io::output_check_replaceable(std::filesystem::path(path.toStdString()), overwrite);
}

void figure_check_pixels(double widthPt, double heightPt, int dpi) {
  const double scale = dpi / 72.0;
  const double w = std::round(widthPt * scale), h = std::round(heightPt * scale);
  if (w * h <= kFigureMaxPixels && w <= kFigureMaxSide && h <= kFigureMaxSide) return;
  throw std::invalid_argument(
      QStringLiteral("a PNG of %1 x %2 mm at %3 dpi would be %4 x %5 pixels; the most is %6 "
                     "million pixels and %7 on a side (lower --dpi or the size)")
          .arg(widthPt * 25.4 / 72.0, 0, 'f', 0)
          .arg(heightPt * 25.4 / 72.0, 0, 'f', 0)
          .arg(dpi)
          .arg(w, 0, 'f', 0)
          .arg(h, 0, 'f', 0)
          .arg(kFigureMaxPixels / 1e6, 0, 'f', 0)
          .arg(kFigureMaxSide, 0, 'f', 0)
          .toStdString());
}

namespace {

// A panel's CSV is in the dialect of every table SinkScope writes
// (models/io/table_io.h): fields quoted where they must be (commas, quotes,
// line breaks), numbers in the shortest form that reads back the same
// double, NaN (undefined) as an empty field.
void append_row(std::string& out, const std::vector<std::string>& fields) {
  io::csv_append_row(out, fields);
}

std::string text(const QString& s) { return s.toStdString(); }

std::string number(double v) { return io::csv_number_or_empty(v); }

std::string whole(long long v) { return std::to_string(v); }

void write_atomic(const QString& path, const QByteArray& bytes, bool overwrite) {
  figure_output_check(path, overwrite);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw std::runtime_error(path.toStdString() + ": cannot write (" +
                             file.errorString().toStdString() + ")");
  // A short write (a full disk) must never be renamed into place as the
  // figure. A write that fits QSaveFile's buffer reports success; the disk's
  // refusal surfaces only at the flush, which commit() does not check.
  errno = 0;
  if (file.write(bytes) != bytes.size() || !file.flush() || file.error() != QFileDevice::NoError) {
    // The system's reason (EFBIG, ENOSPC) where Qt's flush leaves none.
    const std::string why = errno != 0 ? std::strerror(errno) : file.errorString().toStdString();
    file.cancelWriting();
    throw std::runtime_error(path.toStdString() + ": write failed (" + why + ")");
  }
  figure_output_check(path, overwrite);  // nothing else appeared meanwhile
  if (!file.commit())
    throw std::runtime_error(path.toStdString() + ": cannot write (" +
                             file.errorString().toStdString() + ")");
}

// One line per comment, as io's tables write them: a line break would start a row.
QString header(const QStringList& comments) {
  std::string s;
  for (const QString& c : comments) s += "# " + io::csv_one_line(c.toStdString()) + "\n";
  return QString::fromStdString(s);
}

QColor to_qcolor(const views::Rgb& c) {
  return QColor::fromRgbF(static_cast<float>(c.r), static_cast<float>(c.g),
                          static_cast<float>(c.b));
}

QColor viridis(double t) { return to_qcolor(views::colormap_viridis(t)); }

constexpr double kMmPerPoint = 25.4 / 72.0;

// What the painters need of FigureOptions: fonts and labels.
struct Style {
  double fontPt = 8.0;
  QString family;
  bool transparent = false;
  bool visibleSpaces = false;
  double titleIndent = 0.0;  // room left of a title for a sub-figure's letter
  // Screen-sized figures draw each view's own title; a paper's figures none
  // (its caption says what the figure is) unless the options give one.
  bool viewTitles = true;
  QString title;
  double k() const { return fontPt / 8.0; }  // margins grow with the text
  QFont font(double extra = 0.0) const {
    QFont f(family);
    f.setPointSizeF(fontPt + extra);
    return f;
  }
  QString label(const QString& text) const { return figure_label(text, visibleSpaces); }
};

Style style_of(const FigureOptions& o) {
  Style s;
  s.fontPt = o.fontPt > 0 ? o.fontPt : 8.0;
  s.family = o.fontFamily.isEmpty() ? QStringLiteral("DejaVu Sans") : o.fontFamily;
  s.transparent = o.transparent;
  s.visibleSpaces = o.visibleSpaces;
  s.viewTitles = o.widthMm <= 0 || o.heightMm <= 0;
  s.title = o.title;
  return s;
}

// The title a view draws in a figure: its own on screen-sized figures, the
// options' on a paper's, else none.
QString drawn_title(const QString& viewTitle, const Style& st) {
  return st.viewTitles ? viewTitle : st.title;
}

// A device of 72 dots per inch (one dot, one point): the figure's units, for
// measuring text before there is a page to draw on.
const QPaintDevice* figure_units() {
  static QImage page = [] {
    QImage image(1, 1, QImage::Format_RGB32);
    image.setDotsPerMeterX(static_cast<int>(std::lround(72.0 / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(72.0 / 0.0254)));
    return image;
  }();
  return &page;
}

// The figure's size in points: the options' millimetres, else `fallback`.
QSize figure_size(const FigureOptions& o, QSize fallback) {
  if (o.widthMm <= 0 || o.heightMm <= 0) return fallback;
  return {static_cast<int>(std::lround(o.widthMm / kMmPerPoint)),
          static_cast<int>(std::lround(o.heightMm / kMmPerPoint))};
}

}  // namespace

// The ticks of a colour bar from lo to hi: round numbers (1, 2, 2.5 or 5
// times a power of ten) on a linear scale, at least 4 of them; on a log scale
// the decades, with 2 and 5 times them where fewer than two decades show.
std::vector<double> colour_bar_ticks(double lo, double hi, bool logScale) {
  std::vector<double> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return out;
  if (logScale && lo > 0) {
    const int first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
    const int last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
    const bool fine = last - first < 1;
    for (int e = first - 1; e <= last; ++e)
      for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    return out;
  }
  const double span = hi - lo;
  const double base = std::pow(10.0, std::floor(std::log10(span)));
  double step = base;
  for (double m : {2.0, 1.0, 0.5, 0.25, 0.2, 0.1}) {  // the largest step giving 4 ticks
    step = base * m;
    if (std::floor(hi / step + 1e-9) - std::ceil(lo / step - 1e-9) + 1 >= 4) break;
  }
  // Whole multiples of the step, written back through 12 digits: 0.6, not
  // 3 x 0.2 = 0.6000000000000001.
  const auto first = static_cast<long long>(std::ceil(lo / step - 1e-9));
  const auto last = static_cast<long long>(std::floor(hi / step + 1e-9));
  for (long long i = first; i <= last; ++i)
    out.push_back(std::stod(QString::number(static_cast<double>(i) * step, 'g', 12).toStdString()));
  return out;
}

namespace {

// Where a tick sits on the bar, 0 (bottom) to 1 (top).
double colour_bar_position(double v, double lo, double hi, bool logScale) {
  if (logScale && lo > 0 && hi > lo)
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return (v - lo) / std::max(hi - lo, 1e-300);
}

QString tick_text(double v) { return QString::number(v, 'g', 3); }

// A cell's colour as the view draws it: categories, log or linear scale, the
// diverging map for differences.
QColor heat_map_colour(const views::HeatMap& d, float value, double lo, double hi) {
  if (!d.categories.empty()) {
    const auto k = static_cast<std::size_t>(
        std::clamp(static_cast<int>(value), 0, static_cast<int>(d.categoryColours.size()) - 1));
    return to_qcolor(d.categoryColours[k]);
  }
  double t = (value - lo) / std::max(hi - lo, 1e-12);
  if (d.logScale && lo > 0 && hi > lo)
    t = (std::log10(std::max<double>(value, lo)) - std::log10(lo)) /
        (std::log10(hi) - std::log10(lo));
  t = std::clamp(t, 0.0, 1.0);
  return d.diverging ? to_qcolor(views::colormap_diverging(2 * t - 1)) : viridis(t);
}

// Where a heat map's parts go in a w x h logical area.
struct HeatMapLayout {
  bool labels = false, rightLabels = false;  // token labels; B's rows on the right (side by side)
  bool colTitle = false, rowTitle = false, sideBySide = false, categorical = false;
  double line = 0;  // a line of text
  QFont titleFont;
  QStringList titleLines;
  double titleRoom = 0, titleHeight = 0;
  std::vector<double> ticks;  // the colour bar's
  double tickWidth = 0, barWidth = 0;
  double rowLabelWidth = 0, rightLabelWidth = 0;
  double top = 0, x0 = 0, cell = 0, mapWidth = 0, mapHeight = 0;
  int step = 1;  // one label per `step` rows or columns
  QFont labelFont;       // the token labels' (smaller than the text where cells are small)
  double labelLine = 0;  // a line of it
};

// The layout with token labels of `labelPt` points.
HeatMapLayout heat_map_layout_at(QPainter& p, const views::HeatMap& d, double lo, double hi, int w,
                                 int h, const Style& st, double labelPt) {
  HeatMapLayout g;
  const double k = st.k();
  g.labels = !d.rowLabels.empty() && !d.colLabels.empty();
  g.rightLabels = g.labels && static_cast<int>(d.rightRowLabels.size()) == d.rows;
  const QFontMetricsF metrics(st.font(), p.device());
  g.line = metrics.height();
  g.labelFont = st.font();
  g.labelFont.setPointSizeF(labelPt);
  const QFontMetricsF labelMetrics(g.labelFont, p.device());
  g.labelLine = labelMetrics.height();
  auto widest = [&](const std::vector<std::string>& texts) {
    double most = 0;
    for (const std::string& t : texts)
      most = std::max(
          most, labelMetrics.horizontalAdvance(st.label(token_shown(QString::fromStdString(t)))));
    return most;
  };
  // The title in as many lines as the width needs (breaking at " | ").
  g.titleFont = st.font();
  g.titleFont.setBold(true);
  const QFontMetricsF titleMetrics(g.titleFont, p.device());
  g.titleRoom = w - 20 - st.titleIndent;
  const QString title = drawn_title(QString::fromStdString(d.title), st);
  if (!title.isEmpty())
    g.titleLines = text_wrap(
        title, [&](const QString& t) { return titleMetrics.horizontalAdvance(t); }, g.titleRoom);
  // Without a title, room for a sub-figure's letter only where there is one.
  g.titleHeight = !g.titleLines.isEmpty()
                      ? 6 * k + titleMetrics.lineSpacing() * g.titleLines.size() + 4 * k
                      : (st.titleIndent > 0 ? titleMetrics.lineSpacing() + 6 * k : 4 * k);
  g.categorical = !d.categories.empty();
  if (!g.categorical) g.ticks = colour_bar_ticks(lo, hi, d.logScale);
  for (double t : g.ticks)
    g.tickWidth = std::max(g.tickWidth, metrics.horizontalAdvance(tick_text(t)));
  g.barWidth = 10 * k;
  const double barBlock = g.categorical ? 12 * k + 12 * k + 4 * k + widest(d.categories) + 4 * k
                                        : 12 * k + g.barWidth + 3 * k + g.tickWidth + 4 * k +
                                              (d.quantity.empty() ? 0 : g.line + 2 * k);
  // Axis titles: the columns' above their labels, the rows' left of theirs.
  g.colTitle = g.labels && !d.colTitle.empty();
  g.rowTitle = g.labels && !d.rowTitle.empty();
  // Token labels take at most a quarter of the figure's width (rows) or
  // height (columns); a longer label is elided in its middle.
  g.rowLabelWidth = g.labels ? std::min(widest(d.rowLabels), 0.25 * w) : 0;
  const double left =
      (g.rowTitle ? g.line + 4 * k : 0) + (g.labels ? g.rowLabelWidth + 5 * k : 6 * k);
  g.top = g.titleHeight + (g.colTitle ? g.line + 2 * k : 0) +
          (g.labels ? std::min(widest(d.colLabels), 0.25 * h) + 5 * k : 2 * k);
  g.rightLabelWidth = g.rightLabels ? std::min(widest(d.rightRowLabels), 0.2 * w) : 0;
  const double right = (g.rightLabels ? g.rightLabelWidth + 8 * k : 0) + barBlock;
  g.sideBySide = d.sideBySideSplit >= 0 && d.sideBySideSplit < d.cols;
  // The lowest tick's label; side by side, a line for the runs' names under the halves.
  const double bottom =
      std::max(g.categorical ? 4 * k : g.line / 2 + 2 * k, g.sideBySide ? g.line + 4 * k : 0.0);
  g.cell = std::max(0.05, std::min((w - left - right) / std::max(1, d.cols),
                                   (h - g.top - bottom) / std::max(1, d.rows)));
  // The map centred in the room it leaves.
  g.x0 = left + std::max(0.0, (w - left - right - d.cols * g.cell) / 2);
  g.mapWidth = d.cols * g.cell;
  g.mapHeight = d.rows * g.cell;
  // Each label's line fits its cells.
  g.step = std::max(1, static_cast<int>(std::ceil(g.labelLine * 1.05 / g.cell - 1e-9)));
  return g;
}

// Where a heat map's parts go: token labels at the figure's text size where
// each fits its cell; else smaller, down to 70% of it (never under 5 pt),
// before only every k-th token is labelled. A reader needs every token of a
// short sentence.
HeatMapLayout heat_map_layout(QPainter& p, const views::HeatMap& d, double lo, double hi, int w,
                              int h, const Style& st) {
  const double floorPt = std::min(st.fontPt, std::max(5.0, 0.7 * st.fontPt));
  for (double pt = st.fontPt;; pt = std::max(floorPt, pt - 0.25)) {
    HeatMapLayout g = heat_map_layout_at(p, d, lo, hi, w, h, st, pt);
    if (g.step == 1 || pt <= floorPt) return g;
  }
}

// The cells, then the marks: framed cells (highlights) in orange, the
// selected cell in red, as on screen.
void paint_heat_map_cells(QPainter& p, const views::HeatMap& d, double lo, double hi,
                          const HeatMapLayout& g, double k) {
  p.setPen(Qt::NoPen);
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * d.cols + c;
      const bool hidden = !d.hidden.empty() && d.hidden[i];
      const QColor color = hidden ? QColor(225, 225, 225) : heat_map_colour(d, d.values[i], lo, hi);
      p.setBrush(color);
      // A hair wider than the cell: no seams between neighbours at any scale.
      p.drawRect(QRectF(g.x0 + c * g.cell, g.top + r * g.cell, g.cell + 0.4, g.cell + 0.4));
    }
  p.setBrush(Qt::NoBrush);
  auto frame = [&](int r, int c, const views::Rgb& colour, double width) {
    if (r < 0 || r >= d.rows || c < 0 || c >= d.cols) return;
    p.setPen(QPen(to_qcolor(colour), width * k));
    p.drawRect(QRectF(g.x0 + c * g.cell, g.top + r * g.cell, g.cell, g.cell));
  };
  for (const auto& [r, c] : d.framedCells) frame(r, c, views::kSelectedHighlight, 1.0);
  frame(d.outlineRow, d.outlineCol, views::kSinkHighlight, 1.5);
}

// Token labels (sink columns in red, highlighted tokens in orange) and the axis titles.
void paint_heat_map_labels(QPainter& p, const views::HeatMap& d, const HeatMapLayout& g,
                           const Style& st) {
  const double k = st.k(), line = g.labelLine, cell = g.cell, top = g.top, x0 = g.x0;
  const QFontMetricsF metrics(g.labelFont, p.device());
  p.setFont(g.labelFont);
  auto fitted = [&](const std::string& token, double room) {
    return metrics.elidedText(st.label(token_shown(QString::fromStdString(token))), Qt::ElideMiddle,
                              room);
  };
  auto labelPen = [&](bool column, bool rightSide, int index) {
    const bool marked =
        column && std::find(d.markedCols.begin(), d.markedCols.end(),
                            views::heat_map_own_column(d, index)) != d.markedCols.end();
    if (views::heat_map_label_lit(d, column, rightSide, index))
      return to_qcolor(views::kSelectedHighlight);
    if (marked) return to_qcolor(views::kSinkHighlight);
    return QColor(Qt::black);
  };
  for (int r = 0; r < d.rows; r += g.step) {
    p.setPen(labelPen(false, false, r));
    p.drawText(QRectF(x0 - g.rowLabelWidth - 3 * k, top + (r + 0.5) * cell - line / 2,
                      g.rowLabelWidth, line),
               Qt::AlignRight | Qt::AlignVCenter,
               fitted(d.rowLabels[static_cast<std::size_t>(r)], g.rowLabelWidth));
  }
  const double colLabelRoom = top - g.titleHeight - (g.colTitle ? g.line + 2 * k : 0) - 3 * k;
  for (int c = 0; c < d.cols; c += g.step) {
    p.save();
    p.setPen(labelPen(true, false, c));
    p.translate(x0 + (c + 0.5) * cell, top - 3 * k);
    p.rotate(-90);
    p.drawText(QRectF(0, -line / 2, colLabelRoom, line), Qt::AlignLeft | Qt::AlignVCenter,
               fitted(d.colLabels[static_cast<std::size_t>(c)], colLabelRoom));
    p.restore();
  }
  if (g.rightLabels)
    for (int r = 0; r < d.rows; r += g.step) {
      p.setPen(labelPen(false, true, r));
      p.drawText(QRectF(x0 + g.mapWidth + 3 * k, top + (r + 0.5) * cell - line / 2,
                        g.rightLabelWidth + 4 * k, line),
                 Qt::AlignLeft | Qt::AlignVCenter,
                 fitted(d.rightRowLabels[static_cast<std::size_t>(r)], g.rightLabelWidth));
    }
  p.setPen(Qt::black);
  p.setFont(st.font());  // the axis titles at the text's size
  if (g.colTitle)
    p.drawText(QRectF(x0, g.titleHeight, g.mapWidth, g.line), Qt::AlignHCenter | Qt::AlignTop,
               QString::fromStdString(d.colTitle));
  if (g.rowTitle) {
    p.save();
    p.translate(x0 - g.rowLabelWidth - 3 * k - 4 * k - g.line, top + g.mapHeight / 2);
    p.rotate(-90);
    p.drawText(QRectF(-g.mapHeight / 2, 0, g.mapHeight, g.line), Qt::AlignHCenter | Qt::AlignTop,
               QString::fromStdString(d.rowTitle));
    p.restore();
  }
}

// Side by side: each run's name centred under its half, shortened in the
// middle to the half and half the gap between the maps.
void paint_heat_map_run_names(QPainter& p, const views::HeatMap& d, const HeatMapLayout& g,
                              const Style& st) {
  QFont bold = st.font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(Qt::black);
  const QFontMetricsF boldMetrics(bold, p.device());
  auto name = [&](const std::string& text, double from, double to) {
    const double room = to - from;
    p.drawText(QRectF(from, g.top + g.mapHeight + 2 * st.k(), room, g.line),
               Qt::AlignHCenter | Qt::AlignTop,
               boldMetrics.elidedText(QString::fromStdString(text), Qt::ElideMiddle, room));
  };
  const int split = d.sideBySideSplit;
  name(d.leftRun, g.x0 - 0.5 * g.cell, g.x0 + (split + 0.5) * g.cell);
  name(d.rightRun, g.x0 + (split + 0.5) * g.cell, g.x0 + g.mapWidth + 0.5 * g.cell);
}

// A legend of named colours instead of a scale (categorical maps).
void paint_heat_map_categories(QPainter& p, const views::HeatMap& d, const HeatMapLayout& g,
                               double barX, int w, double k) {
  for (std::size_t c = 0; c < d.categories.size() && c < d.categoryColours.size(); ++c) {
    const double y = g.top + (g.line + 3 * k) * static_cast<double>(c);
    p.setPen(Qt::NoPen);
    p.setBrush(to_qcolor(d.categoryColours[c]));
    p.drawRect(QRectF(barX, y + (g.line - 9 * k) / 2, 9 * k, 9 * k));
    p.setPen(Qt::black);
    p.drawText(QRectF(barX + 12 * k, y, w - barX - 12 * k, g.line),
               Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(d.categories[c]));
  }
}

// The colour bar beside the map, as tall as it, with ticks and its quantity.
void paint_heat_map_colour_bar(QPainter& p, const views::HeatMap& d, double lo, double hi,
                               const HeatMapLayout& g, double barX, int h, const Style& st) {
  const double k = st.k(), barH = g.mapHeight, top = g.top, line = g.line;
  for (int i = 0; i < 100; ++i) {
    p.setPen(Qt::NoPen);
    p.setBrush(d.diverging ? to_qcolor(views::colormap_diverging(1.0 - 2.0 * i / 99.0))
                           : viridis(1.0 - i / 99.0));
    p.drawRect(QRectF(barX, top + i * barH / 100.0, g.barWidth, barH / 100.0 + 0.5));
  }
  p.setPen(QPen(Qt::black, 0.5 * k));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(barX, top, g.barWidth, barH));
  for (double t : g.ticks) {
    const double y = top + barH * (1.0 - colour_bar_position(t, lo, hi, d.logScale));
    p.drawLine(QPointF(barX + g.barWidth, y), QPointF(barX + g.barWidth + 2 * k, y));
    p.drawText(QRectF(barX + g.barWidth + 3 * k, y - line / 2, g.tickWidth + 2, line),
               Qt::AlignLeft | Qt::AlignVCenter, tick_text(t));
  }
  if (d.quantity.empty()) return;
  const QString quantity = QString::fromStdString(d.quantity);
  // Read bottom to top, right of the tick labels (clear of the top tick),
  // centred on the bar; a title longer than a short bar (a wide map) may run
  // past its ends, within the page, before it is shortened.
  const QFontMetricsF metrics(st.font(), p.device());
  const double room = std::max(barH, h - g.titleHeight - 4 * k);
  const double length = std::min(metrics.horizontalAdvance(quantity), room);
  const double bottomEnd =
      std::clamp(top + barH / 2 + length / 2, g.titleHeight + 2 * k + length, h - 2 * k);
  p.save();
  p.translate(barX + g.barWidth + 3 * k + g.tickWidth + 4 * k, bottomEnd);
  p.rotate(-90);
  p.drawText(QRectF(0, 0, length, line), Qt::AlignHCenter | Qt::AlignTop,
             metrics.elidedText(quantity, Qt::ElideRight, length));
  p.restore();
}

// The heat map on a painter, in a w x h logical area: title, axis titles,
// token labels, cells, marks, colour bar with its ticks. Every text is at the
// figure's size: where cells are smaller than a line, every k-th label is
// shown (as a plot's ticks), never a smaller font.
void paint_heat_map(QPainter& p, const views::HeatMap& d, double lo, double hi, int w, int h,
                    const Style& st) {
  if (!st.transparent) p.fillRect(QRectF(0, 0, w, h), Qt::white);
  const QFont font = st.font();
  p.setFont(font);
  const HeatMapLayout g = heat_map_layout(p, d, lo, hi, w, h, st);
  const double k = st.k();
  p.setPen(Qt::black);
  if (!g.titleLines.isEmpty()) {
    p.setFont(g.titleFont);
    p.drawText(QRectF(10 + st.titleIndent, 4 * k, g.titleRoom, g.titleHeight - 4 * k),
               Qt::AlignLeft | Qt::AlignTop, g.titleLines.join(QLatin1Char('\n')));
  }
  p.setFont(font);
  paint_heat_map_cells(p, d, lo, hi, g, k);
  if (g.labels) paint_heat_map_labels(p, d, g, st);
  if (g.sideBySide) paint_heat_map_run_names(p, d, g, st);
  p.setFont(font);
  const double barX = g.x0 + g.mapWidth + (g.rightLabels ? g.rightLabelWidth + 8 * k : 0) + 12 * k;
  if (g.categorical)
    paint_heat_map_categories(p, d, g, barX, w, k);
  else
    paint_heat_map_colour_bar(p, d, lo, hi, g, barX, h, st);
}

// A scene's title and legend broken into lines that fit the width.
struct SceneTexts {
  QFont titleFont;
  QStringList title, legend;
  double titleHeight = 0, legendHeight = 0;
};

SceneTexts scene_texts(QPainter& p, const views::Scene& d, int w, const Style& st) {
  SceneTexts t;
  t.titleFont = st.font();
  t.titleFont.setBold(true);
  const QFontMetricsF titleMetrics(t.titleFont, p.device()), metrics(st.font(), p.device());
  const QString title = drawn_title(QString::fromStdString(d.title), st);
  if (!title.isEmpty())
    t.title = text_wrap(
        title, [&](const QString& s) { return titleMetrics.horizontalAdvance(s); },
        w - 20 - st.titleIndent);
  t.legend = d.legend.empty()
                 ? QStringList{}
                 : text_wrap(
                       st.label(QString::fromStdString(d.legend)),
                       [&](const QString& s) { return metrics.horizontalAdvance(s); }, w - 20);
  t.titleHeight = t.title.isEmpty() && st.titleIndent <= 0
                      ? 0
                      : titleMetrics.lineSpacing() * std::max<qsizetype>(1, t.title.size()) + 2;
  t.legendHeight = metrics.lineSpacing() * t.legend.size() + 2;
  return t;
}

// The width a scene's colour bar takes at the right (0: none).
double scene_colour_bar_width(const views::Scene& d, QPainter& p, const Style& st) {
  if (!d.colourBar) return 0.0;
  const double k = st.k();
  const QFontMetricsF metrics(st.font(), p.device());
  double ticks = 0;
  for (double t : colour_bar_ticks(d.colourBar->lo, d.colourBar->hi, false))
    ticks = std::max(ticks, metrics.horizontalAdvance(tick_text(t)));
  // The bar and its ticks, or its name above it when that is wider.
  return 12 * k +
         std::max(10 * k + 3 * k + ticks,
                  metrics.horizontalAdvance(QString::fromStdString(d.colourBar->name))) +
         4 * k;
}

// The diverging bar of what the points' colours stand for, `top` to `top + barH`.
void paint_scene_colour_bar(QPainter& p, const views::SceneColourBar& bar, double x, double top,
                            double barH, const Style& st) {
  const double k = st.k(), barW = 10 * k;
  p.setFont(st.font());
  const QFontMetricsF metrics(st.font(), p.device());
  for (int i = 0; i < 100; ++i) {
    p.setPen(Qt::NoPen);
    p.setBrush(to_qcolor(views::colormap_diverging(1.0 - 2.0 * i / 99.0)));
    p.drawRect(QRectF(x, top + i * barH / 100.0, barW, barH / 100.0 + 0.5));
  }
  p.setPen(QPen(Qt::black, 0.5 * k));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(x, top, barW, barH));
  // Ticks a line and a half apart at least: every other one until they are.
  std::vector<double> ticks = colour_bar_ticks(bar.lo, bar.hi, false);
  while (ticks.size() > 3 &&
         barH / static_cast<double>(ticks.size() - 1) < 1.5 * metrics.height()) {
    std::vector<double> kept;
    for (std::size_t i = 0; i < ticks.size(); ++i)
      if (i % 2 == 0 || std::abs(ticks[i]) < 1e-12) kept.push_back(ticks[i]);
    if (kept.size() == ticks.size()) break;
    ticks = std::move(kept);
  }
  for (double t : ticks) {
    const double y = top + barH * (1.0 - colour_bar_position(t, bar.lo, bar.hi, false));
    p.drawLine(QPointF(x + barW, y), QPointF(x + barW + 2 * k, y));
    const QString text = tick_text(t);
    p.drawText(QRectF(x + barW + 3 * k, y - metrics.height() / 2,
                      metrics.horizontalAdvance(text) + 2, metrics.height()),
               Qt::AlignLeft | Qt::AlignVCenter, text);
  }
  // Its name above it, from the bar's left edge (the band is as wide as it).
  p.drawText(
      QRectF(x, top - metrics.height() - 2 * k,
             metrics.horizontalAdvance(QString::fromStdString(bar.name)) + 2, metrics.height()),
      Qt::AlignLeft | Qt::AlignBottom, QString::fromStdString(bar.name));
}

// The scene flat in a w x h logical area, from its camera: edges, balls,
// points, labels, title (scene_projection places the scene below the title).
void paint_scene(QPainter& p, const views::Scene& d, const views::SceneCamera& camera, int w, int h,
                 const Style& st) {
  if (!st.transparent) p.fillRect(QRectF(0, 0, w, h), Qt::white);
  p.setRenderHint(QPainter::Antialiasing, true);
  const SceneTexts texts = scene_texts(p, d, w, st);
  const double titleBand = 10 + texts.titleHeight + texts.legendHeight;
  const double barBand = scene_colour_bar_width(d, p, st);
  const ScenePicture at = scene_projection(d, camera, QSizeF(w - barBand, h),
                                           std::min(0.6, titleBand / std::max(1, h)));
  if (d.colourBar) {
    const double barH = std::max(20.0, 0.6 * (h - titleBand));
    paint_scene_colour_bar(p, *d.colourBar, w - barBand + 12 * st.k(),
                           titleBand + (h - titleBand - barH) / 2, barH, st);
  }
  for (const views::SceneEdge& e : d.edges) {
    const QPointF from = at.points[static_cast<std::size_t>(e.from)],
                  to = at.points[static_cast<std::size_t>(e.to)];
    // A line of no length (a self-loop, or two tokens seen one behind the
    // other) strokes an empty path, which a PDF reader rejects.
    if (QLineF(from, to).length() < 1e-3) continue;
    QColor c = e.lit ? to_qcolor(views::kSelectedHighlight) : QColor(70, 70, 70);
    c.setAlphaF(e.lit ? 1.0f : static_cast<float>(0.15 + 0.85 * std::clamp(e.weight, 0.0, 1.0)));
    p.setPen(QPen(c, e.lit ? 2.0 : 1.0));
    p.drawLine(from, to);
  }
  for (std::size_t i = 0; i < d.balls.size(); ++i) {
    QColor fill = to_qcolor(d.balls[i].color);
    fill.setAlphaF(0.12f);
    p.setBrush(fill);
    p.setPen(QPen(to_qcolor(d.balls[i].color), 1.0));
    p.drawEllipse(at.ballCentres[i], at.ballRadii[i], at.ballRadii[i]);
  }
  p.setFont(st.font());
  for (std::size_t i = 0; i < d.points.size(); ++i) {
    const double r = std::max(1.5, at.pointRadii[i]);
    const QColor c = to_qcolor(d.points[i].color);
    p.setBrush(c);
    p.setPen(QPen(c.darker(160), 0.8));
    p.drawEllipse(at.points[i], r, r);
    if (d.points[i].sinkRing) {
      p.setBrush(Qt::NoBrush);
      p.setPen(QPen(to_qcolor(views::kSinkHighlight), 1.5 * st.k()));
      p.drawEllipse(at.points[i], r + 2 * st.k(), r + 2 * st.k());
    }
  }
  // The scene's labelled points, each beside its point where it covers no
  // marker and no other label (farther out with a leader line), else left out.
  const QFontMetricsF metrics(st.font(), p.device());
  const std::vector<std::size_t> labelled = views::scene_labelled_points(d.points);
  std::vector<PointLabel> wanted;
  std::vector<QString> labelTexts;
  for (std::size_t i : labelled) {
    labelTexts.push_back(st.label(token_shown(d.points[i].label)));
    const double ring = d.points[i].sinkRing ? 2.75 * st.k() : 0.0;  // its ring's room
    wanted.push_back({at.points[i], std::max(1.5, at.pointRadii[i]) + ring,
                      QSizeF(metrics.horizontalAdvance(labelTexts.back()), metrics.height()),
                      d.points[i].size});
  }
  // Markers without a label are in the way too.
  for (std::size_t i = 0; i < d.points.size(); ++i)
    if (std::find(labelled.begin(), labelled.end(), i) == labelled.end())
      wanted.push_back({at.points[i], std::max(1.5, at.pointRadii[i]), QSizeF(0, 0), -1e9});
  const std::vector<PlacedLabel> placed =
      place_point_labels(wanted, QRectF(0, titleBand, w - barBand, h - titleBand));
  for (std::size_t k = 0; k < labelled.size(); ++k) {
    if (!placed[k].shown) continue;
    const QRectF& box = placed[k].box;
    if (placed[k].leader) {
      // From the marker's edge to the box's nearest side.
      const QLineF line = leader_line(wanted[k].point, wanted[k].radius, box);
      if (!line.isNull()) {
        p.setPen(QPen(QColor(120, 120, 120), 0.6));
        p.drawLine(line);
      }
    }
    p.setPen(QColor(40, 40, 40));
    p.drawText(QPointF(box.left(), box.top() + metrics.ascent()), labelTexts[k]);
  }
  p.setPen(Qt::black);
  p.setFont(texts.titleFont);
  p.drawText(QRectF(10 + st.titleIndent, 5, w - 20 - st.titleIndent, texts.titleHeight),
             Qt::AlignLeft | Qt::AlignTop, texts.title.join(QLatin1Char('\n')));
  p.setFont(st.font());
  p.drawText(QRectF(10, 5 + texts.titleHeight, w - 20, texts.legendHeight),
             Qt::AlignLeft | Qt::AlignTop, texts.legend.join(QLatin1Char('\n')));
}

}  // namespace

void figure_hash_seed() { QHashSeed::setDeterministicGlobalSeed(); }

const std::vector<ExportFormatInfo>& export_formats() {
  static const std::vector<ExportFormatInfo> formats{
      {ExportFormat::Png, QStringLiteral("png"), QStringLiteral("PNG image (*.png)"), true},
      {ExportFormat::Pdf, QStringLiteral("pdf"), QStringLiteral("PDF (*.pdf)"), true},
      {ExportFormat::Svg, QStringLiteral("svg"), QStringLiteral("SVG (*.svg)"), true},
      {ExportFormat::Csv, QStringLiteral("csv"), QStringLiteral("CSV of the numbers (*.csv)"),
       false},
      {ExportFormat::Json, QStringLiteral("json"),
       QStringLiteral("JSON of the view: its drawing and numbers (*.json)"), false},
  };
  return formats;
}

QString export_suffixes_text(bool numbers) {
  QStringList suffixes;
  for (const ExportFormatInfo& f : export_formats())
    if (numbers || f.drawing) suffixes << QStringLiteral(".") + f.suffix;
  const QString last = suffixes.takeLast();
  return suffixes.isEmpty() ? last
                            : suffixes.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

QString export_file_filters(bool numbers, const QString& first) {
  QStringList filters;
  for (const ExportFormatInfo& f : export_formats())
    if (numbers || f.drawing) {
      if (f.suffix == first)
        filters.prepend(f.filter);
      else
        filters << f.filter;
    }
  return filters.join(QStringLiteral(";;"));
}

ExportFormat export_format_of(const QString& path) {
  const QString s = QFileInfo(path).suffix().toLower();
  for (const ExportFormatInfo& f : export_formats())
    if (s == f.suffix) return f.format;
  throw std::invalid_argument(path.toStdString() + ": give the file a " +
                              export_suffixes_text(true).toStdString() + " name");
}

namespace {

// A view's own table (the document layer's rows) under the figure's header lines.
QString numbers_csv(const QStringList& comments, const io::CsvTable& numbers) {
  io::CsvTable t = numbers;
  std::vector<std::pair<std::string, std::string>> lines;
  for (const QString& c : comments) {
    const qsizetype colon = c.indexOf(QStringLiteral(": "));
    lines.emplace_back(io::csv_one_line(c.left(colon).toStdString()),
                       colon < 0 ? std::string() : c.mid(colon + 2).toStdString());
  }
  t.comments.insert(t.comments.begin(), lines.begin(), lines.end());
  return QString::fromStdString(io::csv_render(t));
}

}  // namespace

QString line_plot_csv(const views::LinePlot& d, const QStringList& comments) {
  const QString panel = QStringLiteral("panel: ") + QString::fromStdString(d.title);
  if (d.numbers) return numbers_csv(QStringList{panel} + comments, *d.numbers);
  std::string s = text(header(QStringList{panel} + comments));
  // A run column when two runs are compared, a label column when points stand for tokens.
  const bool runs = std::any_of(d.series.begin(), d.series.end(),
                                [](const views::PlotSeries& x) { return !x.run.empty(); });
  const bool labels = std::any_of(d.series.begin(), d.series.end(),
                                  [](const views::PlotSeries& x) { return !x.labels.empty(); });
  std::vector<std::string> columns{"series"};
  if (runs) columns.push_back("run");
  columns.push_back("x");
  if (labels) columns.push_back("label");
  columns.push_back("y");
  append_row(s, columns);
  for (const auto& series : d.series)
    for (std::size_t k = 0; k < series.x.size(); ++k) {
      std::vector<std::string> row{series.name};
      if (runs) row.push_back(series.run);
      row.push_back(number(series.x[k]));
      if (labels) row.push_back(k < series.labels.size() ? series.labels[k] : std::string());
      row.push_back(k < series.y.size() ? number(series.y[k]) : std::string());
      append_row(s, row);
    }
  return QString::fromStdString(s);
}

QString heat_map_csv(const views::HeatMap& d, const QStringList& comments) {
  const QStringList lines{QStringLiteral("panel: ") + QString::fromStdString(d.title),
                          QStringLiteral("quantity: ") + QString::fromStdString(d.quantity)};
  if (d.numbers) return numbers_csv(lines + comments, *d.numbers);
  std::string s = text(header(lines + comments));
  // Side by side: each cell's run and its column within its own map; the
  // right map's rows are labelled with its own tokens.
  const bool sideBySide = d.sideBySideSplit >= 0;
  if (sideBySide)
    append_row(s, {"run", "row", "column", "row_label", "column_label", "value"});
  else
    append_row(s, {"row", "column", "row_label", "column_label", "value"});
  const std::string &leftRun = d.leftRun, &rightRun = d.rightRun;
  const std::vector<std::string>&colLabels = d.colLabels, &rowLabels = d.rowLabels,
        &rightRowLabels = d.rightRowLabels;
  std::vector<std::string> row;
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) {
      const std::size_t k = static_cast<std::size_t>(r) * d.cols + c;
      if (!d.hidden.empty() && d.hidden[k]) continue;  // not visible: no number drawn
      // Side by side: the run, the column within its own map, its own row tokens.
      const bool right = sideBySide && c > d.sideBySideSplit;
      if (sideBySide && c == d.sideBySideSplit) continue;  // the gap
      const std::vector<std::string>& rows =
          right && static_cast<int>(rightRowLabels.size()) == d.rows ? rightRowLabels : rowLabels;
      row.clear();
      if (sideBySide) row.push_back(right ? rightRun : leftRun);
      row.push_back(whole(r));
      row.push_back(whole(sideBySide ? views::heat_map_own_column(d, c) : c));
      row.push_back(r < static_cast<int>(rows.size()) ? rows[static_cast<std::size_t>(r)]
                                                      : std::string());
      row.push_back(c < static_cast<int>(colLabels.size()) ? colLabels[static_cast<std::size_t>(c)]
                                                           : std::string());
      row.push_back(number(d.values[k]));
      append_row(s, row);
    }
  return QString::fromStdString(s);
}

// The same figure must be the same file (a session reproduces its figures
// byte for byte): the PDF's creation date, the only thing that differs from
// run to run, becomes $SOURCE_DATE_EPOCH's (the reproducible-builds
// convention) or the epoch's, written over the same number of digits so the
// file's offsets stay valid.
void pdf_fix_creation_date(QByteArray& pdf) {
  const QByteArray key = "/CreationDate (D:";
  const qsizetype at = pdf.indexOf(key);
  if (at < 0 || at + key.size() + 14 > pdf.size()) return;
  bool ok = false;
  const qint64 epoch = qEnvironmentVariable("SOURCE_DATE_EPOCH").toLongLong(&ok);
  const QByteArray stamp = QDateTime::fromSecsSinceEpoch(ok && epoch >= 0 ? epoch : 0, Qt::UTC)
                               .toString(QStringLiteral("yyyyMMddHHmmss"))
                               .toLatin1();
  if (stamp.size() != 14) return;
  for (qsizetype k = 0; k < 14; ++k)
    if (!std::isdigit(static_cast<unsigned char>(pdf[at + key.size() + k]))) return;
  pdf.replace(at + key.size(), 14, stamp);
}

namespace {

// A figure of w x h logical pixels, drawn by `paint` onto a PNG (scaled to
// `dpi`), SVG or PDF page; returns the file's bytes.
template <class Painter>
QByteArray figure_bytes(ExportFormat f, int w, int h, int dpi, bool transparent,
                        const QString& title, const std::function<void(Painter&)>& paint) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (f == ExportFormat::Png) {
    // The PDF's drawing at `dpi`: the figure is w x h points (1/72 inch), so
    // the image is scaled by dpi / 72 and painted at 72 logical dots per inch,
    // where a font's point size equals its size in the figure's units (as on
    // the PDF page). The file then says `dpi`.
    figure_check_pixels(w, h, dpi);
    const double scale = dpi / 72.0;
    QImage image(static_cast<int>(std::lround(w * scale)), static_cast<int>(std::lround(h * scale)),
                 transparent ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB32);
    if (image.isNull())
      throw std::runtime_error("the figure's image could not be allocated (" +
                               std::to_string(image.width()) + " x " +
                               std::to_string(image.height()) + " pixels)");
    image.fill(transparent ? Qt::transparent : Qt::white);
    const int pointsPerMetre = static_cast<int>(std::lround(72.0 / 0.0254));
    image.setDotsPerMeterX(pointsPerMetre);
    image.setDotsPerMeterY(pointsPerMetre);
    {
      Painter p(&image);
      p.setRenderHint(QPainter::Antialiasing, true);
      p.setRenderHint(QPainter::TextAntialiasing, true);
      p.scale(scale, scale);
      paint(p);
    }
    image.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(dpi / 0.0254)));
    if (!image.save(&buffer, "PNG")) throw std::runtime_error("the PNG could not be encoded");
  } else if (f == ExportFormat::Svg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(w, h));
    svg.setViewBox(QRect(0, 0, w, h));
    svg.setTitle(
        title.toHtmlEscaped());  // the generator writes it as it is: a "<" would end the SVG
    Painter p(&svg);
    paint(p);
  } else {
    QPdfWriter pdf(&buffer);
    pdf.setPageSize(QPageSize(QSizeF(w, h), QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setResolution(72);
    pdf.setTitle(title);
    {
      Painter p(&pdf);
      paint(p);
    }
    buffer.close();
    pdf_fix_creation_date(bytes);
    return bytes;
  }
  buffer.close();
  return bytes;
}

}  // namespace

namespace {

// A line plot as a figure draws it: a plot of its own at the figure's fonts
// (the screen's is left as it is) in the area its legend leaves.
struct FigurePlot {
  std::unique_ptr<LinePlotView> view;
  std::vector<LegendEntry> legend;
  LegendLayout layout;
  QFont font;
};

std::unique_ptr<FigurePlot> figure_plot(const views::LinePlot& shown, QSize size, const Style& st,
                                        double fontPt, bool legendOutside = false) {
  auto figure = std::make_unique<FigurePlot>();
  figure->view = std::make_unique<LinePlotView>();
  LinePlotView& plot = *figure->view;
  plot.resize(size);
  views::LinePlot data = shown;
  for (auto& series : data.series)
    series.name = st.label(QString::fromStdString(series.name)).toStdString();
  for (std::string& label : data.xTickLabels)
    label = st.label(QString::fromStdString(label)).toStdString();
  plot.setData(std::move(data));
  const double pt = fontPt > 0 ? fontPt : st.fontPt;
  plot.setFigureFonts(st.family, pt);
  // A plot with nothing to draw keeps its title: it says why ("not computed").
  const QString viewTitle = QString::fromStdString(shown.title);
  const QString title = shown.series.empty() ? viewTitle : drawn_title(viewTitle, st);
  plot.setFigureTitle(title, static_cast<int>(std::lround(st.titleIndent)));
  figure->legend = plot.takeLegend();
  figure->font = QFont(st.family);
  figure->font.setPixelSize(std::max(1, static_cast<int>(std::lround(pt))));
  std::vector<QString> texts;
  for (const LegendEntry& e : figure->legend) texts.push_back(e.text);
  const QFontMetricsF metrics(figure->font, figure_units());
  // Inside the axes where a corner is free of data (as matplotlib's "best"
  // legend): the axes keep the whole area.
  if (st.transparent) plot.plot()->setBackground(Qt::transparent);
  plot.layOutAsFigure(size);
  const QRectF axesRect = plot.plot()->axisRect()->rect();
  for (int corner = 0; corner < 4 && !texts.empty() && !legendOutside; ++corner) {
    LegendLayout inside = legend_inside(texts, metrics, QSizeF(size), axesRect, corner);
    if (inside.box.isEmpty()) break;  // too large for any corner
    if (!plot.drawsInside(inside.box)) {
      figure->layout = std::move(inside);
      return figure;
    }
  }
  figure->layout =
      legend_layout(texts, metrics, QSizeF(size), shown.equalScale, QSizeF(plot.decoration()));
  plot.layOutAsFigure(figure->layout.plotArea.toSize());
  return figure;
}

// The height its axes get, laid out at the figure plot's size.
int axes_height(FigurePlot& figure) {
  // As toPainter lays it out: the plot's area as the viewport.
  QCustomPlot* axes = figure.view->plot();
  const QRect shown = axes->viewport();
  axes->setViewport(QRect(QPoint(0, 0), figure.layout.plotArea.toSize()));
  for (auto phase :
       {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
    axes->plotLayout()->update(phase);
  const int height = axes->axisRect()->height();
  axes->setViewport(shown);
  return height;
}

// A part's size for the Screen preset: its view's size, at least a readable one.
QSize part_size(const FigurePart& part) {
  const QSize s = part.screenSize;
  if (part.plot) return {std::max(s.width(), 400), std::max(s.height(), 300)};
  if (part.map) return {std::max(s.width(), 400), std::max(s.height(), 350)};
  return {std::max(s.width(), 200), std::max(s.height(), 150)};
}

QString part_title(const FigurePart& part) {
  if (part.plot) return QString::fromStdString(part.plot->title);
  if (part.map) return QString::fromStdString(part.map->title);
  if (part.scene) return QString::fromStdString(part.scene->title);
  if (part.headView) return QString::fromStdString(part.headView->title);
  return {};
}

// A part drawn in a w x h area; `plot` is the line plot's figure copy.
void paint_part(QCPPainter& p, const FigurePart& part, FigurePlot* plot, int w, int h,
                const Style& st) {
  if (part.map) {
    const auto [lo, hi] = views::heat_map_range(*part.map);
    paint_heat_map(p, *part.map, lo, hi, w, h, st);
  } else if (part.scene) {
    paint_scene(p, *part.scene, part.camera, w, h, st);
  } else if (part.headView) {
    if (!st.transparent) p.fillRect(QRectF(0, 0, w, h), Qt::white);
    const double indent = st.titleIndent;
    p.save();
    p.translate(indent, 0);  // room for a sub-figure's letter
    views::HeadViewData shown = *part.headView;
    shown.title = drawn_title(QString::fromStdString(shown.title), st).toStdString();
    paint_head_view(p, shown, w - indent, h, st.fontPt, st.family, st.visibleSpaces);
    p.restore();
  } else if (plot) {
    QCustomPlot* axes = plot->view->plot();
    if (st.transparent) axes->setBackground(Qt::transparent);
    const QSize area = plot->layout.plotArea.toSize();
    if (!st.transparent) p.fillRect(QRectF(0, 0, w, h), Qt::white);
    axes->toPainter(&p, area.width(), area.height());
    legend_paint(p, plot->layout, plot->legend, plot->font);
  }
}

// A view's part for the typed helpers below (tests and tools that hold a
// view they filled themselves); the window's exports read DrawnViews.
FigurePart part_of(const QWidget* view) {
  FigurePart part;
  part.name = view->objectName();
  part.screenSize = view->size();
  if (auto* plot = qobject_cast<const LinePlotView*>(view)) {
    part.plot = std::make_shared<const views::LinePlot>(plot->data());
  } else if (auto* map = qobject_cast<const HeatMapView*>(view)) {
    part.map = std::make_shared<const views::HeatMap>(map->data());
  } else if (auto* scene = qobject_cast<const SceneView*>(view)) {
    part.scene = std::make_shared<const views::Scene>(scene->data());
    part.camera = scene->camera();
  }
  return part;
}

}  // namespace

QString scene_csv(const views::Scene& d, const QStringList& comments) {
  std::string s = text(
      header(QStringList{QStringLiteral("panel: ") + QString::fromStdString(d.title)} + comments));
  append_row(
      s, {"kind", "index", "token", "label", "x", "y", "z", "size_weight_or_radius", "from", "to"});
  for (std::size_t k = 0; k < d.points.size(); ++k) {
    const views::ScenePoint& p = d.points[k];
    append_row(s, {"point", whole(static_cast<long long>(k)), p.token >= 0 ? whole(p.token) : "",
                   p.label, number(p.position[0]), number(p.position[1]), number(p.position[2]),
                   number(p.size), "", ""});
  }
  for (std::size_t k = 0; k < d.edges.size(); ++k)
    append_row(s, {"edge", whole(static_cast<long long>(k)), "", "", "", "", "",
                   number(d.edges[k].weight), whole(d.edges[k].from), whole(d.edges[k].to)});
  for (std::size_t k = 0; k < d.balls.size(); ++k)
    append_row(s, {"ball", whole(static_cast<long long>(k)), "", "", number(d.balls[k].center[0]),
                   number(d.balls[k].center[1]), number(d.balls[k].center[2]),
                   number(d.balls[k].radius), "", ""});
  return QString::fromStdString(s);
}

QString head_view_csv(const views::HeadViewData& d, const QStringList& comments) {
  const QString panel = QStringLiteral("panel: ") + QString::fromStdString(d.title);
  if (d.numbers) return numbers_csv(QStringList{panel} + comments, *d.numbers);
  std::string s = text(header(QStringList{panel} + comments));
  append_row(s, {"head", "query", "key", "query_token", "key_token", "weight"});
  const std::size_t n = d.tokens.size();
  const std::vector<std::string>& tokens = d.tokens;
  for (const views::HeadViewHead& head : d.heads) {
    const std::string& name = head.name;
    for (std::size_t q = 0; q < n; ++q)
      for (std::size_t k = 0; k < n; ++k) {
        const float w = head.weights[q * n + k];
        if (!std::isfinite(w)) continue;  // a key the query cannot see
        append_row(s, {name, whole(static_cast<long long>(q)), whole(static_cast<long long>(k)),
                       tokens[q], tokens[k], number(w)});
      }
  }
  return QString::fromStdString(s);
}

QString figure_part_csv(const FigurePart& part, const QStringList& comments) {
  if (part.plot) return line_plot_csv(*part.plot, comments);
  if (part.map) return heat_map_csv(*part.map, comments);
  if (part.scene) return scene_csv(*part.scene, comments);
  if (part.headView) return head_view_csv(*part.headView, comments);
  throw std::invalid_argument("export: this panel has nothing to export");
}

namespace {

nlohmann::json part_json(const FigurePart& part) {
  if (part.plot) return views::view_json(*part.plot);
  if (part.map) return views::view_json(*part.map);
  if (part.scene) {
    nlohmann::json j = views::view_json(*part.scene);
    j["camera"] = {{"direction", part.camera.direction}, {"up", part.camera.up}};
    return j;
  }
  if (part.headView) return views::view_json(*part.headView);
  throw std::invalid_argument("export: this panel has nothing to export");
}

}  // namespace

QString figure_part_json(const FigurePart& part, const QStringList& comments) {
  nlohmann::json j = part_json(part);
  nlohmann::json header = nlohmann::json::object();
  for (const QString& c : comments) {
    const qsizetype colon = c.indexOf(QStringLiteral(": "));
    header[c.left(colon).toStdString()] =
        colon < 0 ? std::string() : c.mid(colon + 2).toStdString();
  }
  j["header"] = header;
  j["view"] = part.name.toStdString();
  return QString::fromStdString(j.dump(1) + "\n");
}

namespace {

// The part as the options draw it: a paper figure without the window's
// selection unless asked for it.
FigurePart part_drawn(const FigurePart& part, const FigureOptions& o) {
  const bool paper = o.widthMm > 0 && o.heightMm > 0;
  if (!paper || o.drawSelection) return part;
  FigurePart drawn = part;
  if (part.plot)
    drawn.plot =
        std::make_shared<const views::LinePlot>(views::line_plot_without_selection(*part.plot));
  if (part.map)
    drawn.map =
        std::make_shared<const views::HeatMap>(views::heat_map_without_selection(*part.map));
  if (part.scene)
    drawn.scene = std::make_shared<const views::Scene>(views::scene_without_selection(*part.scene));
  if (part.headView)
    drawn.headView = std::make_shared<const views::HeadViewData>(
        views::head_view_without_selection(*part.headView));
  return drawn;
}

}  // namespace

QByteArray figure_part_bytes(const FigurePart& part, ExportFormat f, const FigureOptions& options,
                             const QStringList& comments) {
  if (f == ExportFormat::Csv) return figure_part_csv(part, comments).toUtf8();
  if (f == ExportFormat::Json) return figure_part_json(part, comments).toUtf8();
  if (!part.plot && !part.map && !part.scene && !part.headView)
    throw std::invalid_argument("export: this panel has nothing to export");
  const FigurePart drawn = part_drawn(part, options);
  // A heat map's page is 800 x 700 unless a preset sizes it: its cells fit any shape.
  const QSize size = figure_size(options, drawn.map ? QSize(800, 700) : part_size(drawn));
  const Style st = style_of(options);
  const auto plot = drawn.plot ? figure_plot(*drawn.plot, size, st, options.fontPt) : nullptr;
  return figure_bytes<QCPPainter>(
      f, size.width(), size.height(), options.dpi, st.transparent, part_title(drawn),
      [&](QCPPainter& p) { paint_part(p, drawn, plot.get(), size.width(), size.height(), st); });
}

void figure_part_export(const FigurePart& part, const QString& path, const FigureOptions& options,
                        const QStringList& comments, bool overwrite) {
  figure_output_check(path, overwrite);  // before the drawing
  write_atomic(path, figure_part_bytes(part, export_format_of(path), options, comments), overwrite);
}

void line_plot_export(const LinePlotView& view, const QString& path, const FigureOptions& options,
                      const QStringList& comments, bool overwrite) {
  figure_part_export(part_of(&view), path, options, comments, overwrite);
}

void scene_export(SceneView& view, const QString& path, const FigureOptions& options,
                  const QStringList& comments, bool overwrite) {
  figure_part_export(part_of(&view), path, options, comments, overwrite);
}

void heat_map_export(const HeatMapView& view, const QString& path, const FigureOptions& options,
                     const QStringList& comments, bool overwrite) {
  figure_part_export(part_of(&view), path, options, comments, overwrite);
}

namespace {

// The parts of a figure checked (1 to 26, each with something to draw), and
// plots with no series taken out (unless every part is one); returns the
// titles of those taken out.
QStringList drop_empty_plots(std::vector<FigurePart>& parts) {
  if (parts.empty() || parts.size() > 26) throw std::invalid_argument("figure: give 1 to 26 views");
  for (const FigurePart& part : parts)
    if (!part.plot && !part.map && !part.scene && !part.headView)
      throw std::invalid_argument("figure: a view has nothing to draw");
  const auto empty = [](const FigurePart& part) { return part.plot && part.plot->series.empty(); };
  QStringList leftOut;
  if (std::all_of(parts.begin(), parts.end(), empty)) return leftOut;
  for (const FigurePart& part : parts)
    if (empty(part)) leftOut << part_title(part);
  std::erase_if(parts, empty);
  return leftOut;
}

// Part k of a figure in its cell, clipped to it, with its letter (a), (b),
// ... bold at the top left.
void paint_lettered_part(QCPPainter& p, const FigurePart& part, FigurePlot* plot,
                         const QRectF& cell, int k, const Style& lettered, const QFont& letter) {
  p.save();
  p.translate(cell.topLeft());
  p.save();  // the clip ends with its own state (an SVG writes no clip switched off)
  p.setClipRect(QRectF(0, 0, cell.width(), cell.height()));
  paint_part(p, part, plot, static_cast<int>(cell.width()), static_cast<int>(cell.height()),
             lettered);
  p.restore();
  p.setFont(letter);
  p.setPen(Qt::black);
  const QString mark = QStringLiteral("(%1)").arg(QChar(QLatin1Char('a').unicode() + k));
  const QPointF at(4, QFontMetricsF(letter, p.device()).ascent() + 2);
  p.drawText(at, mark);
  if (!part.letterNote.isEmpty()) {
    const QFont note = lettered.font();  // the figure's text size: a title, not a letter
    const double x = at.x() + QFontMetricsF(letter, p.device()).horizontalAdvance(mark + ' ');
    p.setFont(note);
    p.drawText(QPointF(x, at.y()),
               QFontMetricsF(note, p.device())
                   .elidedText(part.letterNote, Qt::ElideMiddle, cell.width() - x - 4));
  }
  p.restore();
}

}  // namespace

QStringList figure_export(std::vector<FigurePart> parts, const QString& path,
                          const FigureOptions& options, int columns, bool overwrite) {
  const ExportFormat f = export_format_of(path);
  if (f == ExportFormat::Csv)
    throw std::invalid_argument(path.toStdString() +
                                ": a figure of several views has no single CSV; export each "
                                "view's numbers on its own");
  if (f == ExportFormat::Json) {
    // Every view's description, in the figure's order (empty ones too: data
    // has no empty cell to avoid).
    nlohmann::json all = nlohmann::json::array();
    for (const FigurePart& part : parts) {
      nlohmann::json j = part_json(part);
      j["view"] = part.name.toStdString();
      all.push_back(std::move(j));
    }
    write_atomic(path, QByteArray::fromStdString(nlohmann::json{{"views", all}}.dump(1) + "\n"),
                 overwrite);
    return {};
  }
  QStringList leftOut;
  write_atomic(path, figure_parts_bytes(std::move(parts), f, options, columns, &leftOut),
               overwrite);
  return leftOut;
}

QByteArray figure_parts_bytes(std::vector<FigurePart> parts, ExportFormat f,
                              const FigureOptions& options, int columns,
                              QStringList* leftOutTitles) {
  if (f == ExportFormat::Csv || f == ExportFormat::Json)
    throw std::invalid_argument("a figure of several views is drawn as PNG, PDF or SVG");
  const QStringList leftOut = drop_empty_plots(parts);
  if (leftOutTitles) *leftOutTitles = leftOut;
  for (FigurePart& part : parts) part = part_drawn(part, options);
  const int n = static_cast<int>(parts.size());
  const int cols = figure_columns(options, n, columns);
  const int rows = (n + cols - 1) / cols;
  // Each cell as large as the largest view's screen size; the options' width
  // is shared out, their height is each row's (up to a page's text height).
  QSize cell(0, 0);
  for (const FigurePart& part : parts) cell = cell.expandedTo(part_size(part));
  FigureOptions sized = options;
  sized.heightMm = figure_height_mm(options, rows);
  QSize total = figure_size(sized, QSize(cell.width() * cols, cell.height() * rows));
  const Style st = style_of(options);
  // A title asked for goes above the whole figure, once.
  const bool figureTitle = !st.viewTitles && !st.title.isEmpty();
  QFont titleFont = st.font();
  titleFont.setBold(true);
  const double titleBand =
      figureTitle ? QFontMetricsF(titleFont, figure_units()).lineSpacing() + 6 : 0;
  cell = QSize(total.width() / cols, static_cast<int>((total.height() - titleBand) / rows));
  QFont letter = st.font(2);
  letter.setBold(true);
  // Titles leave room for the sub-figure's letter at the top left.
  Style lettered = st;
  lettered.transparent = true;  // the figure's background is painted once
  lettered.title.clear();
  lettered.titleIndent =
      QFontMetricsF(letter, figure_units()).horizontalAdvance(QStringLiteral("(m)")) + 4;
  std::vector<std::unique_ptr<FigurePlot>> plots;  // figure copies of the line plots
  const auto lay_out_plots = [&] {
    plots.clear();
    for (const FigurePart& part : parts)
      plots.push_back(part.plot ? figure_plot(*part.plot, cell, lettered, options.fontPt)
                                : nullptr);
    // Views of one kind side by side (each named by its letter's note: models
    // compared) whose legends sit some inside and some outside their axes
    // would get axes of different heights: all go outside. Different views
    // (a panel's sub-plots) keep each its best place.
    const auto inside = [](const auto& plot) { return plot && plot->layout.inside; };
    const auto outside = [](const auto& plot) {
      return plot && !plot->legend.empty() && !plot->layout.inside;
    };
    const bool compared = std::all_of(parts.begin(), parts.end(), [](const FigurePart& part) {
      return part.plot && !part.letterNote.isEmpty();
    });
    if (compared && std::any_of(plots.begin(), plots.end(), inside) &&
        std::any_of(plots.begin(), plots.end(), outside))
      for (std::size_t k = 0; k < parts.size(); ++k)
        if (inside(plots[k]))
          plots[k] = figure_plot(*parts[k].plot, cell, lettered, options.fontPt, true);
  };
  lay_out_plots();
  // A sized figure grows where a legend below would leave its axes a strip:
  // every row by what the lowest axes lack of 40% of the row or of
  // kMinAxesHeightMm, whichever is more (up to a page).
  if (options.heightMm > 0) {
    int lowest = cell.height();
    for (const auto& plot : plots)
      if (plot && !plot->view->data().series.empty()) lowest = std::min(lowest, axes_height(*plot));
    const int wanted = std::max(static_cast<int>(0.4 * cell.height()),
                                static_cast<int>(std::lround(kMinAxesHeightMm / 25.4 * 72.0)));
    const int pageHeight =
        static_cast<int>(std::lround(std::max(options.heightMm, kPageTextHeightMm) / 25.4 * 72.0));
    const int grown = std::min(cell.height() + std::max(0, wanted - lowest),
                               static_cast<int>((pageHeight - titleBand) / rows));
    if (grown > cell.height()) {
      cell.setHeight(grown);
      total.setHeight(static_cast<int>(std::lround(titleBand)) + grown * rows);
      lay_out_plots();
    }
  }
  QString title;
  for (const FigurePart& part : parts)
    title += (title.isEmpty() ? QString() : QStringLiteral("; ")) + part_title(part);
  auto paint = [&](QCPPainter& p) {
    if (!st.transparent) p.fillRect(QRectF(0, 0, total.width(), total.height()), Qt::white);
    if (figureTitle) {
      p.setFont(titleFont);
      p.setPen(Qt::black);
      p.drawText(QRectF(0, 3, total.width(), titleBand - 3), Qt::AlignHCenter | Qt::AlignTop,
                 st.title);
    }
    for (int k = 0; k < n; ++k) {
      const QPointF origin((k % cols) * cell.width(), titleBand + (k / cols) * cell.height());
      const auto i = static_cast<std::size_t>(k);
      paint_lettered_part(p, parts[i], plots[i].get(), QRectF(origin, QSizeF(cell)), k, lettered,
                          letter);
    }
  };
  return figure_bytes<QCPPainter>(f, total.width(), total.height(), options.dpi, st.transparent,
                                  title, paint);
}

double figure_height_mm(const FigureOptions& options, int rows) {
  const double rowMm = rows > 1 ? std::max(0.7 * options.heightMm, 44.0) : options.heightMm;
  return std::min(rowMm * rows, std::max(options.heightMm, kPageTextHeightMm));
}

int figure_columns(const FigureOptions& options, int views, int columns) {
  if (views < 1) return 1;
  if (columns > 0) return std::min(columns, views);
  // Automatic: a view per 85 mm (a column's width) of a sized figure, else one row.
  if (options.widthMm <= 0) return views;
  return std::clamp(static_cast<int>(std::lround(options.widthMm / 85.0)), 1, views);
}

FigureOptions figure_preset(FigurePreset preset, int dpi) {
  FigureOptions o;
  o.dpi = dpi;
  switch (preset) {
    case FigurePreset::Screen:
      break;
    case FigurePreset::OneColumn:
      o.widthMm = 85.0, o.heightMm = 64.0, o.fontPt = 8.0;
      break;
    case FigurePreset::TwoColumns:
      o.widthMm = 178.0, o.heightMm = 100.0, o.fontPt = 8.0;
      break;
    case FigurePreset::Slide:
      o.widthMm = 254.0, o.heightMm = 254.0 * 9.0 / 16.0, o.fontPt = 16.0;
      break;
  }
  return o;
}

QString figure_label(const QString& label, bool visibleSpaces) {
  if (visibleSpaces) return label;
  QString plain = label;
  plain.replace(QChar(0x2423), QLatin1Char(' '));  // "␣", the screen's visible space
  return plain;
}

}  // namespace sinkscope::render
