#pragma once
// What the window's views were last given to draw, by view name: the
// document layer's descriptions, as they came. Figures and exports of a view
// read them here; a widget only draws what it is given and lends its size on
// screen and, for a 3-D view, the camera the user turned it to.
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "render/figure_part.h"

namespace sinkscope::render {

class HeadView;
class HeatMapView;
class LinePlotView;
class SceneView;

class DrawnViews {
 public:
  // Shows `data` in `view`, or where there is no OpenGL keeps its stand-in's
  // words, and records it under their name. Throws what the view throws
  // for bad data (then nothing is recorded).
  void show(LinePlotView* view, views::LinePlot data);
  void show(HeadView* view, views::HeadViewData data);
  void show(HeatMapView* view, FigureStandIn* standIn, views::HeatMap data);
  void show(SceneView* view, FigureStandIn* standIn, views::Scene data);

  // The description drawn in `view` (by its object name), at its size on
  // screen and, for a scene, from its camera; none when nothing was drawn.
  std::optional<FigurePart> part(const QWidget* view) const;
  // Whether `view` shows something recorded here (it can be exported).
  bool exportable(const QWidget* view) const {
    return view && !view->objectName().isEmpty() && parts_.count(view->objectName()) > 0;
  }
  // The parts of `views`, in order. Throws std::invalid_argument for a view
  // with nothing drawn.
  std::vector<FigurePart> parts(const std::vector<QWidget*>& views) const;

 private:
  // `name` now draws `data` (its part holds nothing else).
  template <class Data>
  void record(const QString& name, std::shared_ptr<const Data> FigurePart::*slot,
              std::shared_ptr<const Data> data) {
    FigurePart& part = parts_[name];
    part = FigurePart{};
    part.*slot = std::move(data);
  }

  std::map<QString, FigurePart> parts_;
};

}  // namespace sinkscope::render
