#include "ui/recent_models.h"

#include <QDir>
#include <QSettings>

namespace sinkscope::ui {

namespace {
const QString kKey = QStringLiteral("models/recent");
}

QStringList RecentModels::load() const { return QSettings().value(kKey).toStringList(); }

QStringList RecentModels::remember(const QString& folder) {
  const QString clean = QDir::cleanPath(folder);
  QStringList list = load();
  list.removeAll(clean);
  list.prepend(clean);
  while (list.size() > kMaxEntries) list.removeLast();
  QSettings().setValue(kKey, list);
  return list;
}

void RecentModels::forget(const QString& folder) {
  QStringList list = load();
  list.removeAll(QDir::cleanPath(folder));
  QSettings().setValue(kKey, list);
}

}  // namespace sinkscope::ui
