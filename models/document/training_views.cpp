#include "models/document/training_views.h"

#include <algorithm>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"
#include "models/document/plot_views.h"

namespace sinkscope::document {

namespace {

// `text` cut to `keep` code points and "..." when it has more than `most`.
std::string shortened(const std::string& text, std::size_t most, std::size_t keep) {
  std::vector<std::size_t> starts;  // byte offset of each code point
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= most) return text;
  return text.substr(0, starts[keep]) + "...";
}

}  // namespace

views::LinePlot emergence_plot(const std::vector<models::Checkpoint>& checkpoints,
                               const CheckpointAlpha0& alpha0, const std::string& text,
                               EmergenceMetric metric) {
  views::LinePlot d;
  std::string what, axis;
  switch (metric) {
    case EmergenceMetric::Alpha0:
      what = "α₀ (first token, mean over heads)", axis = "α₀";
      break;
    case EmergenceMetric::Boost:
      what = "sink boost (α₀ / uniform, mean over heads)", axis = "boost";
      break;
    case EmergenceMetric::SinkRate:
      what =
          "sink rate (share of heads, α₀ > " + short_number(analysis::kDefaultSinkMetricEps) + ")";
      axis = "share of heads";
      break;
    case EmergenceMetric::StrongBoost:
      what = "share of heads with boost >= " + short_number(analysis::kStrongSinkBoost);
      axis = "share of heads";
      break;
  }
  d.title = "Sink emergence | " + what + " by training step | \"" + shortened(text, 40, 37) + "\"";
  d.xLabel = "training step";
  d.yLabel = axis;
  d.includeZero = true;
  d.xPadding = 0.0;
  // One head's value; a layer's point is the mean over its heads.
  auto value = [metric](double a, double uniform0) {
    switch (metric) {
      case EmergenceMetric::Alpha0:
        return a;
      case EmergenceMetric::Boost:
        return a / uniform0;
      case EmergenceMetric::SinkRate:
        return analysis::is_sink_rate_head(a) ? 1.0 : 0.0;
      case EmergenceMetric::StrongBoost:
        return analysis::is_strong_sink(a / uniform0) ? 1.0 : 0.0;
    }
    return a;
  };
  const std::size_t steps =
      std::min({alpha0.values.size(), alpha0.uniform0.size(), checkpoints.size()});
  const std::size_t perStep = static_cast<std::size_t>(alpha0.layers * alpha0.heads);
  // Layers [first, last) at every checkpoint, as a curve.
  auto curve = [&](const std::string& name, int first, int last) {
    views::PlotSeries s{name, {}, {}};
    for (std::size_t c = 0; c < steps; ++c) {
      if (alpha0.values[c].size() < perStep) break;
      double sum = 0.0;
      for (int k = first * alpha0.heads; k < last * alpha0.heads; ++k)
        sum += value(alpha0.values[c][static_cast<std::size_t>(k)], alpha0.uniform0[c]);
      s.x.push_back(static_cast<double>(checkpoints[c].step));
      s.y.push_back(sum / std::max(1, (last - first) * alpha0.heads));
    }
    return s;
  };
  for (int l = 0; l < alpha0.layers; ++l)
    d.series.push_back(curve("layer " + std::to_string(l), l, l + 1));
  views::PlotSeries model = curve("every head of the model", 0, alpha0.layers);
  model.dashed = true;
  model.colour = views::Rgb{90 / 255.0, 90 / 255.0, 90 / 255.0};
  d.series.push_back(std::move(model));
  // What a head that spreads its attention evenly would give on this sentence:
  // a sink is measured against it (boost 1 by definition).
  if (metric == EmergenceMetric::Alpha0 || metric == EmergenceMetric::Boost) {
    views::PlotSeries uniform{"uniform head (the sentence's length)", {}, {}, true};
    for (std::size_t c = 0; c < steps; ++c) {
      uniform.x.push_back(static_cast<double>(checkpoints[c].step));
      uniform.y.push_back(metric == EmergenceMetric::Alpha0 ? alpha0.uniform0[c] : 1.0);
    }
    uniform.markers = false;
    d.series.push_back(std::move(uniform));
  }
  return d;
}

views::HeatMap emergence_grid(const std::vector<models::Checkpoint>& checkpoints,
                              const CheckpointAlpha0& alpha0) {
  views::HeatMap d;
  const std::size_t perStep = static_cast<std::size_t>(alpha0.layers * alpha0.heads);
  std::size_t steps = std::min(checkpoints.size(), alpha0.values.size());
  for (std::size_t c = 0; c < steps; ++c)
    if (alpha0.values[c].size() < perStep) steps = c;
  d.rows = alpha0.layers * alpha0.heads;
  d.cols = static_cast<int>(steps);
  d.values.assign(static_cast<std::size_t>(d.rows) * static_cast<std::size_t>(d.cols), 0.0f);
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c)
      d.values[static_cast<std::size_t>(r) * d.cols + c] = static_cast<float>(
          alpha0.values[static_cast<std::size_t>(c)][static_cast<std::size_t>(r)]);
  for (int l = 0; l < alpha0.layers; ++l)
    for (int h = 0; h < alpha0.heads; ++h)
      d.rowLabels.push_back("L" + std::to_string(l) + " H" + std::to_string(h));
  for (int c = 0; c < d.cols; ++c)
    d.colLabels.push_back(std::to_string(checkpoints[static_cast<std::size_t>(c)].step));
  d.title = "α₀ of every head by training step";
  d.quantity = "α₀";
  d.rowTitle = "head";
  d.colTitle = "step";
  d.fixedRange = true;
  d.rangeMin = 0.0;
  d.rangeMax = 1.0;
  return d;
}

}  // namespace sinkscope::document
