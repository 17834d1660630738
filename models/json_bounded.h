#pragma once
// JSON from files users open: parsed in time linear in the text, nested at
// most `maxDepth` levels (a document nested 100,000 deep must not overflow
// the stack of a recursive copy, dump or destructor later), nlohmann's
// exception text wrapped into a message that names the source.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "models/input_files.h"

namespace sinkscope::models {

// Throws ModelInputError("SOURCE: not valid JSON (...)") or ("SOURCE: JSON
// nested deeper than N levels; refused").
nlohmann::json json_parse_bounded(std::string_view text, const std::string& source,
                                  int maxDepth = kJsonMaxDepth);

}  // namespace sinkscope::models
