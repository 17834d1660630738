#include "models/internal/json_input.h"

namespace sinkscope::models::internal {

using nlohmann::json;

std::string json_error_text(const std::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0)
    if (const auto close = text.find("] "); close != std::string::npos) text.erase(0, close + 2);
  return text;
}

json json_parse_bounded(std::string_view text, const std::string& source, int maxDepth) {
  struct TooDeep {};
  // The parser itself is iterative; the callback stops it before the document
  // is deeper than what later recursive code (copies, dumps, builders) may meet.
  const json::parser_callback_t limit = [maxDepth](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start ||
         event == json::parse_event_t::array_start) &&
        depth >= maxDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), limit);
  } catch (const TooDeep&) {
    throw ModelInputError(source + ": JSON nested deeper than " + std::to_string(maxDepth) +
                          " levels; refused");
  } catch (const json::exception& e) {
    throw ModelInputError(source + ": not valid JSON (" + json_error_text(e) + ")");
  }
}

}  // namespace sinkscope::models::internal
