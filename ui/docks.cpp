#include "ui/docks.h"

#include <QDockWidget>
#include <QLabel>

#include "render/gl_support.h"

namespace sinkscope::ui {

QDockWidget* dock_make(const QString& title, const QString& objectName, QWidget* content,
                       QWidget* parent) {
  auto* dock = new QDockWidget(title, parent);
  dock->setObjectName(objectName);
  dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                    QDockWidget::DockWidgetFloatable);
  dock->setWidget(content);
  return dock;
}

QWidget* gl_unavailable_label(QWidget* parent) {
  auto* label = new QLabel(render::gl_unavailable_message(), parent);
  label->setObjectName(QStringLiteral("glUnavailable"));
  label->setAlignment(Qt::AlignCenter);
  label->setWordWrap(true);
  label->setMargin(24);
  return label;
}

}  // namespace sinkscope::ui
