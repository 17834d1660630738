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

// A 5-layer model (2 heads unless said): with 8 threads three layers go
// together, and the last group is short (5 = 3 + 2).
models::Trace five_layer_trace(const models::RunOptions& options = {}, int heads = 2) {
  const fs::path folder =
      fs::temp_directory_path() / ("sinkscope-trace-analysis-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  models::RandomModelSpec spec = models::random_model_spec_for("llama");
  spec.layers = 5;
  spec.heads = heads;
  models::model_folder_write_random(folder, spec);
  const auto model = models::Model::load(folder);
  std::mt19937 rng(5);
  std::vector<int> ids;
  for (int t = 0; t < 14; ++t) ids.push_back(static_cast<int>(rng() % 90));
  models::Trace trace = model->run(ids, options);
  fs::remove_all(folder);
  return trace;
}

struct Seen {
  std::vector<int> layers;
  std::vector<analysis::HeadAnalysis> heads;  // in the order handed on
  std::vector<analysis::ValueSpaceCurve> curves;
};

Seen analyse_with_threads(const models::Trace& trace, int threads,
                          std::uint64_t recomputedGroupBytes = std::uint64_t{512} << 20) {
  analysis::set_default_thread_count(threads);
  Seen seen;
  document::analyse_trace_layers(trace, {},
                                 {.valueSpaceCurves = true,
                                  .effectiveRank = false,
                                  .recomputedGroupBytes = recomputedGroupBytes,
                                  .settings = {}},
                                 [&](document::LayerAnalysis&& layer) {
                                   seen.layers.push_back(layer.layer);
                                   for (auto& h : layer.heads) seen.heads.push_back(h);
                                   for (auto& c : layer.valueCurves) seen.curves.push_back(c);
                                 });
  analysis::set_default_thread_count(0);
  return seen;
}

// Every number of `many` equals `one`'s; `heads` per layer.
void expect_same(const Seen& one, const Seen& many, std::size_t heads) {
  const std::size_t maps = heads + 1;
  EXPECT_EQ(one.layers, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(many.layers, one.layers);
  ASSERT_EQ(many.heads.size(), 5u * maps);
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
    EXPECT_EQ(a.valueSpace.has_value(), k % maps != 0) << k;
    if (a.valueSpace) {
      EXPECT_EQ(a.valueSpace->scores.f, b.valueSpace->scores.f) << k;
    }
  }
  ASSERT_EQ(many.curves.size(), one.curves.size());
  for (std::size_t k = 0; k < one.curves.size(); ++k) {
    ASSERT_EQ(one.curves[k].points.size(), many.curves[k].points.size()) << k;
    EXPECT_EQ(one.curves[k].points.empty(), k % maps == 0) << k;
    for (std::size_t n = 0; n < one.curves[k].points.size(); ++n)
      EXPECT_EQ(one.curves[k].points[n].scores.f, many.curves[k].points[n].scores.f);
  }
}

}  // namespace

TEST(TraceAnalysis, LayersTogetherEqualOneLayerAtATime) {
  const models::Trace trace = five_layer_trace();
  expect_same(analyse_with_threads(trace, 1), analyse_with_threads(trace, 8), 2);
}

// A long input's layers are not stored: each is recomputed and analysed a
// group of heads at a time, its head average summed over the groups. Every
// number must equal the stored layers' (one head a group, three and the
// last one, all four; two KV groups).
TEST(TraceAnalysis, LayersRecomputedAGroupOfHeadsAtATimeGiveTheStoredLayersNumbers) {
  const models::Trace stored = five_layer_trace({}, 4);
  models::RunOptions lean;
  lean.capture_budget_bytes = 0;
  lean.attention_chunk_bytes = 1;  // a chunk of one head: groups of any size
  const models::Trace recomputed = five_layer_trace(lean, 4);
  ASSERT_TRUE(stored.layerStored(0));
  ASSERT_FALSE(recomputed.layerStored(0));
  const Seen one = analyse_with_threads(stored, 1);
  const std::uint64_t head = 14 * 14 * sizeof(float);
  for (const std::uint64_t groupBytes : {std::uint64_t{1}, 3 * head, 4 * head})
    for (int threads : {1, 8}) {
      SCOPED_TRACE(std::to_string(groupBytes) + " bytes a group, threads " +
                   std::to_string(threads));
      expect_same(one, analyse_with_threads(recomputed, threads, groupBytes), 4);
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
