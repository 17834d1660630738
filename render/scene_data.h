#pragma once
// A 3-D view's scene (models/views/scene.h) flat, as a picture from a camera
// direction: what a figure of a 3-D view draws, with or without a display.
#include <QPointF>
#include <QSizeF>
#include <vector>

#include "models/views/scene.h"

namespace sinkscope::render {

// The scene flat, in picture coordinates (y down).
struct ScenePicture {
  std::vector<QPointF> points;
  std::vector<double> pointRadii;
  std::vector<QPointF> ballCentres;
  std::vector<double> ballRadii;
};
// The scene seen from `camera` in perspective (a 30 degree view angle, the
// screen's), fitted into a picture of `size` below a title band of
// `titleShare` of its height: what a figure of a 3-D view draws, with or
// without a display.
ScenePicture scene_projection(const views::Scene& data, const views::SceneCamera& camera,
                              QSizeF size, double titleShare = 0.15);

}  // namespace sinkscope::render
