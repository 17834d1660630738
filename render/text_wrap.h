#pragma once
// Breaks a panel's title or legend into lines that fit its width: first at
// the " | " separators SinkScope's titles use, then between words.
#include <QString>
#include <QStringList>
#include <functional>

namespace sinkscope::render {

// `width(text)` measures a piece of text in the same unit as `room`.
QStringList text_wrap(const QString& text, const std::function<double(const QString&)>& width,
                      double room);

}  // namespace sinkscope::render
