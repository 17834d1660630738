#include "render/pan_zoom_style.h"

#include <vtkCallbackCommand.h>
#include <vtkObjectFactory.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderer.h>

namespace sinkscope::render {

vtkStandardNewMacro(PanZoomStyle);

void PanZoomStyle::OnLeftButtonDown() {
  const int* pos = Interactor->GetEventPosition();
  FindPokedRenderer(pos[0], pos[1]);
  if (!CurrentRenderer) return;
  GrabFocus(EventCallbackCommand);
  StartPan();
}

void PanZoomStyle::OnLeftButtonUp() {
  if (State == VTKIS_PAN) {
    EndPan();
    if (Interactor) ReleaseFocus();
  }
}

// Middle button does the same as left, so no button reaches window/level.
void PanZoomStyle::OnMiddleButtonDown() { OnLeftButtonDown(); }
void PanZoomStyle::OnMiddleButtonUp() { OnLeftButtonUp(); }

void PanZoomStyle::OnChar() {
  // Keep only 'r' (reset camera); the image style's other keys change
  // window/level or pick mode.
  const char key = Interactor->GetKeyCode();
  if (key == 'r' || key == 'R') {
    const int* pos = Interactor->GetEventPosition();
    FindPokedRenderer(pos[0], pos[1]);
    if (CurrentRenderer) {
      CurrentRenderer->ResetCamera();
      Interactor->Render();
    }
  }
}

}  // namespace sinkscope::render
