#include "models/trace_export.h"

#include <stdexcept>

#include "models/io/npz.h"

namespace sinkscope::models {

void trace_write_npz(const Trace& trace, const std::vector<std::string>& tokens,
                     const std::filesystem::path& file, const TraceExportOptions& options) {
  const std::int64_t L = trace.layers(), H = trace.heads(), T = trace.tokens(),
                     D = trace.hiddenSize();
  if (static_cast<std::int64_t>(tokens.size()) != T)
    throw std::invalid_argument("npz export: " + std::to_string(tokens.size()) +
                                " token strings for " + std::to_string(T) + " tokens");
  io::NpzWriter npz(file, options.overwrite);
  const std::int64_t d = L > 0 ? trace.layer(0).head_dim : 0;
  // One array at a time, one layer at a time: each layer's capture is made
  // (or recomputed from its residual) and dropped before the next.
  auto perLayer = [&](const char* name, std::vector<std::int64_t> shape,
                      const std::vector<float> LayerCapture::*field) {
    npz.beginFloat32(name, shape);
    for (int l = 0; l < L; ++l) {
      const LayerCapture c = trace.layer(l);
      npz.append(std::span<const float>(c.*field));
    }
    npz.endArray();
  };
  perLayer("attention", {L, H, T, T}, &LayerCapture::attention);
  perLayer("queries", {L, H, T, d}, &LayerCapture::queries);
  perLayer("keys", {L, H, T, d}, &LayerCapture::keys);
  perLayer("values", {L, H, T, d}, &LayerCapture::values);
  npz.beginFloat32("residual", {L + 1, T, D});
  for (int l = 0; l <= L; ++l) {
    const std::span<const float> r = trace.residual(l);
    if (static_cast<std::int64_t>(r.size()) != T * D)
      throw std::runtime_error("npz export: the run kept no residual stream of layer " +
                               std::to_string(l) + " (run with capture)");
    npz.append(r);
  }
  npz.endArray();
  std::vector<std::int32_t> ids(trace.ids().begin(), trace.ids().end());
  npz.addInt32("ids", {T}, ids);
  // The tokens unpadded always; as a numpy string array too unless padding
  // every cell to the longest token would make it huge (one 10^6-character
  // added token at 8,192 positions: 32 GB).
  npz.addPackedStrings("tokens", tokens);
  if (io::NpzWriter::fixedWidthBytes(tokens) <= kMaxFixedWidthTokenBytes) npz.addStrings("tokens", tokens);
  if (options.logits) {
    if (trace.logits().empty())
      throw std::runtime_error("npz export: the model has no output head, so no logits");
    npz.addFloat32("logits", {T, static_cast<std::int64_t>(trace.logits().size()) / std::max<std::int64_t>(1, T)},
                   trace.logits());
  }
  if (!options.modelName.empty()) npz.addString("model", options.modelName);
  npz.addString("params", options.paramsJson);
  npz.commit();
}

}  // namespace sinkscope::models
