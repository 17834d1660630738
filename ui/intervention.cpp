#include "ui/intervention.h"

#include <QStringList>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/experiments.h"

namespace sinkscope::ui {

namespace {
QString join_indices(const QList<int>& xs) {
  QStringList parts;
  for (int x : xs) parts << QString::number(x);
  return parts.join(QStringLiteral(", "));
}

QString scope(const Intervention& i) {
  const QString layers = i.layers.isEmpty() ? QStringLiteral("all layers")
                                            : (i.layers.size() == 1 ? QStringLiteral("layer ")
                                                                    : QStringLiteral("layers ")) +
                                                  join_indices(i.layers);
  const QString heads = i.heads.isEmpty() ? QStringLiteral("all heads")
                                          : (i.heads.size() == 1 ? QStringLiteral("head ")
                                                                 : QStringLiteral("heads ")) +
                                                join_indices(i.heads);
  return layers + QStringLiteral("; ") + heads;
}
}  // namespace

models::Intervention intervention_for_model(const InterventionList& list, int layers, int heads) {
  models::Intervention iv;
  // Each index once and within the model (a session may come from another
  // model): so an ablation has at most layers x heads pairs.
  auto indices = [](const Intervention& i, const QList<int>& given, int count, const char* what) {
    std::vector<int> v(given.begin(), given.end());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (!v.empty() && (v.front() < 0 || v.back() >= count))
      throw std::invalid_argument(i.label().toStdString() + ": " + what + " " +
                                  std::to_string(v.back() >= count ? v.back() : v.front()) +
                                  " is not in this model (" + what + "s 0 to " +
                                  std::to_string(count - 1) + ")");
    if (v.empty())
      for (int k = 0; k < count; ++k) v.push_back(k);
    return v;
  };
  for (const Intervention& i : list) {
    switch (i.kind) {
      case Intervention::Kind::DropFirstToken:
        iv.dropFirstToken = true;
        break;
      case Intervention::Kind::RemoveSinks:
      case Intervention::Kind::MaskSinks: {
        models::SinkRemoval r;
        if (!i.layers.isEmpty()) r.layers = indices(i, i.layers, layers, "layer");
        if (!i.heads.isEmpty()) r.heads = indices(i, i.heads, heads, "head");
        r.beforeSoftmax = i.kind == Intervention::Kind::MaskSinks;
        iv.removeSinks.push_back(r);
        break;
      }
      case Intervention::Kind::AblateHeads:
        for (int l : indices(i, i.layers, layers, "layer"))
          for (int h : indices(i, i.heads, heads, "head")) iv.ablateHeads.emplace_back(l, h);
        break;
      case Intervention::Kind::RopeScale:
        iv.ntkScale = i.parameter;
        break;
    }
  }
  return iv;
}

QString Intervention::label() const {
  switch (kind) {
    case Kind::DropFirstToken:
      return QStringLiteral("drop first token");
    case Kind::RemoveSinks:
      return QStringLiteral("remove sinks (%1)").arg(scope(*this));
    case Kind::MaskSinks:
      return QStringLiteral("mask sinks (%1)").arg(scope(*this));
    case Kind::AblateHeads:
      return QStringLiteral("ablate heads (%1)").arg(scope(*this));
    case Kind::RopeScale:
      return QStringLiteral("RoPE scale x%1").arg(parameter);
  }
  return {};
}

}  // namespace sinkscope::ui
