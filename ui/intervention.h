#pragma once
// An intervention the user has switched on (metrics.md section 5 and 8):
// a plain value, so the selection model can compare and list them.
#include <QList>
#include <QString>

namespace sinkscope::ui {

struct Intervention {
  enum class Kind { DropFirstToken, RemoveSinks, MaskSinks, AblateHeads, RopeScale };

  Kind kind = Kind::DropFirstToken;
  QList<int> layers;       // empty = all layers
  QList<int> heads;        // empty = all heads of those layers
  double parameter = 0.0;  // RoPE scale factor; unused by the others

  bool operator==(const Intervention&) const = default;

  // One line for the status bar and the interventions list, e.g.
  // "remove sinks (layers 1, 2; all heads)".
  QString label() const;
};

using InterventionList = QList<Intervention>;

}  // namespace sinkscope::ui

namespace sinkscope::models {
struct Intervention;
}

namespace sinkscope::ui {

// What the runtime runs for a list of user interventions on a model of
// `layers` x `heads` (empty layer/head lists mean all).
models::Intervention intervention_for_model(const InterventionList& list, int layers, int heads);

}  // namespace sinkscope::ui
