#include "render/figure_report.h"

#include <QBuffer>
#include <QFont>
#include <QFontMetricsF>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPen>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <algorithm>
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

// A number, or a number and its interval ("0.5 [0.1, 0.9]"): right-aligned.
bool is_number(const QString& cell) {
  bool ok = false;
  cell.section(QLatin1Char(' '), 0, 0).toDouble(&ok);
  return ok;
}

// A table as a grid (booktabs-like rules: above, under the header, below),
// columns as wide as their widest cell, numbers right-aligned. A table too
// wide for the text is drawn turned (one line per column, one column per
// row), and smaller still if that is too wide. `room(h)` starts a new page
// when h does not fit; returns the y below the table.
template <class Room>
double table_grid(QPainter& p, const ReportTable& t, double& y, const FigureOptions& o,
                  const Room& room, const QString& section = {}) {
  const double gap = 3 * kMm, x0 = kMargin + 4 * kMm, width = kTextW - 4 * kMm;
  // The grid as drawn: header and rows (turned when needed).
  auto widths_of = [&](const QStringList& header, const std::vector<QStringList>& rows, double pt) {
    const QFontMetricsF bold(report_font(o, pt, true), p.device()),
        plain(report_font(o, pt), p.device());
    std::vector<double> w(static_cast<std::size_t>(header.size()), 0.0);
    for (qsizetype c = 0; c < header.size(); ++c) w[c] = bold.horizontalAdvance(header[c]);
    for (const QStringList& r : rows)
      for (qsizetype c = 0; c < r.size() && c < header.size(); ++c)
        w[c] = std::max(w[c], plain.horizontalAdvance(r[c]));
    return w;
  };
  auto total = [&](const std::vector<double>& w) {
    double sum = 0;
    for (double v : w) sum += v;
    return sum + gap * static_cast<double>(w.empty() ? 0 : w.size() - 1);
  };
  QStringList header = t.columns;
  std::vector<QStringList> rows = t.rows;
  double pt = 7.5;
  std::vector<double> w = widths_of(header, rows, pt);
  if (total(w) > width && !rows.empty()) {
    // Turned, the rows are named by their first cell (a name, as a table's first column is).
    QStringList turnedHeader{header.front()};
    for (const QStringList& r : rows)
      turnedHeader << (rows.size() == 1 && is_number(r.value(0)) ? QStringLiteral("value")
                                                                 : r.value(0));
    std::vector<QStringList> turned;
    for (qsizetype c = 1; c < header.size(); ++c) {
      QStringList line{header[c]};
      for (const QStringList& r : rows) line << (c < r.size() ? r[c] : QString());
      turned.push_back(line);
    }
    header = turnedHeader, rows = turned;
    w = widths_of(header, rows, pt);
  }
  if (total(w) > width) {
    pt = std::max(5.0, pt * width / total(w));
    w = widths_of(header, rows, pt);
  }
  const double line = QFontMetricsF(report_font(o, pt), p.device()).height() + 0.8 * kMm;
  // The whole table on one page where it fits one (a reader should not turn
  // the page for its last rows, headless); else at least its first rows.
  auto height_of = [&](const QString& text, const QFont& font, double w) {
    return text.isEmpty() ? 0.0
                          : QFontMetricsF(font, p.device())
                                .boundingRect(QRectF(0, 0, w, 1e6), Qt::TextWordWrap, text)
                                .height();
  };
  const double whole = height_of(t.heading, report_font(o, 8.5, true), kTextW - 4 * kMm) + kMm +
                       static_cast<double>(rows.size() + 1) * line +
                       height_of(t.note, report_font(o, 7.5), width) + 2 * kMm;
  // A section's heading goes with its first table (never alone at a page's foot).
  const double sectionH =
      section.isEmpty() ? 0.0 : height_of(section, report_font(o, 11, true), kTextW) + 4.5 * kMm;
  room(sectionH + (whole <= kPageH - 2 * kMargin - sectionH ? whole : 3 * line));
  if (!section.isEmpty())
    y = paragraph(p, report_font(o, 11, true), section, kMargin, y + 3 * kMm, kTextW) + 1.5 * kMm;
  p.setFont(report_font(o, 8.5, true));
  y = paragraph(p, report_font(o, 8.5, true), t.heading, kMargin + 4 * kMm, y, kTextW - 4 * kMm) +
      kMm;
  auto rule = [&](double at, double thickness) {
    p.setPen(QPen(Qt::black, thickness));
    p.drawLine(QPointF(x0, at), QPointF(x0 + std::min(width, total(w)), at));
  };
  auto draw_row = [&](const QStringList& cells, bool bold) {
    room(line);
    p.setFont(report_font(o, pt, bold));
    double x = x0;
    for (qsizetype c = 0; c < header.size(); ++c) {
      const QString cell = c < cells.size() ? cells[c] : QString();
      // Numbers right-aligned, and the heading of a column of numbers with them.
      const QString sample = bold && !rows.empty() ? rows.front().value(c) : cell;
      const Qt::Alignment align =
          (is_number(sample) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter;
      p.drawText(QRectF(x, y, w[static_cast<std::size_t>(c)], line), align, cell);
      x += w[static_cast<std::size_t>(c)] + gap;
    }
    y += line;
  };
  rule(y, 0.8);
  draw_row(header, true);
  rule(y, 0.4);
  for (const QStringList& r : rows) draw_row(r, false);
  rule(y, 0.8);
  if (!t.note.isEmpty()) y = paragraph(p, report_font(o, 7.5), t.note, x0, y + 0.8 * kMm, width);
  return y + 2.5 * kMm;
}

// A report figure drawn as SVG: one view alone, several as one lettered figure.
QByteArray figure_svg(const ReportFigure& f, const FigureOptions& o) {
  if (f.parts.empty())
    throw std::runtime_error("the report's figure " + f.name.toStdString() + " has no view");
  return f.parts.size() == 1 ? figure_part_bytes(f.parts.front(), ExportFormat::Svg, o, {})
                             : figure_parts_bytes(f.parts, ExportFormat::Svg, o, 0);
}

// The first page(s): title, front matter, the contents (figure -> page), the tables, the lists.
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
    const QString entry = QStringLiteral("Figure %1. %2").arg(k + 1).arg(doc.figures[k].name);
    y = paragraph(p, report_font(o, 8.5), entry, kMargin + 4 * kMm, y, kTextW - 4 * kMm) +
        0.6 * kMm;
  }
  for (std::size_t k = 0; k < doc.tables.size(); ++k)
    y = table_grid(p, doc.tables[k], y, o, room, k == 0 ? QStringLiteral("Tables") : QString());
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
    const double figureW = o.widthMm * kMm;
    const double slot = (kPageH - 2 * kMargin) / 2;
    const QFont captionFont = report_font(figureOptions, 8);
    int slotsUsed = 2;  // of the current page: the first figure starts a page
    for (std::size_t k = 0; k < doc.figures.size(); ++k) {
      const ReportFigure& f = doc.figures[k];
      QSvgRenderer renderer(figure_svg(f, o));
      if (!renderer.isValid() || renderer.defaultSize().isEmpty())
        throw std::runtime_error("the report's figure " + f.name.toStdString() +
                                 " could not be drawn");
      const QString caption = QStringLiteral("Figure %1. %2").arg(k + 1).arg(f.caption);
      const double captionH =
          QFontMetricsF(captionFont, p.device())
              .boundingRect(QRectF(0, 0, kTextW, 1e6), Qt::TextWordWrap, caption)
              .height() +
          4 * kMm;
      double width = figureW;
      double height = f.parts.size() == 1 ? o.heightMm * kMm
                                          : width * renderer.defaultSize().height() /
                                                renderer.defaultSize().width();
      // Half a page (one view always); several views too tall for it: a page of
      // their own, smaller if even that is short.
      const int slots = f.parts.size() == 1 || height + captionH <= slot ? 1 : 2;
      if (slots == 2 && height + captionH > 2 * slot) {
        const double scale = (2 * slot - captionH) / height;
        width *= scale, height *= scale;
      }
      if (slotsUsed + slots > 2) {
        pdf.newPage();
        slotsUsed = 0;
      }
      const double top = kMargin + static_cast<double>(slotsUsed) * slot;
      renderer.render(&p, QRectF(kMargin + (figureW - width) / 2, top, width, height));
      paragraph(p, captionFont, caption, kMargin, top + height + 2 * kMm, kTextW);
      slotsUsed += slots;
    }
  }
  buffer.close();
  pdf_fix_creation_date(bytes);
  return bytes;
}

namespace {

// A figure's SVG as an element of the page: without its XML prolog, scaled
// to the column's width.
QString inline_svg(const QByteArray& svg) {
  QString text = QString::fromUtf8(svg);
  const qsizetype start = text.indexOf(QStringLiteral("<svg"));
  if (start < 0) throw std::runtime_error("a report figure's SVG has no <svg> element");
  text = text.mid(start);
  // The drawing keeps its viewBox; the page gives it the column's width.
  const qsizetype end = text.indexOf(QLatin1Char('>'));
  QString head = text.left(end);
  static const QRegularExpression size(QStringLiteral("\\s(width|height)=\"[^\"]*\""));
  head.replace(size, QString());
  return head + QStringLiteral(" style=\"width:100%;height:auto\" role=\"img\"") + text.mid(end);
}

QString cell_class(const QString& cell) {
  return is_number(cell) ? QStringLiteral(" class=\"n\"") : QString();
}

}  // namespace

QByteArray report_html(const ReportDocument& doc, const FigureOptions& figureOptions) {
  FigureOptions o = figure_preset(FigurePreset::TwoColumns, 300);
  o.fontFamily = figureOptions.fontFamily;
  const QString family =
      (o.fontFamily.isEmpty() ? QStringLiteral("DejaVu Sans") : o.fontFamily).toHtmlEscaped();
  QString html;
  html += QStringLiteral(
              "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<title>%1</title>\n<style>\n"
              "body{font-family:'%2',sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;"
              "color:#111;line-height:1.45}\n"
              "h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1rem}\n"
              "figure{margin:2rem 0;page-break-inside:avoid}"
              "figcaption{font-size:.85rem;margin-top:.4rem}\n"
              "table{border-collapse:collapse;font-size:.8rem;margin:.5rem 0 .3rem}"
              "th,td{padding:.15rem .6rem;text-align:left;white-space:nowrap}"
              "th{border-bottom:1px solid #000}thead tr{border-top:2px solid #000}"
              "tbody tr:last-child td{border-bottom:2px solid #000}.n{text-align:right}\n"
              ".table{overflow-x:auto}.note{font-size:.75rem;color:#333}"
              "dt{font-weight:bold;font-size:.9rem}dd{font-size:.9rem;margin:0 0 .5rem 1.5rem}\n"
              "</style>\n</head>\n<body>\n<h1>%1</h1>\n")
              .arg(doc.title.toHtmlEscaped(), family);
  for (const QString& line : doc.front)
    html += QStringLiteral("<p>%1</p>\n").arg(line.toHtmlEscaped());
  html += QStringLiteral("<h2>Figures</h2>\n<ol>\n");
  for (std::size_t k = 0; k < doc.figures.size(); ++k)
    html += QStringLiteral("<li><a href=\"#figure-%1\">%2</a></li>\n")
                .arg(k + 1)
                .arg(doc.figures[k].name.toHtmlEscaped());
  html += QStringLiteral("</ol>\n");
  if (!doc.tables.empty()) html += QStringLiteral("<h2>Tables</h2>\n");
  for (const ReportTable& t : doc.tables) {
    html += QStringLiteral("<h3>%1</h3>\n<div class=\"table\"><table>\n<thead><tr>")
                .arg(t.heading.toHtmlEscaped());
    const QString sample = QString();
    for (qsizetype c = 0; c < t.columns.size(); ++c)
      html += QStringLiteral("<th%1>%2</th>")
                  .arg(!t.rows.empty() ? cell_class(t.rows.front().value(c)) : sample,
                       t.columns[c].toHtmlEscaped());
    html += QStringLiteral("</tr></thead>\n<tbody>\n");
    for (const QStringList& row : t.rows) {
      html += QStringLiteral("<tr>");
      for (qsizetype c = 0; c < t.columns.size(); ++c)
        html += QStringLiteral("<td%1>%2</td>")
                    .arg(cell_class(row.value(c)), row.value(c).toHtmlEscaped());
      html += QStringLiteral("</tr>\n");
    }
    html += QStringLiteral("</tbody></table></div>\n");
    if (!t.note.isEmpty())
      html += QStringLiteral("<p class=\"note\">%1</p>\n").arg(t.note.toHtmlEscaped());
  }
  for (const auto& [heading, items] : doc.lists) {
    if (items.empty()) continue;
    html += QStringLiteral("<h2>%1</h2>\n<dl>\n").arg(heading.toHtmlEscaped());
    for (const auto& [item, why] : items)
      html +=
          QStringLiteral("<dt>%1</dt><dd>%2</dd>\n").arg(item.toHtmlEscaped(), why.toHtmlEscaped());
    html += QStringLiteral("</dl>\n");
  }
  for (std::size_t k = 0; k < doc.figures.size(); ++k) {
    const ReportFigure& f = doc.figures[k];
    const QByteArray svg = figure_svg(f, o);
    html += QStringLiteral(
                "<figure id=\"figure-%1\">\n%2\n<figcaption>Figure %1. %3</figcaption>\n"
                "</figure>\n")
                .arg(k + 1)
                .arg(inline_svg(svg), f.caption.toHtmlEscaped());
  }
  html += QStringLiteral("</body>\n</html>\n");
  return html.toUtf8();
}

}  // namespace sinkscope::render
