#include "render/figure_report.h"

#include <QBuffer>
#include <QFont>
#include <QFontMetricsF>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <stdexcept>

namespace sinkscope::render {

namespace {

constexpr double kMm = 72.0 / 25.4;  // points per millimetre
constexpr double kPageW = 210 * kMm, kPageH = 297 * kMm, kMargin = 16 * kMm;
constexpr double kTextW = kPageW - 2 * kMargin;

QFont report_font(const FigureOptions& o, double pt, bool bold = false) {
  QFont f(o.fontFamily.isEmpty() ? QStringLiteral("DejaVu Sans") : o.fontFamily);
  f.setPointSizeF(pt);
  f.setBold(bold);
  return f;
}

// Writes `text` wrapped to the text width from `y`; returns the y below it.
double paragraph(QPainter& p, const QFont& font, const QString& text, double x, double y,
                 double width) {
  p.setFont(font);
  const QRectF box = QFontMetricsF(font, p.device())
                         .boundingRect(QRectF(x, y, width, 1e6), Qt::TextWordWrap, text);
  p.drawText(QRectF(x, y, width, box.height() + 1), Qt::TextWordWrap, text);
  return y + box.height();
}

// The first page(s): title, front matter, the contents (figure -> page), the lists.
void front_pages(QPdfWriter& pdf, QPainter& p, const ReportDocument& doc, const FigureOptions& o) {
  double y = kMargin;
  auto room = [&](double needed) {
    if (y + needed <= kPageH - kMargin) return;
    pdf.newPage();
    y = kMargin;
  };
  y = paragraph(p, report_font(o, 16, true), doc.title, kMargin, y, kTextW) + 4 * kMm;
  for (const QString& line : doc.front) {
    room(12 * kMm);
    y = paragraph(p, report_font(o, 9), line, kMargin, y, kTextW) + 2 * kMm;
  }
  room(20 * kMm);
  y = paragraph(p, report_font(o, 11, true), QStringLiteral("Figures"), kMargin, y + 3 * kMm,
                kTextW) +
      1.5 * kMm;
  for (std::size_t k = 0; k < doc.figures.size(); ++k) {
    room(6 * kMm);
    const QString entry = QStringLiteral("Figure %1. %2").arg(k + 1).arg(doc.figures[k].part.name);
    y = paragraph(p, report_font(o, 8.5), entry, kMargin + 4 * kMm, y, kTextW - 4 * kMm) +
        0.6 * kMm;
  }
  for (const auto& [heading, items] : doc.lists) {
    if (items.empty()) continue;
    room(20 * kMm);
    y = paragraph(p, report_font(o, 11, true), heading, kMargin, y + 3 * kMm, kTextW) + 1.5 * kMm;
    for (const auto& [item, why] : items) {
      room(10 * kMm);
      y = paragraph(p, report_font(o, 8.5, true), item, kMargin + 4 * kMm, y, kTextW - 4 * kMm);
      if (!why.isEmpty())
        y = paragraph(p, report_font(o, 8.5), why, kMargin + 8 * kMm, y, kTextW - 8 * kMm);
      y += 1.2 * kMm;
    }
  }
}

}  // namespace

QByteArray report_pdf(const ReportDocument& doc, const FigureOptions& figureOptions) {
  // Every figure at the two-column size: A4's text width is 178 mm.
  FigureOptions o = figure_preset(FigurePreset::TwoColumns, 300);
  o.fontFamily = figureOptions.fontFamily;
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter pdf(&buffer);
  pdf.setPageSize(QPageSize(QPageSize::A4));
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  pdf.setResolution(72);
  pdf.setTitle(doc.title);
  pdf.setCreator(QStringLiteral("SinkScope"));
  {
    QPainter p(&pdf);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::black);
    front_pages(pdf, p, doc, figureOptions);
    const double figureW = o.widthMm * kMm, figureH = o.heightMm * kMm;
    const double slot = (kPageH - 2 * kMargin) / 2;
    for (std::size_t k = 0; k < doc.figures.size(); ++k) {
      if (k % 2 == 0) pdf.newPage();
      const double top = kMargin + static_cast<double>(k % 2) * slot;
      const ReportFigure& f = doc.figures[k];
      const QByteArray svg = figure_part_bytes(f.part, ExportFormat::Svg, o, {});
      QSvgRenderer renderer(svg);
      if (!renderer.isValid())
        throw std::runtime_error("the report's figure " + f.part.name.toStdString() +
                                 " could not be drawn");
      renderer.render(&p, QRectF(kMargin, top, figureW, figureH));
      paragraph(p, report_font(figureOptions, 8),
                QStringLiteral("Figure %1. %2").arg(k + 1).arg(f.caption), kMargin,
                top + figureH + 2 * kMm, kTextW);
    }
  }
  buffer.close();
  pdf_fix_creation_date(bytes);
  return bytes;
}

}  // namespace sinkscope::render
