// main() for tests that need a QApplication (widgets). Listing the tests
// (--gtest_list_tests) creates none, so it works without a display.
#include <gtest/gtest.h>

#include <QApplication>
#include <QStandardPaths>

#include "models/cpu_runtime.h"
#include "render/gl_support.h"
#include "render/panel_export.h"
#include "support/test_exit.h"

int main(int argc, char** argv) {
  // As the programs do: OpenBLAS's kernels for this CPU (numbers equal to the
  // programs' to the bit), and the same figure is the same file.
  sinkscope::models::configure_cpu_runtime();
  sinkscope::render::figure_hash_seed();
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
#ifdef SINKSCOPE_QT_PLATFORM
  qputenv("QT_QPA_PLATFORM", SINKSCOPE_QT_PLATFORM);
#endif
  sinkscope::render::gl_configure_defaults();
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("SinkScopeTests"));
  QApplication::setApplicationName(QStringLiteral("sinkscope-tests"));
  return sinkscope::testing::run_all_tests();
}
