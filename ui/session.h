#pragma once
// The GUI's side of a session file (models/document/session_format.h, the
// format itself, without Qt): the 3-D views' cameras as render/ takes them.
#include <QString>
#include <string>
#include <utility>
#include <vector>

#include "models/document/session_format.h"
#include "render/scene_data.h"

namespace sinkscope::ui {

using document::Session;
using document::session_comparisons;
using document::session_from_json;
using document::session_model_changes;
using document::session_places_outside;
using document::session_read;
using document::session_read_here;
using document::session_to_json;
using document::session_write;
using document::SessionError;

// The session's cameras as the 3-D views take them (already made orthonormal).
std::vector<std::pair<QString, views::SceneCamera>> session_cameras(const Session& session);
// The views' cameras as a session keeps them.
std::vector<std::pair<std::string, document::SessionCamera>> session_cameras_of(
    const std::vector<std::pair<QString, views::SceneCamera>>& cameras);

}  // namespace sinkscope::ui
