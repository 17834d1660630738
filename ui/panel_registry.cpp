#include "ui/panel_registry.h"

#include <QObject>
#include <stdexcept>

namespace sinkscope::ui {

const std::vector<PanelEntry>& panel_registry() {
  auto s = [](const char* text) { return QString::fromUtf8(text); };
  static const std::vector<PanelEntry> panels{
      {s("attention-map"),
       s("attentionDock"),
       QObject::tr("Attention map"),
       {s("attentionView")},
       s("the attention map of the selected head")},
      {s("key-importance"),
       s("profileDock"),
       QObject::tr("Key importance"),
       {s("profileView")},
       s("αₖ by key with the uniform baseline")},
      {s("overview"),
       s("overviewDock"),
       QObject::tr("Model overview"),
       {s("overviewView")},
       s("every head's score, layers x heads")},
      {s("persistence"),
       s("persistenceDock"),
       QObject::tr("Persistence"),
       {s("persistenceDiagram"), s("barcode"), s("bettiCurves")},
       s("persistence diagram, barcode and Betti curves")},
      {s("spectrum"),
       s("spectrumDock"),
       QObject::tr("Spectrum"),
       {s("spectrumView"), s("spectralEmbedding")},
       s("Laplacian spectrum and spectral embedding")},
      {s("taxonomy"),
       s("taxonomyDock"),
       QObject::tr("Taxonomy"),
       {s("taxonomyView"), s("taxonomyCounts")},
       s("head classes and their counts per layer")},
      {s("layer-profiles"),
       s("layerProfileDock"),
       QObject::tr("Layer profiles"),
       {s("layerSinkProfile"), s("layerTopologyProfile"), s("layerFunctionProfile")},
       s("sink, topology and function measures by layer")},
      {s("graph"),
       s("graphDock"),
       QObject::tr("Attention graph"),
       {s("graphView")},
       s("the attention graph in 3-D")},
      {s("value-space"),
       s("valueSpaceDock"),
       QObject::tr("Value space"),
       {s("valueSpaceView"), s("valueCurve")},
       s("value contributions in 3-D and Fₙ against N")},
      {s("head-view"),
       s("headViewDock"),
       QObject::tr("Head view"),
       {s("headView")},
       s("lines from queries to keys, as BertViz's head view")},
      {s("emergence"),
       s("checkpointsDock"),
       QObject::tr("Checkpoints"),
       {s("emergenceView"), s("emergenceGrid")},
       s("α₀ against training step, per layer and every head (a session with "
         "checkpoints)"),
       true},
  };
  return panels;
}

const PanelEntry& panel_entry(const QString& name) {
  for (const PanelEntry& entry : panel_registry())
    if (entry.name == name) return entry;
  throw std::out_of_range("no panel called " + name.toStdString());
}

const PanelEntry* panel_entry_of_dock(const QString& dock) {
  for (const PanelEntry& entry : panel_registry())
    if (entry.dock == dock) return &entry;
  return nullptr;
}

}  // namespace sinkscope::ui
