#pragma once
// Text in the VTK views spelled as in every other view. VTK's built-in fonts
// lack the visible space "␣" and the control pictures (↵ ⇥ ␍) that token
// labels use, so its text actors draw with DejaVu Sans (Debian's
// fonts-dejavu-core) when the font is there; without it, the labels fall
// back to spellings the built-in fonts have ("·" for a space, "\n").
#include <QString>

class vtkTextProperty;

namespace sinkscope::render {

// Sets `p` to the Unicode font when there is one (its bold face for `bold`:
// a font file has one weight).
void vtk_text_use_unicode_font(vtkTextProperty* p, bool bold = false);
// `text` as VTK can draw it with the font vtk_text_use_unicode_font chose.
QString vtk_text_drawable(const QString& text);

}  // namespace sinkscope::render
