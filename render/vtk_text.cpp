#include "render/vtk_text.h"

#include <vtkTextProperty.h>

#include <QFileInfo>
#include <initializer_list>

namespace sinkscope::render {

namespace {
// Debian's fonts-dejavu-core (the installer's and the package's dependency).
QString readable(std::initializer_list<const char*> candidates) {
  for (const char* candidate : candidates)
    if (QFileInfo(QString::fromLatin1(candidate)).isReadable()) return QString::fromLatin1(candidate);
  return QString();
}
const QString& unicode_font_file(bool bold = false) {
  static const QString regular = readable({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                           "/usr/share/fonts/dejavu/DejaVuSans.ttf"});
  static const QString boldFace = readable({"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                                            "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf"});
  return bold && !boldFace.isEmpty() ? boldFace : regular;
}
}  // namespace

void vtk_text_use_unicode_font(vtkTextProperty* p, bool bold) {
  if (unicode_font_file().isEmpty()) return;
  p->SetFontFamily(VTK_FONT_FILE);
  p->SetFontFile(unicode_font_file(bold).toUtf8().constData());
}

QString vtk_text_drawable(const QString& text) {
  if (!unicode_font_file().isEmpty()) return text;
  QString shown = text;
  shown.replace(QChar(0x2423), QChar(0x00B7)).replace(QChar(0x21B5), QStringLiteral("\\n"));
  shown.replace(QChar(0x21E5), QStringLiteral("\\t")).replace(QChar(0x240D), QStringLiteral("\\r"));
  return shown;
}

}  // namespace sinkscope::render
