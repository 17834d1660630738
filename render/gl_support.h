#pragma once
#include <QString>

namespace sinkscope::render {

// Whether the running Qt platform can host OpenGL widgets. Qt's `offscreen`
// and `minimal` platforms cannot (QOpenGLWidget crashes inside Qt there), and
// a display without a working GL context cannot either.
bool gl_panels_available();

// Sets the default OpenGL surface format VTK needs (3.2 core, depth buffer)
// and shares contexts between top-level windows. Call before QApplication.
void gl_configure_defaults();

// The plain-words reason shown in place of a GL panel when they are not.
QString gl_unavailable_message();

}  // namespace sinkscope::render
