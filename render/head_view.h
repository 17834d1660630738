#pragma once
// The head view for teaching, in the manner of BertViz's:
// the tokens in two columns, queries on the left and keys on the right, a
// line from each query to each key it attends to, as opaque as the weight;
// several heads at once, each in its colour; hovering a token shows its lines
// alone. Drawn with QPainter (no OpenGL), so the same drawing is the screen's,
// the figure's and the offscreen one's.
#include <QColor>
#include <QPainter>
#include <QSizeF>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "models/io/table_io.h"
#include "models/views/colours.h"

namespace sinkscope::render {

struct HeadViewHead {
  QString name;                // "head 3"
  views::Rgb colour;
  std::vector<float> weights;  // tokens x tokens, row = query, column = key
};

struct HeadViewData {
  QString title;
  std::vector<QString> tokens;  // both columns
  std::vector<HeadViewHead> heads;
  int focusQuery = -1;  // only this query's lines (a hovered left token), -1: all
  int focusKey = -1;    // only the lines into this key (a hovered right token), -1: all
  int selectedQuery = -1, selectedKey = -1;  // drawn in the selection colour
  QString note;         // under the title: what is left out, if anything
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
void head_view_check(const HeadViewData& data);

// The drawing in a w x h area: title, note, the heads' legend, both token
// columns, the lines. `fontPt`: the token labels' size (the title 2 pt larger).
void paint_head_view(QPainter& p, const HeadViewData& data, double w, double h, double fontPt,
                     const QString& fontFamily, bool visibleSpaces);
// The token (and its side: 0 left, 1 right) under a point of a w x h drawing
// on the screen; {-1, -1}: none.
std::pair<int, int> head_view_token_at(const HeadViewData& data, double w, double h, double fontPt,
                                       QPointF at, const QString& fontFamily);

class HeadView : public QWidget {
  Q_OBJECT

 public:
  explicit HeadView(QWidget* parent = nullptr);
  void setData(HeadViewData data);  // throws as head_view_check
  const HeadViewData& data() const { return data_; }

 Q_SIGNALS:
  // A token was clicked: side 0 = a query (left), 1 = a key (right).
  void tokenClicked(int side, int token);
  // The mouse is over a token (-1: none): its lines alone are drawn meanwhile.
  void tokenHovered(int side, int token);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  void setHover(int side, int token);
  HeadViewData data_;
  int hoverSide_ = -1, hoverToken_ = -1;
};

}  // namespace sinkscope::render
