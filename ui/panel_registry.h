#pragma once
// Every panel that draws the workspace, one row each: the name the command
// line takes, its dock, its title, its views (the widgets a figure can show,
// top to bottom) and what it shows in words. The window makes its docks, the
// View menu lists them, `sinkscope figure` names them and Ctrl+E exports a
// whole panel from this one list; a new panel is a row here and its class in
// ui/panels/ (made by ui/panel_board.cpp).
#include <QString>
#include <QStringList>
#include <vector>

namespace sinkscope::ui {

struct PanelEntry {
  QString name;         // on the command line: "persistence"
  QString dock;         // its dock's object name (saved layouts use it): "persistenceDock"
  QString title;        // its dock's title
  QStringList views;    // its views as the panel stacks them, top to bottom
  QString description;  // in words, for --help and errors
  bool needsCheckpoints = false;  // drawn only with a training run open (a session's checkpoints)
};

// Every panel, in the order the window tabs them.
const std::vector<PanelEntry>& panel_registry();
// The row called `name`; throws std::out_of_range for a name not in the list.
const PanelEntry& panel_entry(const QString& name);
// The row whose dock is `dock`; null when none.
const PanelEntry* panel_entry_of_dock(const QString& dock);

}  // namespace sinkscope::ui
