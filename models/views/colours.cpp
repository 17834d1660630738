#include "models/views/colours.h"

#include <algorithm>
#include <cmath>

namespace sinkscope::views {
namespace {
// Matplotlib's viridis at t = 0, 0.1, ..., 1 (#440154 ... #fde725); linear
// interpolation between them stays within a few 1/255 of the full table.
constexpr std::array<Rgb, 11> kViridisAnchors{{
    {0x44 / 255.0, 0x01 / 255.0, 0x54 / 255.0},
    {0x48 / 255.0, 0x24 / 255.0, 0x75 / 255.0},
    {0x41 / 255.0, 0x44 / 255.0, 0x87 / 255.0},
    {0x35 / 255.0, 0x5f / 255.0, 0x8d / 255.0},
    {0x2a / 255.0, 0x78 / 255.0, 0x8e / 255.0},
    {0x21 / 255.0, 0x91 / 255.0, 0x8c / 255.0},
    {0x22 / 255.0, 0xa8 / 255.0, 0x84 / 255.0},
    {0x44 / 255.0, 0xbf / 255.0, 0x70 / 255.0},
    {0x7a / 255.0, 0xd1 / 255.0, 0x51 / 255.0},
    {0xbd / 255.0, 0xdf / 255.0, 0x26 / 255.0},
    {0xfd / 255.0, 0xe7 / 255.0, 0x25 / 255.0},
}};
}  // namespace

Rgb colormap_diverging(double t) {
  t = std::clamp(t, -1.0, 1.0);
  // Blue (0.23, 0.30, 0.75) -> white -> red (0.71, 0.02, 0.15), linear in each half.
  const Rgb blue{0.23, 0.30, 0.75}, white{0.97, 0.97, 0.97}, red{0.71, 0.02, 0.15};
  const Rgb& end = t < 0 ? blue : red;
  const double f = std::abs(t);
  return {white.r + f * (end.r - white.r), white.g + f * (end.g - white.g),
          white.b + f * (end.b - white.b)};
}

Rgb colormap_viridis(double t) {
  if (!std::isfinite(t)) t = 0.0;
  t = std::clamp(t, 0.0, 1.0) * (kViridisAnchors.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(t));
  const std::size_t hi = std::min(lo + 1, kViridisAnchors.size() - 1);
  const double f = t - static_cast<double>(lo);
  const Rgb& a = kViridisAnchors[lo];
  const Rgb& b = kViridisAnchors[hi];
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

Rgb colormap_categorical(int k) {
  static constexpr std::array<Rgb, 8> kOkabeIto{{{0.000, 0.447, 0.698},    // blue
                                                 {0.835, 0.369, 0.000},    // vermillion
                                                 {0.000, 0.620, 0.451},    // bluish green
                                                 {0.800, 0.475, 0.655},    // reddish purple
                                                 {0.902, 0.624, 0.000},    // orange
                                                 {0.337, 0.706, 0.914},    // sky blue
                                                 {0.000, 0.000, 0.000},    // black
                                                 {0.941, 0.894, 0.259}}};  // yellow
  const int n = static_cast<int>(kOkabeIto.size());
  return kOkabeIto[static_cast<std::size_t>(((k % n) + n) % n)];
}

int categorical_dash(int k) { return ((k % 4) + 4) % 4; }

}  // namespace sinkscope::views
