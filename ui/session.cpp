#include "ui/session.h"

namespace sinkscope::ui {

std::vector<std::pair<QString, views::SceneCamera>> session_cameras(const Session& session) {
  std::vector<std::pair<QString, views::SceneCamera>> out;
  for (const auto& [view, camera] : session.cameras)
    out.emplace_back(QString::fromStdString(view), views::SceneCamera{camera.direction, camera.up});
  return out;
}

std::vector<std::pair<std::string, document::SessionCamera>> session_cameras_of(
    const std::vector<std::pair<QString, views::SceneCamera>>& cameras) {
  std::vector<std::pair<std::string, document::SessionCamera>> out;
  for (const auto& [view, camera] : cameras)
    out.emplace_back(view.toStdString(), document::SessionCamera{camera.direction, camera.up});
  return out;
}

}  // namespace sinkscope::ui
