#pragma once
// Exporting a panel as a figure (PNG at a chosen DPI, vector PDF and SVG) or
// as the CSV of exactly the numbers it draws (shared/spec/ui-and-formats.md).
// Every file is written atomically; an existing file is replaced only when
// asked. Heat maps are drawn for export with QPainter, cell by cell, so the
// PDF and SVG are true vector figures at any size.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <vector>

class QWidget;

namespace sinkscope::views {
struct HeadViewData;
struct HeatMap;
struct Scene;
struct LinePlot;
}

namespace sinkscope::render {

class HeatMapView;
class LinePlotView;
class SceneView;

struct FigurePart;

enum class ExportFormat { Png, Pdf, Svg, Csv, Json };

// Every export format, one row each: a new format is a row here and its
// bytes in figure_bytes (panel_export.cpp); the command line, the suffix
// checks and the file dialogs read this list.
struct ExportFormatInfo {
  ExportFormat format;
  QString suffix;     // "pdf"
  QString filter;     // a file dialog's "PDF (*.pdf)"
  bool drawing;       // a drawing (PNG, PDF, SVG), not a view's data (CSV, JSON)
};
const std::vector<ExportFormatInfo>& export_formats();
// "png, pdf, svg or csv" (drawings only when `numbers` is false).
QString export_suffixes_text(bool numbers);
// A file dialog's filters, the format with `first` suffix first; CSV only when `numbers`.
QString export_file_filters(bool numbers, const QString& first = QStringLiteral("png"));

// How a figure is made. The figure is the same drawing in
// every format: PNG is the PDF's page at `dpi`.
struct FigureOptions {
  int dpi = 300;             // PNG only
  double widthMm = 0.0;      // 0: the panel's size on screen (one pixel, one point)
  double heightMm = 0.0;
  double fontPt = 0.0;       // 0: the sizes the screen uses (8 pt text, larger titles)
  QString fontFamily;        // empty: DejaVu Sans (a Debian font, embedded in PDFs)
  bool transparent = false;  // no white background (PNG, SVG, PDF)
  bool visibleSpaces = false;  // token labels keep "␣" for spaces (plain spaces otherwise)
  // The title drawn on a sized (paper) figure; empty: none, as a caption says
  // what the figure is. Screen-sized figures draw each view's own title. The
  // view's title always goes into the file's metadata.
  QString title;
  // Whether a paper (sized) figure draws the window's selection: the framed
  // cell or head, the selected layer or key, highlights. Screen-sized
  // figures draw what the screen shows.
  bool drawSelection = false;
};

// A PDF's creation date as $SOURCE_DATE_EPOCH's (else the epoch's), so that
// the same drawing gives the same bytes.
void pdf_fix_creation_date(QByteArray& pdf);

// Paper sizes: one column 85 x 64 mm, two columns 178 x 100 mm (text 8 pt),
// a 16:9 slide 254 x 143 mm (text 16 pt); Screen: the panel's own size.
enum class FigurePreset { Screen, OneColumn, TwoColumns, Slide };
FigureOptions figure_preset(FigurePreset preset, int dpi = 300);
// A token label as a figure shows it: "␣" (the screen's visible space) as a plain space.
QString figure_label(const QString& label, bool visibleSpaces);

// Makes Qt's hashing the same in every process (QHashSeed's deterministic
// seed), so that a PDF lists its fonts in the same order and the same figure
// is the same file. Call first in main(), before any QHash is filled.
void figure_hash_seed();

// The rules every output keeps: throws std::runtime_error naming the path when
// it is a link, a folder, a FIFO or a device (never written through or
// replaced) or a file that exists while `overwrite` is false.
void figure_output_check(const QString& path, bool overwrite);

// A PNG is at most this many pixels (4 bytes each while it is drawn) and this
// many on a side; figure_check_pixels throws std::invalid_argument naming the
// size, the DPI and the limit for a larger one (widths and heights in points).
inline constexpr double kFigureMaxPixels = 150e6;
inline constexpr double kFigureMaxSide = 32767;
void figure_check_pixels(double widthPt, double heightPt, int dpi);

// The ticks of a colour bar from lo to hi: round numbers (1, 2, 2.5 or 5
// times a power of ten), at least 4, on a linear scale; the decades on a log
// scale (with 2 and 5 times them where fewer than two decades show).
std::vector<double> colour_bar_ticks(double lo, double hi, bool logScale);

// From a file name's suffix (.png, .pdf, .svg, .csv); throws std::invalid_argument otherwise.
ExportFormat export_format_of(const QString& path);

// `comments` become "# ..." lines at the top of a CSV (tool, model, text, parameters).
QString line_plot_csv(const views::LinePlot& data, const QStringList& comments);
QString heat_map_csv(const views::HeatMap& data, const QStringList& comments);
// One row per point (token, label, x, y, z, size), edge (from, to, weight) and ball.
QString scene_csv(const views::Scene& data, const QStringList& comments);
// One row per head, query and key the query sees (head, query, key, their tokens, weight).
QString head_view_csv(const views::HeadViewData& data, const QStringList& comments);

// One view's figure (PNG, PDF, SVG) or its CSV, from its part (figure_part.h).
// Throws std::runtime_error naming the file and the problem.
void figure_part_export(const FigurePart& part, const QString& path, const FigureOptions& options,
                        const QStringList& comments, bool overwrite);
QString figure_part_csv(const FigurePart& part, const QStringList& comments);
// The view's description as JSON (models/views/view_json.h): what it draws
// and its numbers, with the comments as a "header" object (and a 3-D view's
// camera).
QString figure_part_json(const FigurePart& part, const QStringList& comments);
// The file figure_part_export writes, as bytes: for sets of files written all
// or none (io::files_write_atomic).
QByteArray figure_part_bytes(const FigurePart& part, ExportFormat format,
                             const FigureOptions& options, const QStringList& comments);

// The same for a view on screen. Throws std::runtime_error naming the file and the problem.
void line_plot_export(const LinePlotView& view, const QString& path, const FigureOptions& options,
                      const QStringList& comments, bool overwrite);
void heat_map_export(const HeatMapView& view, const QString& path, const FigureOptions& options,
                     const QStringList& comments, bool overwrite);
// A 3-D view exports the scene from its camera's direction, fitted to the
// figure and drawn flat (points as discs, balls as circles), so PNG, PDF and
// SVG all work; the CSV has the 3-D coordinates.
void scene_export(SceneView& view, const QString& path, const FigureOptions& options,
                  const QStringList& comments, bool overwrite);

// Several views' parts as one figure (a whole panel with its sub-plots, or views
// from several panels): a grid of `columns` cells (0: automatic, see
// figure_columns), each view at its size on screen; when the options give a
// size, the width is shared out and the height grows by rows
// (figure_height_mm). Labelled (a), (b), ... at the top left. A plot with
// nothing to draw (its title says why: "not computed") is left out while
// another view has something, so a paper figure holds no empty cell; the
// titles of those left out are returned. PNG, PDF or SVG only (each view
// exports its own CSV). Throws std::runtime_error or std::invalid_argument
// naming the problem.
QStringList figure_export(std::vector<FigurePart> parts, const QString& path,
                          const FigureOptions& options, int columns, bool overwrite);
// The same figure as bytes (PNG, PDF or SVG), for sets of files written all
// or none; `leftOut`, when given, hears the titles of the empty plots left out.
QByteArray figure_parts_bytes(std::vector<FigurePart> parts, ExportFormat format,
                              const FigureOptions& options, int columns,
                              QStringList* leftOut = nullptr);
// A journal page's text height: a figure of several rows grows up to it.
inline constexpr double kPageTextHeightMm = 230.0;
// The least height a sized figure gives a plot's axes (a row grows for it):
// what a reader needs to read values off a one-column plot.
inline constexpr double kMinAxesHeightMm = 24.0;
// The height of a sized figure of `rows` rows: the options' for one row;
// for more, each row 0.7 of it (at least 44 mm, so a one-column figure of
// three views stays a column's figure, not a page), up to kPageTextHeightMm.
double figure_height_mm(const FigureOptions& options, int rows);
// The columns of a figure of `views` views: `columns` when given (> 0), else
// one per 85 mm of the figure's width (one column: views stacked; two
// columns: two per row), or one row when the figure has the screen's size.
int figure_columns(const FigureOptions& options, int views, int columns);

// The same at `dpi` with the panel's own size and fonts.
inline void line_plot_export(const LinePlotView& view, const QString& path, int dpi,
                             const QStringList& comments, bool overwrite) {
  FigureOptions o;
  o.dpi = dpi;
  line_plot_export(view, path, o, comments, overwrite);
}
inline void heat_map_export(const HeatMapView& view, const QString& path, int dpi,
                            const QStringList& comments, bool overwrite) {
  FigureOptions o;
  o.dpi = dpi;
  heat_map_export(view, path, o, comments, overwrite);
}
inline void scene_export(SceneView& view, const QString& path, int dpi, const QStringList& comments,
                         bool overwrite) {
  FigureOptions o;
  o.dpi = dpi;
  scene_export(view, path, o, comments, overwrite);
}

}  // namespace sinkscope::render
