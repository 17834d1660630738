#include "ui/figure_request.h"

#include <stdexcept>

#include "ui/panel_registry.h"

namespace sinkscope::ui {

QStringList figure_views_of(const QStringList& names) {
  QStringList views;
  for (const QString& name : names) {
    bool found = false;
    for (const PanelEntry& panel : panel_registry()) {
      if (panel.name == name) {
        views << panel.views;
        found = true;
      } else if (panel.views.contains(name)) {
        views << name;
        found = true;
      }
      if (found) break;
    }
    if (!found) {
      QStringList known;
      for (const PanelEntry& panel : panel_registry())
        known << panel.name + QStringLiteral(" (") + panel.views.join(QStringLiteral(", ")) +
                     QLatin1Char(')');
      throw std::invalid_argument(
          (QStringLiteral("--panel: no panel or view called \"%1\"; the panels (and their views) "
                          "are: %2")
               .arg(name, known.join(QStringLiteral("; "))))
              .toStdString());
    }
  }
  if (views.size() > 26) throw std::invalid_argument("--panel: a figure holds at most 26 views");
  return views;
}

}  // namespace sinkscope::ui
