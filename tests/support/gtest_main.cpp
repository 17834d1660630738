// main() for tests without Qt: GoogleTest's, with ctest's skip status (test_exit.h).
#include <gtest/gtest.h>

#include "support/test_exit.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return sinkscope::testing::run_all_tests();
}
