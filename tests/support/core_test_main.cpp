// main() for tests that need a Qt event loop but no widgets (selection model, jobs).
#include <gtest/gtest.h>

#include "support/test_exit.h"

#include <QCoreApplication>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  QCoreApplication app(argc, argv);
  return sinkscope::testing::run_all_tests();
}
