#include "render/vtk_view_widget.h"

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorObserver.h>
#include <vtkOpenGLState.h>
#include <vtkRenderer.h>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QWheelEvent>

namespace sinkscope::render {

VtkViewWidget::VtkViewWidget(QWidget* parent) : QOpenGLWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(160, 120);

  window_->SetReadyForRendering(false);
  window_->SetFrameBlitModeToNoBlit();
  window_->SetMultiSamples(0);
  // The overlay is drawn first (layer 0) and clears the whole window; the
  // scene (layer 1) draws over it inside its own viewport without clearing,
  // so no part of the window is ever left uncleared, whatever the viewport.
  window_->SetNumberOfLayers(2);
  overlay_->SetLayer(0);
  overlay_->InteractiveOff();
  overlay_->SetBackground(1.0, 1.0, 1.0);
  renderer_->SetLayer(1);
  window_->AddRenderer(renderer_);
  window_->AddRenderer(overlay_);
  window_->SetInteractor(interactor_);
  window_->AddObserver(vtkCommand::WindowMakeCurrentEvent, this, &VtkViewWidget::onMakeCurrent);
  window_->AddObserver(vtkCommand::WindowIsCurrentEvent, this, &VtkViewWidget::onIsCurrent);

  // The interactor must not paint by itself: it asks Qt for a repaint, and the
  // paint happens in paintGL with Qt's context current.
  interactor_->SetRenderWindow(window_);
  interactor_->EnableRenderOff();
  interactor_->AddObserver(vtkCommand::RenderEvent, this, &VtkViewWidget::onInteractorRender);
  interactor_->Initialize();
}

VtkViewWidget::~VtkViewWidget() {
  makeCurrent();
  releaseGraphicsResources();
  doneCurrent();
}

vtkRenderer* VtkViewWidget::renderer() const { return renderer_; }
vtkRenderer* VtkViewWidget::overlayRenderer() const { return overlay_; }
vtkGenericOpenGLRenderWindow* VtkViewWidget::renderWindow() const { return window_; }
vtkGenericRenderWindowInteractor* VtkViewWidget::interactor() const { return interactor_; }

void VtkViewWidget::setInteractorStyle(vtkInteractorObserver* style) {
  interactor_->SetInteractorStyle(style);
}

void VtkViewWidget::requestRender() { update(); }

void VtkViewWidget::initializeGL() {
  // A new context each time the widget moves to a new top-level window
  // (floating a dock): drop what VTK held in the old one first.
  if (contextDestroyed_) disconnect(contextDestroyed_);
  glContext_ = context();
  glSurface_ = glContext_ ? glContext_->surface() : nullptr;
  contextDestroyed_ = connect(
      glContext_, &QOpenGLContext::aboutToBeDestroyed, this, [this] { releaseGraphicsResources(); },
      Qt::DirectConnection);

  window_->SetOwnContext(false);
  window_->SetReadyForRendering(true);
  window_->OpenGLInitContext();
  const qreal dpr = devicePixelRatioF();
  window_->SetSize(static_cast<int>(width() * dpr), static_cast<int>(height() * dpr));
  window_->SetPosition(0, 0);
}

void VtkViewWidget::resizeGL(int w, int h) {
  const qreal dpr = devicePixelRatioF();
  const int pw = static_cast<int>(w * dpr), ph = static_cast<int>(h * dpr);
  window_->SetSize(pw, ph);
  interactor_->UpdateSize(pw, ph);
}

void VtkViewWidget::paintGL() {
  if (!glContext_) return;
  vtkOpenGLState* state = window_->GetState();
  state->Reset();
  state->Push();
  state->vtkglDepthFunc(GL_LEQUAL);
  window_->Render();
  state->Pop();

  // Blit VTK's display framebuffer into the widget's framebuffer.
  const int w = window_->GetSize()[0], h = window_->GetSize()[1];
  state->PushDrawFramebufferBinding();
  QOpenGLFunctions* f = glContext_->functions();
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  window_->BlitDisplayFramebuffer(0, 0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  state->PopDrawFramebufferBinding();

  // Qt composes the widget with its alpha: make it opaque.
  f->glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
  f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  f->glClearColor(0.f, 0.f, 0.f, 1.f);
  f->glClear(GL_COLOR_BUFFER_BIT);
  f->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  ++renderedFrames_;
  Q_EMIT frameRendered();
}

void VtkViewWidget::releaseGraphicsResources() {
  if (!glContext_) return;
  if (QOpenGLContext::currentContext() != glContext_) glContext_->makeCurrent(glSurface_);
  window_->ReleaseGraphicsResources(window_);
  glContext_ = nullptr;
  glSurface_ = nullptr;
}

void VtkViewWidget::onMakeCurrent(vtkObject*, unsigned long, void*) {
  if (glContext_ && glSurface_ && QOpenGLContext::currentContext() != glContext_)
    glContext_->makeCurrent(glSurface_);
}

void VtkViewWidget::onIsCurrent(vtkObject*, unsigned long, void* callData) {
  *static_cast<bool*>(callData) = glContext_ && QOpenGLContext::currentContext() == glContext_;
}

void VtkViewWidget::onInteractorRender(vtkObject*, unsigned long, void*) { update(); }

QPointF VtkViewWidget::toDisplay(const QPointF& p) const {
  const qreal dpr = devicePixelRatioF();
  return {p.x() * dpr, (height() - 1 - p.y()) * dpr};
}

void VtkViewWidget::forwardMouse(QMouseEvent* event, unsigned long vtkEvent) {
  const QPointF d = toDisplay(event->position());
  const auto mods = event->modifiers();
  interactor_->SetEventInformation(
      static_cast<int>(d.x()), static_cast<int>(d.y()), (mods & Qt::ControlModifier) ? 1 : 0,
      (mods & Qt::ShiftModifier) ? 1 : 0, 0, vtkEvent == vtkCommand::MouseMoveEvent ? 0 : 1);
  interactor_->SetAltKey((mods & Qt::AltModifier) ? 1 : 0);
  interactor_->InvokeEvent(vtkEvent, event);
}

namespace {
unsigned long press_event(Qt::MouseButton b) {
  switch (b) {
    case Qt::LeftButton:
      return vtkCommand::LeftButtonPressEvent;
    case Qt::MiddleButton:
      return vtkCommand::MiddleButtonPressEvent;
    case Qt::RightButton:
      return vtkCommand::RightButtonPressEvent;
    default:
      return vtkCommand::NoEvent;
  }
}
unsigned long release_event(Qt::MouseButton b) {
  switch (b) {
    case Qt::LeftButton:
      return vtkCommand::LeftButtonReleaseEvent;
    case Qt::MiddleButton:
      return vtkCommand::MiddleButtonReleaseEvent;
    case Qt::RightButton:
      return vtkCommand::RightButtonReleaseEvent;
    default:
      return vtkCommand::NoEvent;
  }
}
}  // namespace

void VtkViewWidget::mousePressEvent(QMouseEvent* e) {
  if (auto ev = press_event(e->button()); ev != vtkCommand::NoEvent) forwardMouse(e, ev);
}
void VtkViewWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (auto ev = release_event(e->button()); ev != vtkCommand::NoEvent) forwardMouse(e, ev);
}
void VtkViewWidget::mouseDoubleClickEvent(QMouseEvent* e) {
  if (auto ev = press_event(e->button()); ev != vtkCommand::NoEvent) forwardMouse(e, ev);
}
void VtkViewWidget::mouseMoveEvent(QMouseEvent* e) { forwardMouse(e, vtkCommand::MouseMoveEvent); }

void VtkViewWidget::wheelEvent(QWheelEvent* e) {
  const QPointF d = toDisplay(e->position());
  interactor_->SetEventInformation(static_cast<int>(d.x()), static_cast<int>(d.y()));
  const int delta = e->angleDelta().y();
  if (delta > 0)
    interactor_->InvokeEvent(vtkCommand::MouseWheelForwardEvent, e);
  else if (delta < 0)
    interactor_->InvokeEvent(vtkCommand::MouseWheelBackwardEvent, e);
  e->accept();
}

void VtkViewWidget::enterEvent(QEnterEvent* e) {
  const QPointF d = toDisplay(e->position());
  interactor_->SetEventInformation(static_cast<int>(d.x()), static_cast<int>(d.y()));
  interactor_->InvokeEvent(vtkCommand::EnterEvent, e);
}

void VtkViewWidget::leaveEvent(QEvent* e) { interactor_->InvokeEvent(vtkCommand::LeaveEvent, e); }

}  // namespace sinkscope::render
