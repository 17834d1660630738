// main() for tests that need a QApplication (widgets). Listing tests (ctest's
// discovery) creates none, so discovery works without a display.
#include <gtest/gtest.h>

#include <QApplication>
#include <QStandardPaths>

#include "render/gl_support.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
#ifdef SINKSCOPE_QT_PLATFORM
  qputenv("QT_QPA_PLATFORM", SINKSCOPE_QT_PLATFORM);
#endif
  sinkscope::render::gl_configure_defaults();
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("SinkScopeTests"));
  QApplication::setApplicationName(QStringLiteral("sinkscope-tests"));
  return RUN_ALL_TESTS();
}
