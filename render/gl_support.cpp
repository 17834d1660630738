#include "render/gl_support.h"

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QSurfaceFormat>

namespace sinkscope::render {
namespace {
bool platform_without_gl() {
  const QString platform = QGuiApplication::platformName();
  return platform == QLatin1String("offscreen") || platform == QLatin1String("minimal");
}
}  // namespace

bool gl_panels_available() {
  static const bool available = [] {
    if (platform_without_gl()) return false;
    QOpenGLContext probe;
    if (!probe.create()) return false;
    QOffscreenSurface surface;
    surface.setFormat(probe.format());
    surface.create();
    const bool ok = surface.isValid() && probe.makeCurrent(&surface);
    if (ok) probe.doneCurrent();
    return ok;
  }();
  return available;
}

void gl_configure_defaults() {
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setVersion(3, 2);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(8);
  format.setAlphaBufferSize(8);
  format.setSamples(0);
  QSurfaceFormat::setDefaultFormat(format);
  QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
}

QString gl_unavailable_message() {
  return QStringLiteral(
             "This view needs OpenGL, which the Qt platform \"%1\" does not provide.\n"
             "Run SinkScope on an X11 or Wayland display, or under Xvfb "
             "(xvfb-run -a sinkscope).")
      .arg(QGuiApplication::platformName());
}

}  // namespace sinkscope::render
