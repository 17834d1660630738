#include "ui/panels/key_importance_panel.h"

#include <algorithm>
#include <limits>

#include "analysis/first_token_sink.h"
#include "analysis/sink_metric.h"
#include "models/document/plot_views.h"
#include "models/document/trace_analysis.h"
#include "render/drawn_views.h"
#include "render/line_plot_view.h"
#include "ui/layer_fetch.h"
#include "ui/panels/panel.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

KeyImportancePanel::KeyImportancePanel(Workspace* workspace, render::DrawnViews& drawn,
                                       QWidget* viewParent)
    : QObject(viewParent),
      drawn_(drawn),
      workspace_(workspace),
      view_(new render::LinePlotView(viewParent)) {
  view_->setObjectName(QStringLiteral("profileView"));
  view_->setToolTip(
      tr("Key importance αₖ: the mean attention key k receives from the queries that "
         "can see it (Gu et al.'s sink metric). A key is counted as a sink "
         "when αₖ > ε."));
  view_->setWhatsThis(
      tr("How much attention each token receives, on average, from the tokens after it "
         "(αₖ). The dashed grey curve is what a head that spreads its "
         "attention evenly would give; the red line is the sink threshold ε. A token far "
         "above both, usually the first, is an attention sink."));
}

void KeyImportancePanel::draw(const DrawnRuns& d) {
  if (!d.shown) return;
  if (d.waitingForLayer >= 0)
    return drawn_.show(view_, document::note_plot(d.waitingNote.toStdString()));
  const SentenceRun& shown = *d.shown;
  const SentenceRun& a = *workspace_->run();
  const std::vector<std::string> tokens = shown.tokenStrings();
  document::KeyImportanceInputs in;
  in.source = shown.source;
  in.place = {d.place.layer(), d.place.head(), d.place.note(workspace_->leftName()).toStdString()};
  in.map = &d.map;
  in.tokens = &tokens;
  in.analysis = shown.analysis.get();
  in.uniform = !shown.trace;
  in.keyToken = d.place.keyToken();
  if (!d.sideBySide) return drawn_.show(view_, document::key_importance_plot(in));
  const std::vector<std::string> tokensA = a.tokenStrings();
  const ShownPlace placeA = workspace_->placeOf(a);
  document::KeyImportanceBefore before;
  before.map = &d.before;
  before.tokens = &tokensA;
  before.analysis = a.analysis.get();
  before.place = {placeA.layer(), placeA.head(), {}};
  before.names = workspace_->runNames();
  before.byToken = d.byToken;
  before.bToA = d.alignment.second;
  before.keyToken = workspace_->selection()->keyToken();
  drawn_.show(view_, document::key_importance_plot(in, &before));
}

}  // namespace sinkscope::ui
