#pragma once
// The two building blocks every dock of the window shares.
#include <QString>

class QDockWidget;
class QWidget;

namespace sinkscope::ui {

// A dock that can be closed, moved and floated, holding `content`.
QDockWidget* dock_make(const QString& title, const QString& objectName, QWidget* content,
                       QWidget* parent);

// What a VTK panel shows instead when the platform cannot do OpenGL.
QWidget* gl_unavailable_label(QWidget* parent);

}  // namespace sinkscope::ui
