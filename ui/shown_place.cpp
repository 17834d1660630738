#include "ui/shown_place.h"

#include "analysis/run_correspondence.h"
#include "ui/panels/panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

ShownPlace::ShownPlace(SelectionModel* selection, int tokenCountB, std::vector<int> tokensInB,
                       bool ownLayerAndHead)
    : selection_(selection),
      counterpart_(true),
      ownLayerAndHead_(ownLayerAndHead),
      tokenCountB_(tokenCountB),
      tokensInB_(std::move(tokensInB)) {}

int ShownPlace::layer() const {
  return counterpart_ && !ownLayerAndHead_ ? selection_->counterpartLayer() : selection_->layer();
}

int ShownPlace::head() const {
  return counterpart_ && !ownLayerAndHead_ ? selection_->counterpartHead() : selection_->head();
}

int ShownPlace::token(int tokenOfA) const {
  if (!counterpart_ || tokenOfA < 0) return tokenOfA;
  if (!tokensInB_.empty())
    return tokenOfA < static_cast<int>(tokensInB_.size()) ? tokensInB_[static_cast<std::size_t>(tokenOfA)]
                                                          : SelectionModel::kNoToken;
  return tokenOfA < tokenCountB_ ? tokenOfA : SelectionModel::kNoToken;
}

int ShownPlace::queryToken() const { return token(selection_->queryToken()); }

int ShownPlace::keyToken() const { return token(selection_->keyToken()); }

QList<int> ShownPlace::tokensOfA(int shownToken) const {
  if (shownToken < 0) return {};
  if (!counterpart_ || tokensInB_.empty())
    return shownToken < selection_->tokenCount() ? QList<int>{shownToken} : QList<int>{};
  const std::vector<int> tokens = analysis::tokens_landing_on(tokensInB_, shownToken);
  return QList<int>(tokens.begin(), tokens.end());
}

bool ShownPlace::lit(int shownToken) const {
  for (int t : selection_->highlightedTokens())
    if (token(t) == shownToken) return true;
  return false;
}

std::vector<std::pair<int, int>> ShownPlace::highlightedEdges() const {
  std::vector<std::pair<int, int>> out;
  for (const auto& [a, b] : selection_->highlightedEdges()) {
    const int sa = token(a), sb = token(b);
    if (sa >= 0 && sb >= 0 && sa != sb) out.emplace_back(sa, sb);
  }
  return out;
}

void ShownPlace::highlight(const QList<int>& tokens, const QList<QPair<int, int>>& edges) const {
  QList<int> inA;
  for (int t : tokens) inA << tokensOfA(t);
  QList<QPair<int, int>> edgesInA;
  for (const auto& [a, b] : edges) {
    // An edge of B lands on the first tokens of A its ends land on.
    const QList<int> ea = tokensOfA(a), eb = tokensOfA(b);
    if (!ea.isEmpty() && !eb.isEmpty()) edgesInA << QPair<int, int>{ea.front(), eb.front()};
  }
  selection_->setHighlight(inA, edgesInA);
}

QString ShownPlace::note(const QString& runA) const {
  if (!counterpart_ || (layer() == selection_->layer() && head() == selection_->head())) return {};
  return QObject::tr(" | %1 at layer %2, %3").arg(runA).arg(selection_->layer()).arg(head_name(selection_->head()));
}

}  // namespace sinkscope::ui
