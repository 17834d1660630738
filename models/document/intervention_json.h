#pragma once
// The one JSON form of an intervention (models::Intervention), written by
// studies and sessions alike: numbers as C99 hexadecimal floats (an exact
// round trip), read back as untrusted input.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "models/intervention.h"

namespace sinkscope::document {

class InterventionFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// {"drop_first": bool, "remove_sinks": [{"percentile", "gamma",
// "before_softmax", "layers", "heads"}], "ablate": [[layer, head]],
// "rope_theta": number or null, "ntk_scale": number}.
nlohmann::json intervention_json(const models::Intervention& iv);

// Every field checked (kinds, bounded lists, indices, finite numbers in
// range; a number as hex_double's string or as a plain JSON number);
// InterventionFormatError names `where` and the field.
models::Intervention intervention_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace sinkscope::document
