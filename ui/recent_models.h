#pragma once
// The list of recently opened model folders, most recent first, kept in QSettings.
#include <QStringList>

namespace sinkscope::ui {

class RecentModels {
 public:
  static constexpr int kMaxEntries = 8;

  QStringList load() const;
  // Moves `folder` to the front (adding it if new) and saves the list.
  QStringList remember(const QString& folder);
  void forget(const QString& folder);
};

}  // namespace sinkscope::ui
