#include "ui/panels/spectrum_panel.h"

#include <QCheckBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "models/document/plot_views.h"
#include "models/document/scene_views.h"
#include "models/document/sentence_run.h"
#include "models/document/trace_analysis.h"
#include "render/drawn_views.h"
#include "render/figure_part.h"
#include "render/gl_support.h"
#include "render/line_plot_view.h"
#include "render/scene_view.h"
#include "ui/docks.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

SpectrumPanel::SpectrumPanel(PanelInputs& inputs, QWidget* host) : Panel(inputs, host) {
  const bool gl = render::gl_panels_available();
  // The plot with its one option above it: which Laplacian.
  auto* plotBox = new QWidget(host);
  auto* plotLayout = new QVBoxLayout(plotBox);
  plotLayout->setContentsMargins(2, 2, 2, 2);
  normalisedBox_ = new QCheckBox(tr("normalised Laplacian (I - D^-1/2 W D^-1/2)"), plotBox);
  normalisedBox_->setObjectName(QStringLiteral("normalisedLaplacian"));
  normalisedBox_->setToolTip(
      tr("Eigenvalues of the normalised Laplacian lie in [0, 2] whatever the degrees, so heads "
         "and thresholds compare on one scale"));
  connect(normalisedBox_, &QCheckBox::toggled, this, [this] {
    if (in_.selectionFits()) drawSpectrum();
  });
  plotLayout->addWidget(normalisedBox_);
  spectrum_ = new render::LinePlotView(plotBox);
  spectrum_->setObjectName(QStringLiteral("spectrumView"));
  plotLayout->addWidget(spectrum_, 1);
  QSplitter* spectrumBox = panel_splitter(host);
  spectrumBox->addWidget(plotBox);
  if (gl) {
    embedding_ = new render::SceneView(spectrumBox);
    highlightHoveredTokens(embedding_);
    connect(in_.selection, &SelectionModel::highlightChanged, this, [this] {
      if (!in_.selectionFits()) return;
      if (const auto full = in_.selectedSpectrum()) drawSpectralEmbedding(*full);
    });
    embedding_->setObjectName(QStringLiteral("spectralEmbedding"));
    spectrumBox->addWidget(embedding_);
  } else {
    embeddingStandIn_ = new render::FigureStandIn(QStringLiteral("spectralEmbedding"), spectrumBox);
    spectrumBox->addWidget(embeddingStandIn_);
  }
  setContent(QStringLiteral("spectrum"), spectrumBox,
             tr("Eigenvalues of the Laplacian of the graph 'query attends to key with weight >= "
                "θ', one series per threshold. The second smallest, the "
                "Fiedler value, measures how well connected the graph is; a star into one sink "
                "gives centralisation 1. Below: the tokens placed by eigenvectors 2-4 (the "
                "spectral embedding), coloured by the Fiedler vector (blue negative, red "
                "positive): the cut the graph would most easily split along."));
}

void SpectrumPanel::drawNote(const QString& note) {
  drawn().show(spectrum_, document::note_plot(note.toStdString()));
  drawn().show(embedding_, embeddingStandIn_, document::note_scene(note.toStdString()));
}

void SpectrumPanel::drawSpectrum() {
  const TraceAnalysis& a = *in_.analysis;
  // Long inputs: only the chosen theta's spectrum (the others would cost as
  // much each); short ones plot every default threshold from the run's cache.
  const auto topology = a.topologyForAllHeads
                            ? in_.topologyOf(in_.place.layer(), in_.place.head())
                            : std::make_shared<const analysis::HeadAnalysis>();
  const bool normalised = normalisedBox_->isChecked();
  const auto chosen =
      in_.spectrumAt(in_.place.layer(), in_.place.head(), true, normalised);
  const auto full = in_.selectedSpectrum();
  const QString waiting = computing_title(tr("Laplacian spectrum"), in_.place.layer(),
                                          in_.place.head(), a.tokens);
  if (!topology || !chosen) {
    drawn().show(spectrum_, document::note_plot(waiting.toStdString()));
  } else {
    drawSpectrumPlot(*topology, *chosen);
  }
  if (!in_.run) return;
  if (!full) {
    drawn().show(embedding_, embeddingStandIn_, document::note_scene(waiting.toStdString()));
    return;
  }
  drawSpectralEmbedding(*full);
}

void SpectrumPanel::drawSpectrumPlot(const analysis::HeadAnalysis& r,
                                     const analysis::GraphSpectrum& g) {
  const TraceAnalysis& a = *in_.analysis;
  const bool normalised = normalisedBox_->isChecked();
  std::vector<analysis::GraphSpectrum> shown = normalised ? r.normalisedSpectra : r.spectra;
  // The chosen theta too when it is not a default one, or alone (long inputs).
  if (shown.empty() || a.thresholdIndex(in_.selection->threshold()) < 0) shown.push_back(g);
  const document::PlotPlace place{in_.place.layer(), in_.place.head(),
                                  in_.place.note(in_.beforeName).toStdString()};
  const std::optional<int> onlyChosen =
      a.topologyForAllHeads ? std::nullopt
                            : std::optional<int>(document::kTopologyForAllHeadsMaxTokens);
  // Side by side: the plain run's eigenvalues at the chosen theta, dashed.
  const int ti = in_.before ? in_.before->thresholdIndex(in_.selection->threshold()) : -1;
  const int layer = in_.selection->layer(), head = in_.selection->head();  // A's own
  std::optional<document::SpectrumBefore> before;
  if (ti >= 0 && in_.before->topologyForAllHeads && layer < in_.before->layers &&
      head < in_.before->heads) {
    const analysis::HeadAnalysis& plain = in_.before->at(layer, head);
    before = document::SpectrumBefore{
        &(normalised ? plain.normalisedSpectra : plain.spectra)[static_cast<std::size_t>(ti)],
        layer, head, in_.runNames()};
  }
  drawn().show(spectrum_, document::spectrum_plot(shown, g, place, normalised, onlyChosen,
                                                  before ? &*before : nullptr));
}

void SpectrumPanel::drawSpectralEmbedding(const analysis::GraphSpectrum& full) {
  drawn().show(embedding_, embeddingStandIn_,
               document::spectral_embedding_scene(
                   full, in_.run->tokenStrings(), [this](int t) { return in_.place.lit(t); },
                   in_.analysis ? in_.analysis->at(in_.place.layer(), in_.place.head()).sinks.keys()
                                : std::vector<int>{}));
}

}  // namespace sinkscope::ui
