#pragma once
// What a 3-D view draws (points, edges, balls, title), as plain data, and the
// camera it is seen from: the screen's SceneView and the figure writer (with
// or without a display) draw the same Scene.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/views/colours.h"

namespace sinkscope::views {

struct ScenePoint {
  std::array<double, 3> position{};
  Rgb color{0.5, 0.5, 0.5};
  double size = 1.0;  // relative radius
  std::string label;  // drawn beside the point when the scene has few points
  int token = -1;     // the token the point stands for (hover reports it), -1: none
  // Ringed in the sink colour: a sink where the fill shows another number
  // (the spectral embedding's Fiedler colours).
  bool sinkRing = false;
};

struct SceneEdge {
  int from = 0, to = 0;
  double weight = 1.0;  // line opacity in [0, 1]
  bool lit = false;     // drawn in the selection colour (a highlighted edge)
};

struct SceneBall {
  std::array<double, 3> center{};
  double radius = 1.0;
  Rgb color{0.3, 0.3, 0.3};
};

// What the points' colours stand for when they follow a number (the
// diverging map: blue at lo, white at 0, red at hi).
struct SceneColourBar {
  std::string name;
  double lo = -1.0, hi = 1.0;
};

struct Scene {
  std::string title;
  std::vector<ScenePoint> points;
  std::vector<SceneEdge> edges;
  std::vector<SceneBall> balls;
  std::string legend;  // one line under the title: what the colours mean
  std::optional<SceneColourBar> colourBar = {};  // drawn beside the scene
};

// Throws std::invalid_argument when an edge names a missing point.
// The scene without the window's highlights (lit edges).
Scene scene_without_selection(Scene data);
void scene_check(const Scene& data);
// The world length of a point of size 1: 1/40 of the scene's largest extent.
double scene_glyph_unit(const Scene& data);

// Scenes with up to this many points label every point; larger ones label
// only their kSceneTopLabels largest points. Either way a label that would
// overlap a larger point's label is left out (label_layout.h).
inline constexpr int kSceneMaxLabels = 64;
inline constexpr int kSceneTopLabels = 24;

// The points of `points` that get a label (before overlaps are removed).
std::vector<std::size_t> scene_labelled_points(const std::vector<ScenePoint>& points);

// Where a camera looks from: the unit direction from the scene's centre to
// the camera and the direction that is up on the picture. The default looks
// down the z axis with y up (azimuth 0, elevation 0).
struct SceneCamera {
  std::array<double, 3> direction{0.0, 0.0, 1.0};
  std::array<double, 3> up{0.0, 1.0, 0.0};
  bool operator==(const SceneCamera&) const = default;
};
// The camera turned by `azimuth` degrees about the up axis (y), then raised
// by `elevation` degrees (as VTK's Azimuth and Elevation do from its default).
SceneCamera scene_camera_from_angles(double azimuthDegrees, double elevationDegrees);
// A camera made valid: unit direction, up orthogonal to it; the default when
// the vectors are not finite, zero, or parallel.
SceneCamera scene_camera_normalised(const SceneCamera& camera);

}  // namespace sinkscope::views
