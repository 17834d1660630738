#pragma once
// The one sequential colour map of SinkScope (viridis, perceptually uniform),
// shared by VTK and QCustomPlot panels so a weight has one colour everywhere.
#include <array>

namespace sinkscope::views {

struct Rgb {
  double r, g, b;  // 0..1
};

// Viridis at t in [0, 1] (clamped).
Rgb colormap_viridis(double t);

// The one diverging colour map, for differences (before/after): blue for
// negative, white at 0, red for positive; t in [-1, 1] (clamped).
Rgb colormap_diverging(double t);

// The categorical palette (Okabe and Ito, readable by every kind of colour
// vision) for series told apart by name (layers, rankings): colour k of 8,
// repeating. The yellow comes last, being the faintest on white.
Rgb colormap_categorical(int k);
// The second cue beside the colour, so that series stay apart in grey print:
// 0 solid, 1 dashed, 2 dotted, 3 dash-dot, repeating.
int categorical_dash(int k);

// The highlight colour of sink tokens, used in every panel.
inline constexpr Rgb kSinkHighlight{0.894, 0.102, 0.110};
// The colour of selected (top-N) tokens.
inline constexpr Rgb kSelectedHighlight{1.0, 0.498, 0.0};

// The head classes' colours (Retriever, Mixer, Reset): Okabe and Ito's blue,
// vermillion and bluish green, distinct for colour-blind readers and in print.
inline constexpr Rgb kHeadClassColours[3] = {
    {0.0, 0.447, 0.698}, {0.835, 0.369, 0.0}, {0.0, 0.620, 0.451}};

}  // namespace sinkscope::views
