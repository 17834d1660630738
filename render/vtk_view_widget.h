#pragma once
// Base class of every VTK panel: hosts a VTK scene inside a QOpenGLWidget
// through vtkGenericOpenGLRenderWindow, since Debian's VTK Qt modules are
// built for Qt 5. Subclasses fill renderer() and call requestRender().
//
// Why it is built this way (see shared/notes/debian-stack.md):
//  - VTK makes the context current through Qt's QOpenGLContext directly, not
//    QOpenGLWidget::makeCurrent(), which would rebind Qt's framebuffer behind
//    VTK's state cache;
//  - VTK renders into its own framebuffer (NoBlit) and we blit it into Qt's;
//  - VTK's GL resources are released when Qt destroys the context, which is
//    what happens when the dock holding the view is floated or re-docked.
#include <vtkNew.h>
#include <vtkSmartPointer.h>
#include <QImage>
#include <QOpenGLWidget>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkInteractorObserver;
class vtkObject;
class vtkRenderer;
class QSurface;

namespace sinkscope::render {

class VtkViewWidget : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit VtkViewWidget(QWidget* parent = nullptr);
  ~VtkViewWidget() override;

  // The scene renderer (interactive; its viewport may be a part of the window).
  vtkRenderer* renderer() const;
  // A full-window, non-interactive renderer for titles, colour bars and other
  // annotations that must not pan or zoom; its background is the window's.
  vtkRenderer* overlayRenderer() const;
  vtkGenericOpenGLRenderWindow* renderWindow() const;
  vtkGenericRenderWindowInteractor* interactor() const;

  // Replaces the interaction style (pan/zoom, rotate...).
  void setInteractorStyle(vtkInteractorObserver* style);

  // Schedules a repaint; cheap to call many times.
  void requestRender();

  // How many frames VTK has rendered into this widget (tests, diagnostics).
  int renderedFrameCount() const { return renderedFrames_; }

 Q_SIGNALS:
  void frameRendered();

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;

  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;

  // Position of a widget-space point in VTK display coordinates (pixels,
  // origin bottom-left).
  QPointF toDisplay(const QPointF& widgetPoint) const;

 private:
  void releaseGraphicsResources();
  void onMakeCurrent(vtkObject*, unsigned long, void*);
  void onIsCurrent(vtkObject*, unsigned long, void* callData);
  void onInteractorRender(vtkObject*, unsigned long, void*);
  void forwardMouse(QMouseEvent* event, unsigned long vtkEvent);

  vtkNew<vtkGenericOpenGLRenderWindow> window_;
  vtkNew<vtkRenderer> renderer_;
  vtkNew<vtkRenderer> overlay_;
  vtkNew<vtkGenericRenderWindowInteractor> interactor_;
  QOpenGLContext* glContext_ = nullptr;
  QSurface* glSurface_ = nullptr;
  QMetaObject::Connection contextDestroyed_;
  int renderedFrames_ = 0;
};

}  // namespace sinkscope::render
