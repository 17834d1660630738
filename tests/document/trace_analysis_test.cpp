// The one per-head analysis loop: layers analysed together on many threads
// give exactly what one layer at a time gives, in layer order, and a stop
// request ends it.
#include <gtest/gtest.h>

#include <mutex>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <vector>

#include "analysis/head_analysis.h"
#include "analysis/progress.h"
#include "models/document/trace_analysis.h"
#include "models/model.h"
#include "models/model_writer.h"

namespace fs = std::filesystem;
using namespace sinkscope;

namespace {

// A 5-layer, 2-head model: with 8 threads three layers go together, and the
// last group is short (5 = 3 + 2).
models::Trace five_layer_trace() {
  const fs::path folder =
      fs::temp_directory_path() / ("sinkscope-trace-analysis-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  models::RandomModelSpec spec = models::random_model_spec_for("llama");
  spec.layers = 5;
  spec.heads = 2;
  models::model_folder_write_random(folder, spec);
  const auto model = models::Model::load(folder);
  std::mt19937 rng(5);
  std::vector<int> ids;
  for (int t = 0; t < 14; ++t) ids.push_back(static_cast<int>(rng() % 90));
  models::Trace trace = model->run(ids);
  fs::remove_all(folder);
  return trace;
}

struct Seen {
  std::vector<int> layers;
  std::vector<analysis::HeadAnalysis> heads;  // in the order handed on
  std::vector<analysis::ValueSpaceCurve> curves;
};

Seen analyse_with_threads(const models::Trace& trace, int threads) {
  analysis::set_default_thread_count(threads);
  Seen seen;
  document::analyse_trace_layers(trace, {},
                                 {.valueSpaceCurves = true, .effectiveRank = false, .settings = {}},
                                 [&](document::LayerAnalysis&& layer) {
                                   seen.layers.push_back(layer.layer);
                                   for (auto& h : layer.heads) seen.heads.push_back(h);
                                   for (auto& c : layer.valueCurves) seen.curves.push_back(c);
                                 });
  analysis::set_default_thread_count(0);
  return seen;
}

}  // namespace

TEST(TraceAnalysis, LayersTogetherEqualOneLayerAtATime) {
  const models::Trace trace = five_layer_trace();
  const Seen one = analyse_with_threads(trace, 1);
  const Seen many = analyse_with_threads(trace, 8);
  EXPECT_EQ(one.layers, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(many.layers, one.layers);
  ASSERT_EQ(many.heads.size(), 5u * 3u);
  ASSERT_EQ(many.heads.size(), one.heads.size());
  for (std::size_t k = 0; k < one.heads.size(); ++k) {
    const analysis::HeadAnalysis &a = one.heads[k], &b = many.heads[k];
    EXPECT_EQ(a.keyImportance, b.keyImportance) << k;
    EXPECT_EQ(a.sinks.keys(), b.sinks.keys()) << k;
    EXPECT_EQ(a.persistence.h0.size(), b.persistence.h0.size()) << k;
    EXPECT_EQ(a.betti.beta0, b.betti.beta0) << k;
    ASSERT_EQ(a.spectra.size(), b.spectra.size());
    for (std::size_t t = 0; t < a.spectra.size(); ++t)
      EXPECT_EQ(a.spectra[t].eigenvalues, b.spectra[t].eigenvalues) << k;
    // The head average (index 0 of each layer) has no values: no value space.
    EXPECT_EQ(a.valueSpace.has_value(), k % 3 != 0) << k;
    if (a.valueSpace) {
      EXPECT_EQ(a.valueSpace->scores.f, b.valueSpace->scores.f) << k;
    }
  }
  ASSERT_EQ(many.curves.size(), one.curves.size());
  for (std::size_t k = 0; k < one.curves.size(); ++k) {
    ASSERT_EQ(one.curves[k].points.size(), many.curves[k].points.size()) << k;
    EXPECT_EQ(one.curves[k].points.empty(), k % 3 == 0) << k;
    for (std::size_t n = 0; n < one.curves[k].points.size(); ++n)
      EXPECT_EQ(one.curves[k].points[n].scores.f, many.curves[k].points[n].scores.f);
  }
}

TEST(TraceAnalysis, AStopRequestEndsItAndProgressReachesOne) {
  const models::Trace trace = five_layer_trace();
  // Progress is heard from the worker threads too (each head's persistence): guarded.
  std::mutex lock;
  std::vector<double> heard;
  int layers = 0;
  const auto kept = document::analyse_trace(trace, {}, {}, [&](double f) {
    const std::lock_guard guard(lock);
    heard.push_back(f);
    return true;
  });
  EXPECT_EQ(kept->perHead.size(), 5u);
  ASSERT_FALSE(heard.empty());
  EXPECT_DOUBLE_EQ(heard.back(), 1.0);
  EXPECT_THROW(document::analyse_trace_layers(
                   trace, {}, {}, [&](document::LayerAnalysis&&) { ++layers; },
                   [](double f) { return f < 0.3; }),
               analysis::AnalysisStopped);
  EXPECT_LT(layers, 5);
}
