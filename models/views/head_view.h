#pragma once
// The head view (in the manner of BertViz's) as plain data: the tokens in
// two columns, each head's weights, the focus and the selection, and the
// table of the numbers drawn. The document layer builds it; the screen and
// the figure writer draw it.
#include <memory>
#include <string>
#include <vector>

#include "models/io/table_io.h"
#include "models/views/colours.h"

namespace sinkscope::views {

struct HeadViewHead {
  std::string name;  // "head 3"
  Rgb colour;
  std::vector<float> weights;  // tokens x tokens, row = query, column = key
};

struct HeadViewData {
  std::string title;
  std::vector<std::string> tokens;  // both columns
  std::vector<HeadViewHead> heads;
  int focusQuery = -1;  // only this query's lines (a hovered left token), -1: all
  int focusKey = -1;    // only the lines into this key (a hovered right token), -1: all
  int selectedQuery = -1, selectedKey = -1;  // drawn in the selection colour
  std::string note;                          // under the title: what is left out, if anything
  // The numbers drawn, as the document layer tabled them (the rows of
  // `sinkscope-cli attention` for the heads and tokens shown); the CSV
  // writes them. Unset: the drawing's own table of weights.
  std::shared_ptr<const io::CsvTable> numbers = {};
};

// One line of the drawing: from query `query` to key `key` of head `head`
// (an index into data.heads), `opacity` in [0, 1].
struct HeadViewLine {
  int head = 0, query = 0, key = 0;
  double opacity = 0.0;
};
// The lines the view draws: every weight of at least kHeadViewMinWeight, only
// the focused token's when one is; opacity = weight (what the eye reads as
// "how much"), the heads' lines drawn over each other.
std::vector<HeadViewLine> head_view_lines(const HeadViewData& data);
inline constexpr double kHeadViewMinWeight = 0.01;
// Inputs longer than this show their first kHeadViewMaxTokens tokens (the view says so).
inline constexpr int kHeadViewMaxTokens = 96;

// Throws std::invalid_argument when a head's weights are not tokens x tokens.
// The head view without the selected query and key.
HeadViewData head_view_without_selection(HeadViewData data);
void head_view_check(const HeadViewData& data);

}  // namespace sinkscope::views
