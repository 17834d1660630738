#include "ui/docks.h"

#include <QDockWidget>
#include <QLabel>
#include <QResizeEvent>
#include <QSplitter>
#include <algorithm>

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

namespace {
// Lays its panels side by side in a wide dock and stacked in a tall one, so a
// dock's plots keep a readable shape wherever the user puts it.
class AdaptiveSplitter : public QSplitter {
 public:
  using QSplitter::QSplitter;

 protected:
  void resizeEvent(QResizeEvent* event) override {
    const QSize s = event->size();
    const Qt::Orientation wanted = s.width() >= 1.4 * s.height() ? Qt::Horizontal : Qt::Vertical;
    if (wanted != orientation() || !sized_) {
      setOrientation(wanted);
      const int side = wanted == Qt::Horizontal ? s.width() : s.height();
      setSizes(QList<int>(count(), std::max(1, side / std::max(1, count()))));
      sized_ = true;
    }
    QSplitter::resizeEvent(event);
  }

 private:
  bool sized_ = false;  // equal shares on the first layout
};
}  // namespace

QSplitter* panel_splitter(QWidget* parent) {
  auto* split = new AdaptiveSplitter(Qt::Vertical, parent);
  split->setChildrenCollapsible(false);
  return split;
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
