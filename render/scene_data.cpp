#include "render/scene_data.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sinkscope::render {

namespace {
using Vec = std::array<double, 3>;
double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec scaled(const Vec& a, double k) { return {a[0] * k, a[1] * k, a[2] * k}; }
Vec minus(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double degrees_to_radians(double d) { return d * std::numbers::pi / 180.0; }
}  // namespace

ScenePicture scene_projection(const views::Scene& data, const views::SceneCamera& camera,
                              QSizeF size, double titleShare) {
  ScenePicture out;
  if (data.points.empty() && data.balls.empty()) return out;
  const views::SceneCamera cam = views::scene_camera_normalised(camera);
  const Vec right = cross(cam.up, cam.direction);
  // The camera frames the scene's bounding box as VTK's ResetCamera does:
  // looking at its centre from where its bounding sphere fills the view angle.
  Vec lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  auto extend = [&](const Vec& p, double r) {
    for (std::size_t k = 0; k < 3; ++k)
      lo[k] = std::min(lo[k], p[k] - r), hi[k] = std::max(hi[k], p[k] + r);
  };
  for (const views::ScenePoint& p : data.points) extend(p.position, 0.0);
  for (const views::SceneBall& b : data.balls) extend(b.center, std::abs(b.radius));
  const Vec centre = scaled({lo[0] + hi[0], lo[1] + hi[1], lo[2] + hi[2]}, 0.5);
  double radius = 0.5 * std::sqrt(dot(minus(hi, lo), minus(hi, lo)));
  if (!(radius > 0) || !std::isfinite(radius)) radius = 1.0;
  const double distance = radius / std::sin(degrees_to_radians(15.0));
  // Perspective: x, y on the camera's plane, shrunk by depth.
  struct Flat { double x, y, depthScale; };
  auto flat = [&](const Vec& p) {
    const Vec rel = minus(p, centre);
    const double s = distance / std::max(distance - dot(rel, cam.direction), 1e-9 * distance);
    return Flat{dot(rel, right) * s, dot(rel, cam.up) * s, s};
  };
  const double unit = views::scene_glyph_unit(data);
  std::vector<Flat> points, balls;
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const views::ScenePoint& p : data.points) {
    points.push_back(flat(p.position));
    x0 = std::min(x0, points.back().x), x1 = std::max(x1, points.back().x);
    y0 = std::min(y0, points.back().y), y1 = std::max(y1, points.back().y);
  }
  for (const views::SceneBall& b : data.balls) {
    balls.push_back(flat(b.center));
    const double r = std::abs(b.radius) * balls.back().depthScale;
    x0 = std::min(x0, balls.back().x - r), x1 = std::max(x1, balls.back().x + r);
    y0 = std::min(y0, balls.back().y - r), y1 = std::max(y1, balls.back().y + r);
  }
  // Fitted: the box of the projected scene fills 80% of the picture below the
  // title (room for labels); a scene flat to the camera (or a single point)
  // is not blown up past the size of its bounding sphere.
  const double minimum = radius;
  const double width = std::max(1.0, size.width());
  const double height = std::max(1.0, size.height() * (1.0 - std::clamp(titleShare, 0.0, 0.9)));
  const double k = 0.8 * std::min(width / std::max(x1 - x0, minimum),
                                  height / std::max(y1 - y0, minimum));
  const QPointF middle(width / 2, size.height() - height / 2);
  const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  auto place = [&](const Flat& f) {
    return QPointF(middle.x() + (f.x - cx) * k, middle.y() - (f.y - cy) * k);
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    out.points.push_back(place(points[i]));
    out.pointRadii.push_back(data.points[i].size * unit * points[i].depthScale * k);
  }
  for (std::size_t i = 0; i < balls.size(); ++i) {
    out.ballCentres.push_back(place(balls[i]));
    out.ballRadii.push_back(std::abs(data.balls[i].radius) * balls[i].depthScale * k);
  }
  return out;
}

}  // namespace sinkscope::render
