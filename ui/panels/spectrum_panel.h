#pragma once
// Spectrum: the Laplacian eigenvalues of the selected head at every
// threshold (Fiedler value, centralisation, star-likeness in the title) and
// the tokens' 3-D spectral embedding coloured by the Fiedler vector.
#include "ui/panels/panel.h"

class QCheckBox;

namespace sinkscope::render {
class FigureStandIn;
class LinePlotView;
class SceneView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

class SpectrumPanel : public Panel {
  Q_OBJECT

 public:
  SpectrumPanel(PanelInputs& inputs, QWidget* host);
  render::LinePlotView* spectrumView() const { return spectrum_; }
  render::SceneView* embeddingView() const { return embedding_; }
  void draw() override { drawSpectrum(); }
  void drawNote(const QString& note) override;

 private:
  void drawSpectrum();
  void drawSpectrumPlot(const analysis::HeadAnalysis& r, const analysis::GraphSpectrum& g);
  void drawSpectralEmbedding(const analysis::GraphSpectrum& full);
  render::LinePlotView* spectrum_ = nullptr;
  render::SceneView* embedding_ = nullptr;
  render::FigureStandIn* embeddingStandIn_ = nullptr;  // in its place without OpenGL
  QCheckBox* normalisedBox_ = nullptr;
};

}  // namespace sinkscope::ui
