#pragma once
// Mouse interaction for 2-D panels: left drag pans, wheel and right drag zoom,
// 'r' resets the view. Unlike vtkInteractorStyleImage's defaults, no button
// changes window/level: the colours of a weight map must stay comparable.
#include <vtkInteractorStyleImage.h>

namespace sinkscope::render {

class PanZoomStyle : public vtkInteractorStyleImage {
 public:
  static PanZoomStyle* New();
  vtkTypeMacro(PanZoomStyle, vtkInteractorStyleImage);

  void OnLeftButtonDown() override;
  void OnLeftButtonUp() override;
  void OnMiddleButtonDown() override;
  void OnMiddleButtonUp() override;
  void OnChar() override;

 protected:
  PanZoomStyle() = default;
};

}  // namespace sinkscope::render
