#include "app/gui_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace sinkscope::app {

void name_application() {
  QCoreApplication::setOrganizationName(QStringLiteral("SinkScope"));
  QCoreApplication::setApplicationName(QStringLiteral("sinkscope"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SINKSCOPE_VERSION));
}

QString builtin_models_dir() {
  const QStringList candidates{
      qEnvironmentVariable("SINKSCOPE_MODELS_DIR"),
      QCoreApplication::applicationDirPath() + QStringLiteral("/../share/sinkscope/models"),
      QStringLiteral(SINKSCOPE_SOURCE_DIR "/resources/models")};
  for (const QString& c : candidates)
    if (!c.isEmpty() && QFileInfo(c).isDir()) return QDir(c).absolutePath();
  return {};
}

QString default_model_folder(const QString& builtins) {
  if (builtins.isEmpty()) return {};
  return QDir(builtins).filePath(QStringLiteral("rope-decoder-bos-first"));
}

}  // namespace sinkscope::app
