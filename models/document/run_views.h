#pragma once
// Every panel's views of one head of an analysed run, with nothing compared:
// what the window shows for that selection, built by the same functions,
// for readers without a window (Python, notebooks, web pages).
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/document/trace_analysis.h"

namespace sinkscope::models {
class Trace;
}

namespace sinkscope::document {

// The selection the views show: a head (-1: the layer's average), a query
// (-1: the last token) and the graph threshold.
struct ViewSelection {
  int layer = 0;
  int head = 0;
  int query = -1;
  double threshold = 0.05;
  // The panels wanted, by name ("key-importance", "persistence", ...); empty:
  // every panel (a page of every head draws a few and builds no other).
  std::vector<std::string> panels = {};
};

// {"selection": {...}, "panels": {"attention-map": [view], "persistence":
// [diagram, barcode, Betti], ...}}: each panel's views in the window's order
// as views::view_json writes them. Throws std::invalid_argument naming a
// layer, head or query outside the run.
nlohmann::json run_views_json(const models::Trace& trace, const TraceAnalysis& analysis,
                              const std::vector<std::string>& tokens, const std::string& source,
                              const ViewSelection& selection);

}  // namespace sinkscope::document
