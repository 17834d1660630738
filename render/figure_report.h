#pragma once
// A report of several figures as one PDF: a first page that says what the
// report holds (its tables drawn as tables, and what it leaves out, with why), then the figures two
// to an A4 page, each drawn as vectors at the two-column size with its caption beneath (a
// figure of several views too tall for half a page gets a page of its own).
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

#include "render/figure_part.h"
#include "render/panel_export.h"

namespace sinkscope::render {

struct ReportFigure {
  QString name;                   // its entry in the contents
  std::vector<FigurePart> parts;  // one view, or several side by side (lettered (a), (b), ...)
  QString caption;
};

// A table of the report: its heading, its columns and rows of cells as
// written (numbers already rounded for reading), a line under it.
struct ReportTable {
  QString heading;
  QStringList columns;
  std::vector<QStringList> rows;
  QString note;
};

struct ReportDocument {
  QString title;
  QStringList front;  // paragraphs of the first page, under the title
  std::vector<ReportFigure> figures;
  std::vector<ReportTable> tables;  // after the contents, before the lists
  // Sections of the first page after the contents: a heading and its (item, why) lines.
  std::vector<std::pair<QString, std::vector<std::pair<QString, QString>>>> lists;
};

// The report's bytes (a deterministic PDF: the same document gives the same bytes).
QByteArray report_pdf(const ReportDocument& doc, const FigureOptions& figureOptions);
// The same report as one self-contained HTML page (UTF-8, no script, no
// link outside it): the figures inline as SVG at the two-column size, the
// tables as tables. Every text from the document is escaped.
QByteArray report_html(const ReportDocument& doc, const FigureOptions& figureOptions);

}  // namespace sinkscope::render
