#include "ui/intervention.h"

#include <QStringList>

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
  auto indices = [](const QList<int>& given, int count) {
    std::vector<int> v(given.begin(), given.end());
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
        r.layers.assign(i.layers.begin(), i.layers.end());
        r.heads.assign(i.heads.begin(), i.heads.end());
        r.beforeSoftmax = i.kind == Intervention::Kind::MaskSinks;
        iv.removeSinks.push_back(r);
        break;
      }
      case Intervention::Kind::AblateHeads:
        for (int l : indices(i.layers, layers))
          for (int h : indices(i.heads, heads)) iv.ablateHeads.emplace_back(l, h);
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
