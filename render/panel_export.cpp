#include "render/panel_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "render/colormap.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/qcustomplot_include.h"

namespace sinkscope::render {

namespace {

QString csv_field(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
      !s.contains(QLatin1Char('\n')))
    return s;
  QString q = s;
  q.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + q + QLatin1Char('"');
}

QString number(double v) { return QString::number(v, 'g', 17); }

void write_atomic(const QString& path, const QByteArray& bytes, bool overwrite) {
  if (!overwrite && QFileInfo::exists(path))
    throw std::runtime_error(path.toStdString() + ": exists (choose another name or replace it)");
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw std::runtime_error(path.toStdString() + ": cannot write (" +
                             file.errorString().toStdString() + ")");
  file.write(bytes);
  if (!file.commit())
    throw std::runtime_error(path.toStdString() + ": cannot write (" +
                             file.errorString().toStdString() + ")");
}

QString header(const QStringList& comments) {
  QString s;
  for (const QString& c : comments) s += QStringLiteral("# ") + c + QLatin1Char('\n');
  return s;
}

QColor to_qcolor(const Rgb& c) {
  return QColor::fromRgbF(static_cast<float>(c.r), static_cast<float>(c.g),
                          static_cast<float>(c.b));
}

QColor viridis(double t) { return to_qcolor(colormap_viridis(t)); }

// The heat map on a painter, in a w x h logical area: title, labels, cells, colour bar.
void paint_heat_map(QPainter& p, const HeatMapData& d, double lo, double hi, int w, int h) {
  p.fillRect(QRectF(0, 0, w, h), Qt::white);
  const bool labels = !d.rowLabels.empty() && !d.colLabels.empty() && d.rows <= kHeatMapMaxLabels &&
                      d.cols <= kHeatMapMaxLabels;
  QFont font(QStringLiteral("sans"), 8);
  p.setFont(font);
  const double left = labels ? 90 : 20, top = labels ? 110 : 40, right = 90, bottom = 20;
  const double cell = std::max(1.0, std::min((w - left - right) / std::max(1, d.cols),
                                             (h - top - bottom) / std::max(1, d.rows)));
  p.setPen(Qt::black);
  QFont titleFont(QStringLiteral("sans"), 10);
  p.setFont(titleFont);
  p.drawText(QRectF(10, 5, w - 20, 24), Qt::AlignLeft | Qt::AlignVCenter, d.title);
  p.setFont(font);
  p.setPen(Qt::NoPen);
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) {
      const std::size_t k = static_cast<std::size_t>(r) * d.cols + c;
      const bool hidden = !d.hidden.empty() && d.hidden[k];
      const double t = (d.values[k] - lo) / std::max(hi - lo, 1e-12);
      const QColor color = hidden        ? QColor(225, 225, 225)
                           : d.diverging ? to_qcolor(colormap_diverging(2 * t - 1))
                                         : viridis(t);
      p.setBrush(color);
      // A hair wider than the cell: no seams between neighbours at any scale.
      p.drawRect(QRectF(left + c * cell, top + r * cell, cell + 0.4, cell + 0.4));
    }
  p.setPen(Qt::black);
  if (labels) {
    for (int r = 0; r < d.rows; ++r)
      p.drawText(QRectF(0, top + r * cell, left - 4, cell), Qt::AlignRight | Qt::AlignVCenter,
                 d.rowLabels[static_cast<std::size_t>(r)]);
    for (int c = 0; c < d.cols; ++c) {
      p.save();
      p.translate(left + (c + 0.5) * cell, top - 4);
      p.rotate(-90);
      p.drawText(QRectF(0, -cell / 2, top - 40, cell), Qt::AlignLeft | Qt::AlignVCenter,
                 d.colLabels[static_cast<std::size_t>(c)]);
      p.restore();
    }
  }
  // Colour bar with its quantity and range.
  const double barX = left + d.cols * cell + 20, barH = d.rows * cell;
  for (int k = 0; k < 100; ++k) {
    p.setPen(Qt::NoPen);
    p.setBrush(d.diverging ? to_qcolor(colormap_diverging(1.0 - 2.0 * k / 99.0))
                           : viridis(1.0 - k / 99.0));
    p.drawRect(QRectF(barX, top + k * barH / 100.0, 14, barH / 100.0 + 0.5));
  }
  p.setPen(Qt::black);
  p.drawText(QPointF(barX + 18, top + 8), QString::number(hi, 'g', 3));
  p.drawText(QPointF(barX + 18, top + barH), QString::number(lo, 'g', 3));
  p.save();
  p.translate(barX - 4, top + barH);
  p.rotate(-90);
  p.drawText(QPointF(0, 0), d.quantity);
  p.restore();
}

}  // namespace

ExportFormat export_format_of(const QString& path) {
  const QString s = QFileInfo(path).suffix().toLower();
  if (s == QLatin1String("png")) return ExportFormat::Png;
  if (s == QLatin1String("pdf")) return ExportFormat::Pdf;
  if (s == QLatin1String("svg")) return ExportFormat::Svg;
  if (s == QLatin1String("csv")) return ExportFormat::Csv;
  throw std::invalid_argument(path.toStdString() +
                              ": give the file a .png, .pdf, .svg or .csv name");
}

QString line_plot_csv(const LinePlotData& d, const QStringList& comments) {
  QString s = header(QStringList{QStringLiteral("panel: ") + d.title} + comments);
  s += QStringLiteral("series,x,y\n");
  for (const auto& series : d.series)
    for (std::size_t k = 0; k < series.x.size(); ++k)
      s += csv_field(series.name) + QLatin1Char(',') + number(series.x[k]) + QLatin1Char(',') +
           number(series.y[k]) + QLatin1Char('\n');
  return s;
}

QString heat_map_csv(const HeatMapData& d, const QStringList& comments) {
  QString s = header(
      QStringList{QStringLiteral("panel: ") + d.title, QStringLiteral("quantity: ") + d.quantity} +
      comments);
  s += QStringLiteral("row,column,row_label,column_label,value\n");
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) {
      const std::size_t k = static_cast<std::size_t>(r) * d.cols + c;
      if (!d.hidden.empty() && d.hidden[k]) continue;  // not visible: no number drawn
      s += QString::number(r) + QLatin1Char(',') + QString::number(c) + QLatin1Char(',') +
           csv_field(r < static_cast<int>(d.rowLabels.size())
                         ? d.rowLabels[static_cast<std::size_t>(r)]
                         : QString()) +
           QLatin1Char(',') +
           csv_field(c < static_cast<int>(d.colLabels.size())
                         ? d.colLabels[static_cast<std::size_t>(c)]
                         : QString()) +
           QLatin1Char(',') + number(d.values[k]) + QLatin1Char('\n');
    }
  return s;
}

namespace {

// A figure of w x h logical pixels, drawn by `paint` onto a PNG (scaled to
// `dpi`), SVG or PDF page; returns the file's bytes.
template <class Painter>
QByteArray figure_bytes(ExportFormat f, int w, int h, int dpi, const QString& title,
                        const std::function<void(Painter&)>& paint) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (f == ExportFormat::Png) {
    const double scale = dpi / 96.0;
    QImage image(static_cast<int>(w * scale), static_cast<int>(h * scale), QImage::Format_RGB32);
    image.fill(Qt::white);
    image.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(dpi / 0.0254)));
    {
      Painter p(&image);
      p.setRenderHint(QPainter::TextAntialiasing, true);
      p.scale(scale, scale);
      paint(p);
    }
    image.save(&buffer, "PNG");
  } else if (f == ExportFormat::Svg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(w, h));
    svg.setViewBox(QRect(0, 0, w, h));
    svg.setTitle(title);
    Painter p(&svg);
    paint(p);
  } else {
    QPdfWriter pdf(&buffer);
    pdf.setPageSize(QPageSize(QSizeF(w, h), QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setResolution(72);
    pdf.setTitle(title);
    Painter p(&pdf);
    paint(p);
  }
  buffer.close();
  return bytes;
}

}  // namespace

void line_plot_export(const LinePlotView& view, const QString& path, int dpi,
                      const QStringList& comments, bool overwrite) {
  const ExportFormat f = export_format_of(path);
  if (f == ExportFormat::Csv) {
    write_atomic(path, line_plot_csv(view.data(), comments).toUtf8(), overwrite);
    return;
  }
  QCustomPlot* plot = view.plot();
  const int w = std::max(plot->width(), 400), h = std::max(plot->height(), 300);
  write_atomic(path,
               figure_bytes<QCPPainter>(f, w, h, dpi, view.data().title,
                                        [&](QCPPainter& p) { plot->toPainter(&p, w, h); }),
               overwrite);
}

void heat_map_export(const HeatMapView& view, const QString& path, int dpi,
                     const QStringList& comments, bool overwrite) {
  const ExportFormat f = export_format_of(path);
  const HeatMapData& d = view.data();
  if (f == ExportFormat::Csv) {
    write_atomic(path, heat_map_csv(d, comments).toUtf8(), overwrite);
    return;
  }
  const int w = 800, h = 700;
  write_atomic(path,
               figure_bytes<QPainter>(f, w, h, dpi, d.title,
                                      [&](QPainter& p) {
                                        paint_heat_map(p, d, view.displayedMin(),
                                                       view.displayedMax(), w, h);
                                      }),
               overwrite);
}

}  // namespace sinkscope::render
