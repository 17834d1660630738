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

#include "models/views/head_view.h"

namespace sinkscope::render {

// The drawing in a w x h area: title, note, the heads' legend, both token
// columns, the lines. `fontPt`: the token labels' size (the title 2 pt larger).
void paint_head_view(QPainter& p, const views::HeadViewData& data, double w, double h,
                     double fontPt, const QString& fontFamily, bool visibleSpaces);
// The token (and its side: 0 left, 1 right) under a point of a w x h drawing
// on the screen; {-1, -1}: none.
std::pair<int, int> head_view_token_at(const views::HeadViewData& data, double w, double h,
                                       double fontPt, QPointF at, const QString& fontFamily);

class HeadView : public QWidget {
  Q_OBJECT

 public:
  explicit HeadView(QWidget* parent = nullptr);
  void setData(views::HeadViewData data);  // throws as head_view_check
  const views::HeadViewData& data() const { return data_; }

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
  views::HeadViewData data_;
  int hoverSide_ = -1, hoverToken_ = -1;
};

}  // namespace sinkscope::render
