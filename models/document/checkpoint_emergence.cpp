#include "models/document/checkpoint_emergence.h"

#include <stdexcept>

#include "analysis/sink_metric.h"
#include "models/loaded_model.h"
#include "models/model.h"

namespace sinkscope::document {

CheckpointAlpha0 checkpoint_alpha0(const std::vector<models::Checkpoint>& checkpoints,
                                   const std::string& text,
                                   const std::function<bool(double)>& progress) {
  CheckpointAlpha0 out;
  for (std::size_t c = 0; c < checkpoints.size(); ++c) {
    if (progress && !progress(static_cast<double>(c) / static_cast<double>(checkpoints.size())))
      throw models::RunCancelled();
    const models::LoadedModel model = models::loaded_model_open(checkpoints[c].folder.string());
    const models::SentenceTrace run =
        models::loaded_model_run(model, text, models::RunOptions::attention_only());
    if (c == 0) out.layers = run.trace.layers(), out.heads = run.trace.heads();
    if (run.trace.layers() != out.layers || run.trace.heads() != out.heads)
      throw std::invalid_argument(checkpoints[c].folder.string() +
                                  ": another shape than the first checkpoint (layers x heads)");
    out.uniform0.push_back(analysis::sink_uniform_baseline(run.trace.tokens(), 0, run.trace.causal()));
    std::vector<double> heads;
    for (int l = 0; l < out.layers; ++l) {
      const models::LayerCapture cap = run.trace.layer(l);
      for (int h = 0; h < cap.heads; ++h)
        heads.push_back(analysis::sink_key_importance(cap.attentionOf(h))[0]);
    }
    out.values.push_back(std::move(heads));
  }
  return out;
}

}  // namespace sinkscope::document
