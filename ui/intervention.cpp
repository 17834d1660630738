#include "ui/intervention.h"

#include <QStringList>

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
