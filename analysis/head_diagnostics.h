#pragma once
// Head diagnostics (metrics.md section 1; 004, Table 2).
#include "analysis/attention_matrix.h"

namespace sinkscope::analysis {

struct HeadDiagnostics {
  double entropy = 0.0;        // -sum_j A[i][j] ln A[i][j] (0 ln 0 = 0)
  double top1 = 0.0;           // max_j A[i][j]
  double sinkAttention = 0.0;  // A[i][0]
  double currentToken = 0.0;   // A[i][i]
  double topNMass = 0.0;       // sum of the N largest A[i][j]
};

// At query `query` (the last position when negative).
HeadDiagnostics head_diagnostics_at(const AttentionView& attention, int query, int topN);

// Averaged over every query i >= 1 (query 0 sees only itself).
HeadDiagnostics head_diagnostics_mean(const AttentionView& attention, int topN);

}  // namespace sinkscope::analysis
