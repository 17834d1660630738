#pragma once
// Help > Metric definitions (docs/metrics.md, built in) and Help > Keyboard
// shortcuts (every menu command with a key, read from the menus themselves,
// so the list cannot fall behind them).
class QDialog;
class QMainWindow;
class QWidget;

namespace sinkscope::ui {

// Each opens (or brings forward) its window and returns it.
QDialog* show_metric_definitions(QWidget* parent);
QDialog* show_keyboard_shortcuts(QMainWindow* window);

}  // namespace sinkscope::ui
