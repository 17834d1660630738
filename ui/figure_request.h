#pragma once
// A figure by name: the views a figure is made of, from the names the
// command line takes (`sinkscope figure --panel persistence`; the panels are
// ui/panel_registry.h's), and a figure request as one command: the same code
// draws Ctrl+E's figures and the ones made without a display.
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "render/panel_export.h"
#include "render/scene_data.h"

namespace sinkscope::ui {

// The views of a figure from names: a panel's name gives all its views (in
// order), a view's name (e.g. "bettiCurves") that view alone. Throws
// std::invalid_argument naming the unknown name and listing the known ones.
QStringList figure_views_of(const QStringList& names);

struct FigureRequest {
  QStringList names;  // panels or views, as figure_views_of takes them
  QString out;        // .pdf, .svg, .png; .csv for one view's numbers
  bool force = false;  // replace `out` when it exists (a regular file only)
  render::FigureOptions options = render::figure_preset(render::FigurePreset::OneColumn);
  int columns = 0;    // 0: one row
  // The selection, when given (else the session's or the default).
  std::optional<int> layer, head, query, key;
  std::optional<double> threshold;
  std::optional<int> topN;
  // Every 3-D view is seen from this camera, when given (else the session's).
  std::optional<views::SceneCamera> camera;
  // A comparison's run B (started by the caller, or a session's): B pinned at
  // this layer and head (head -1: B's average), and what the panels show
  // (comparison_name: before = A, after = B, difference, side_by_side).
  std::optional<int> compareLayer, compareHead;
  QString comparison;
};

}  // namespace sinkscope::ui
