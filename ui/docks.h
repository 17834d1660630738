#pragma once
// The two building blocks every dock of the window shares.
#include <QString>

class QDockWidget;
class QSplitter;
class QWidget;

namespace sinkscope::ui {

// A dock that can be closed, moved and floated, holding `content`.
QDockWidget* dock_make(const QString& title, const QString& objectName, QWidget* content,
                       QWidget* parent);

// A splitter for a dock's several views: side by side when the dock is wide,
// stacked when it is tall (it turns as the dock is resized).
QSplitter* panel_splitter(QWidget* parent = nullptr);

// What a VTK panel shows instead when the platform cannot do OpenGL.
QWidget* gl_unavailable_label(QWidget* parent);

}  // namespace sinkscope::ui
