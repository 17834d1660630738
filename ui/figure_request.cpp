#include "ui/figure_request.h"

#include <stdexcept>

namespace sinkscope::ui {

const std::vector<FigurePanelName>& figure_panel_names() {
  static const std::vector<FigurePanelName> names{
      {QStringLiteral("attention-map"), QStringLiteral("attentionDock"),
       {QStringLiteral("attentionView")}, QStringLiteral("the attention map of the selected head")},
      {QStringLiteral("key-importance"), QStringLiteral("profileDock"),
       {QStringLiteral("profileView")}, QStringLiteral("alpha_k by key with the uniform baseline")},
      {QStringLiteral("overview"), QStringLiteral("overviewDock"),
       {QStringLiteral("overviewView")}, QStringLiteral("every head's score, layers x heads")},
      {QStringLiteral("persistence"), QStringLiteral("persistenceDock"),
       {QStringLiteral("persistenceDiagram"), QStringLiteral("barcode"), QStringLiteral("bettiCurves")},
       QStringLiteral("persistence diagram, barcode and Betti curves")},
      {QStringLiteral("spectrum"), QStringLiteral("spectrumDock"),
       {QStringLiteral("spectrumView"), QStringLiteral("spectralEmbedding")},
       QStringLiteral("Laplacian spectrum and spectral embedding")},
      {QStringLiteral("taxonomy"), QStringLiteral("taxonomyDock"),
       {QStringLiteral("taxonomyView"), QStringLiteral("taxonomyCounts")},
       QStringLiteral("head classes and their counts per layer")},
      {QStringLiteral("layer-profiles"), QStringLiteral("layerProfileDock"),
       {QStringLiteral("layerSinkProfile"), QStringLiteral("layerTopologyProfile"),
        QStringLiteral("layerFunctionProfile")},
       QStringLiteral("sink, topology and function measures by layer")},
      {QStringLiteral("graph"), QStringLiteral("graphDock"), {QStringLiteral("graphView")},
       QStringLiteral("the attention graph in 3-D")},
      {QStringLiteral("value-space"), QStringLiteral("valueSpaceDock"),
       {QStringLiteral("valueSpaceView"), QStringLiteral("valueCurve")},
       QStringLiteral("value contributions in 3-D and F_N against N")},
      {QStringLiteral("head-view"), QStringLiteral("headViewDock"), {QStringLiteral("headView")},
       QStringLiteral("lines from queries to keys, as BertViz's head view")},
      {QStringLiteral("emergence"), QStringLiteral("checkpointsDock"),
       {QStringLiteral("emergenceView"), QStringLiteral("emergenceGrid")},
       QStringLiteral("alpha_0 against training step, per layer and every head (a session with "
                      "checkpoints)"),
       true},
  };
  return names;
}

QStringList figure_views_of(const QStringList& names) {
  QStringList views;
  for (const QString& name : names) {
    bool found = false;
    for (const FigurePanelName& panel : figure_panel_names()) {
      if (panel.name == name) {
        views << panel.views;
        found = true;
      } else if (panel.views.contains(name)) {
        views << name;
        found = true;
      }
      if (found) break;
    }
    if (!found) {
      QStringList known;
      for (const FigurePanelName& panel : figure_panel_names())
        known << panel.name + QStringLiteral(" (") + panel.views.join(QStringLiteral(", ")) +
                     QLatin1Char(')');
      throw std::invalid_argument(
          (QStringLiteral("--panel: no panel or view called \"%1\"; the panels (and their views) "
                          "are: %2")
               .arg(name, known.join(QStringLiteral("; "))))
              .toStdString());
    }
  }
  if (views.size() > 26) throw std::invalid_argument("--panel: a figure holds at most 26 views");
  return views;
}

QStringList figure_views_of_dock(const QString& dock) {
  for (const FigurePanelName& panel : figure_panel_names())
    if (panel.dock == dock) return panel.views;
  return {};
}

}  // namespace sinkscope::ui
