#pragma once
// The one sequential colour map of SinkScope (viridis, perceptually uniform),
// shared by VTK and QCustomPlot panels so a weight has one colour everywhere.
#include <array>

namespace sinkscope::render {

struct Rgb {
  double r, g, b;  // 0..1
};

// Viridis at t in [0, 1] (clamped).
Rgb colormap_viridis(double t);

// The one diverging colour map, for differences (before/after): blue for
// negative, white at 0, red for positive; t in [-1, 1] (clamped).
Rgb colormap_diverging(double t);

// The highlight colour of sink tokens, used in every panel.
inline constexpr Rgb kSinkHighlight{0.894, 0.102, 0.110};
// The colour of selected (top-N) tokens.
inline constexpr Rgb kSelectedHighlight{1.0, 0.498, 0.0};

}  // namespace sinkscope::render
