// What a training run measures of its model (the sink columns of log.csv):
// plain forward passes through Model, so no libtorch is needed here.
#include <regex>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"
#include "analysis/sinks.h"
#include "models/fisher.h"
#include "models/tokenizer.h"
#include "models/trainer.h"

namespace sinkscope::models {

std::vector<std::vector<int>> sink_eval_inputs(const Tokenizer& tok,
                                               const std::vector<std::string>& sentences, int count,
                                               int tokens) {
  std::vector<std::vector<int>> inputs;
  std::string text;
  for (const auto& s : sentences) {
    if (static_cast<int>(inputs.size()) >= count) break;
    text += (text.empty() ? "" : " ") + s;
    auto ids = tok.encode(text, true).ids;
    if (static_cast<int>(ids.size()) < tokens) continue;
    ids.resize(static_cast<std::size_t>(tokens));
    inputs.push_back(std::move(ids));
    text.clear();
  }
  return inputs;
}

TrainLogRow sink_measure(const Model& model, const std::vector<std::vector<int>>& inputs) {
  TrainLogRow row;
  if (inputs.empty()) return row;  // nothing measured
  analysis::FirstTokenSinkTally tally;
  for (const auto& ids : inputs) {
    const Trace trace = model.run(ids);
    const int T = trace.tokens();
    const double baseline = analysis::sink_uniform_baseline(T, 0, trace.causal());
    for (int l = 0; l < trace.layers(); ++l) {
      const LayerCapture cap = trace.layer(l);
      for (int h = 0; h < cap.heads; ++h) {
        const auto map = cap.attentionOf(h);
        tally.add(analysis::sink_key_importance(map)[0], baseline,
                  analysis::sink_concentration(map, analysis::sink_set(map).keys()));
      }
    }
  }
  const analysis::FirstTokenSinkSummary s = tally.summary();
  if (s.heads == 0) return row;
  row.alpha0 = s.alpha0;
  row.boost = s.boost;
  row.heads_boost3 = s.strongShare;
  row.sink_rate = s.sinkRate;
  row.sink_concentration = s.concentration;
  return row;
}

int layer_of_tensor_name(const std::string& name) {
  static const std::regex pattern(R"((?:^|\.)(?:layers|layer|h|blocks)\.(\d+)\.)");
  std::smatch m;
  if (std::regex_search(name, m, pattern)) return std::stoi(m[1].str());
  return -1;
}

}  // namespace sinkscope::models
