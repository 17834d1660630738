#include "render/text_wrap.h"

namespace sinkscope::render {

QStringList text_wrap(const QString& text, const std::function<double(const QString&)>& width,
                      double room) {
  QStringList lines;
  auto place = [&](const QString& piece, const QString& separator) {
    const QString joined = lines.isEmpty() ? piece : lines.back() + separator + piece;
    if (!lines.isEmpty() && !lines.back().isEmpty() && width(joined) <= room)
      lines.back() = joined;
    else if (!lines.isEmpty() && lines.back().isEmpty())
      lines.back() = piece;
    else
      lines << piece;
  };
  for (const QString& part : text.split(QStringLiteral(" | "))) {
    if (width(part) <= room) {
      place(part, QStringLiteral(" | "));
      continue;
    }
    lines << QString();  // too long for a line of its own: break between words
    for (const QString& word : part.split(QLatin1Char(' '), Qt::SkipEmptyParts))
      place(word, QStringLiteral(" "));
  }
  return lines;
}

}  // namespace sinkscope::render
