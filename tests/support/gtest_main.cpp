// main() for tests without Qt: GoogleTest's, with ctest's skip status
// (test_exit.h), also when the BLAS kernel asked for cannot run here (blas_kernel.h).
#include <gtest/gtest.h>

#include <iostream>

#include "support/blas_kernel.h"
#include "support/test_exit.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const std::string why = sinkscope::testing::blas_kernel_unavailable(); !why.empty()) {
    std::cout << "Skipped: " << why << "\n";
    return sinkscope::testing::kAllSkipped;
  }
  return sinkscope::testing::run_all_tests();
}
