#include "models/views/scene.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <stdexcept>

namespace sinkscope::views {

namespace {
using Vec = std::array<double, 3>;
double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec scaled(const Vec& a, double k) { return {a[0] * k, a[1] * k, a[2] * k}; }
Vec minus(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double degrees_to_radians(double d) { return d * std::numbers::pi / 180.0; }
}  // namespace

Scene scene_without_selection(Scene data) {
  for (SceneEdge& e : data.edges) e.lit = false;
  return data;
}

void scene_check(const Scene& data) {
  for (const SceneEdge& e : data.edges)
    if (e.from < 0 || e.to < 0 || e.from >= static_cast<int>(data.points.size()) ||
        e.to >= static_cast<int>(data.points.size()))
      throw std::invalid_argument("scene: an edge names a point that does not exist");
}

double scene_glyph_unit(const Scene& data) {
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (const auto& p : data.points)
    for (std::size_t k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p.position[k]);
      hi[k] = std::max(hi[k], p.position[k]);
    }
  double extent = 0;
  for (int k = 0; k < 3; ++k) extent = std::max(extent, hi[k] - lo[k]);
  if (!(extent > 0) || !std::isfinite(extent)) extent = 1.0;
  return extent / 40.0;
}

std::vector<std::size_t> scene_labelled_points(const std::vector<ScenePoint>& points) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < points.size(); ++k)
    if (!points[k].label.empty()) out.push_back(k);
  if (points.size() <= static_cast<std::size_t>(kSceneMaxLabels)) return out;
  // Many points: only the largest ones (the tokens that matter most) get labels.
  std::stable_sort(out.begin(), out.end(),
                   [&](std::size_t a, std::size_t b) { return points[a].size > points[b].size; });
  if (out.size() > static_cast<std::size_t>(kSceneTopLabels)) out.resize(kSceneTopLabels);
  std::sort(out.begin(), out.end());
  return out;
}

SceneCamera scene_camera_from_angles(double azimuthDegrees, double elevationDegrees) {
  const double a = degrees_to_radians(azimuthDegrees), e = degrees_to_radians(elevationDegrees);
  SceneCamera c;
  c.direction = {std::cos(e) * std::sin(a), std::sin(e), std::cos(e) * std::cos(a)};
  c.up = {-std::sin(e) * std::sin(a), std::cos(e), -std::sin(e) * std::cos(a)};
  return scene_camera_normalised(c);
}

namespace {
// The camera with a unit direction and a unit up orthogonal to it; nothing when degenerate.
std::optional<SceneCamera> orthonormal(const SceneCamera& camera) {
  const Vec d = camera.direction;
  const double dn = std::sqrt(dot(d, d));
  if (!std::isfinite(dn) || dn < 1e-12) return std::nullopt;
  const Vec dir = scaled(d, 1.0 / dn);
  const Vec u = minus(camera.up, scaled(dir, dot(camera.up, dir)));
  const double un = std::sqrt(dot(u, u));
  if (!std::isfinite(un) || un < 1e-9 * std::max(1.0, std::sqrt(dot(camera.up, camera.up))))
    return std::nullopt;
  return SceneCamera{dir, scaled(u, 1.0 / un)};
}
}  // namespace

SceneCamera scene_camera_normalised(const SceneCamera& camera) {
  return orthonormal(camera).value_or(SceneCamera{});
}

}  // namespace sinkscope::views
