#pragma once
// Comparing two output files (CSV, JSON, JSON lines) as a reader of their
// numbers would: the text between numbers exactly, whole numbers (counts,
// indices, layers, classes written as numbers) exactly, and every other
// number within a tolerance suited to float32 work. Two CPUs' BLAS kernels
// (OpenBLAS's AVX2 and AVX-512 ones, say) sum a product's terms in other
// orders, so the last digits of a float32 result differ between machines;
// a count or a label must not.
#include <string>

namespace sinkscope::testing {

// Two numbers a and b agree when |a - b| <= absolute + relative * max(|a|, |b|).
struct NumericTolerance {
  double relative = 0.0;
  double absolute = 0.0;
};

struct NumericTextComparison {
  std::string difference;        // where they first part, "" when they agree
  double largestRelative = 0.0;  // over the numbers that were not equal
  double largestAbsolute = 0.0;
  int inexactNumbers = 0;  // numbers that differed but agreed within the tolerance
};

// Numbers are decimal (123, -4.5e-06, .5) or C99 hexadecimal floats
// (0x1.8p+3, as study files keep doubles); a number whose value is whole in
// both texts must be equal.
NumericTextComparison compare_numeric_text(const std::string& expected, const std::string& got,
                                           NumericTolerance tolerance);

}  // namespace sinkscope::testing
