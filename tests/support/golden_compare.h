#pragma once
// Comparing an output file with its golden twin as a reader of its numbers
// would, by the file's own structure (CSV columns, JSON keys, JSON lines):
//
// - text, headers ('#' lines), column names, keys and value types exactly;
// - every number whose value is whole in both files (counts, indices,
//   layers, sink tokens, integers kept as floats) exactly;
// - every other number within `numbers`, a tolerance suited to float32 work:
//   two CPUs' BLAS kernels sum a product's terms in other orders, so the
//   last digits of a float32 result differ between machines;
// - a number of a random-baseline column (`randomBaselineNames`: a column or
//   key of that name, or a row labelled so) within `randomBaseline`: such a
//   score is a mean over random subsets of ball memberships, decided at the
//   tie tolerance on distances that differ between kernels in their last
//   digits, so one subset may score otherwise on another CPU.
#include <set>
#include <string>

#include "support/numeric_text.h"

namespace sinkscope::testing {

struct GoldenRules {
  NumericTolerance numbers;
  NumericTolerance randomBaseline;
  std::set<std::string> randomBaselineNames;
};

struct GoldenComparison {
  std::string difference;  // where the files first part, "" when they agree
  int inexactNumbers = 0;  // numbers that differed within a tolerance
  double largestRelative = 0.0;
  double largestAbsolute = 0.0;
  int randomBaselineMoves = 0;  // random-baseline numbers beyond `numbers` (within their own)
};

// `name` (the file's name) chooses the structure: *.csv, *.json, *.jsonl;
// any other file is compared as text with numbers (compare_numeric_text).
GoldenComparison compare_golden_file(const std::string& name, const std::string& expected,
                                     const std::string& got, const GoldenRules& rules);

}  // namespace sinkscope::testing
