#pragma once
// Exporting a panel as a figure (PNG at a chosen DPI, vector PDF and SVG) or
// as the CSV of exactly the numbers it draws (shared/spec/ui-and-formats.md).
// Every file is written atomically; an existing file is replaced only when
// asked. Heat maps are drawn for export with QPainter, cell by cell, so the
// PDF and SVG are true vector figures at any size.
#include <QString>
#include <QStringList>

namespace sinkscope::render {

class HeatMapView;
class LinePlotView;
class SceneView;
struct HeatMapData;
struct LinePlotData;
struct SceneData;

enum class ExportFormat { Png, Pdf, Svg, Csv };

// From a file name's suffix (.png, .pdf, .svg, .csv); throws std::invalid_argument otherwise.
ExportFormat export_format_of(const QString& path);

// `comments` become "# ..." lines at the top of a CSV (tool, model, text, parameters).
QString line_plot_csv(const LinePlotData& data, const QStringList& comments);
QString heat_map_csv(const HeatMapData& data, const QStringList& comments);
// One row per point (token, label, x, y, z, size), edge (from, to, weight) and ball.
QString scene_csv(const SceneData& data, const QStringList& comments);

// Throws std::runtime_error naming the file and the problem.
void line_plot_export(const LinePlotView& view, const QString& path, int dpi,
                      const QStringList& comments, bool overwrite);
void heat_map_export(const HeatMapView& view, const QString& path, int dpi,
                     const QStringList& comments, bool overwrite);
// A 3-D view exports what its camera shows now, drawn flat (points as discs,
// balls as circles), so PNG, PDF and SVG all work; the CSV has the 3-D
// coordinates.
void scene_export(SceneView& view, const QString& path, int dpi, const QStringList& comments,
                  bool overwrite);

}  // namespace sinkscope::render
