#pragma once
// Internal to models/: JSON parsing for files users open. Depth-bounded (a
// document nested 100,000 deep must not overflow the stack of the parser,
// of a recursive copy or of a recursive builder) and with nlohmann's own
// exception text wrapped into a message that names the file.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "models/input_files.h"
#include "models/json_bounded.h"

namespace sinkscope::models::internal {

using models::json_parse_bounded;

// Runs `f` and returns what it returns; a ModelInputError it throws (from the
// readers above) comes out as `E`, the error type the caller documents, with
// the same message. One place for what each reader of a model file needs.
template <class E, class F>
auto rethrow_as(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const E&) {
    throw;
  } catch (const ModelInputError& e) {
    throw E(e.what());
  }
}

// nlohmann's exception text without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const std::exception& e);

}  // namespace sinkscope::models::internal
