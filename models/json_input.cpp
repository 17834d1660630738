#include "models/internal/json_input.h"

namespace sinkscope::models {

using nlohmann::json;

namespace internal {

std::string json_error_text(const std::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0)
    if (const auto close = text.find("] "); close != std::string::npos) text.erase(0, close + 2);
  return text;
}

}  // namespace internal

namespace {

// A SAX pass that only measures nesting and stops past the limit: linear in
// the text. (A parser callback would do the same but nlohmann's callback
// parser scans a container's elements whenever one of them ends, which is
// quadratic in the entry count: 47 s for 320,000 entries.)
class DepthCheck : public json::json_sax_t {
 public:
  explicit DepthCheck(int maxDepth) : maxDepth_(maxDepth) {}
  bool tooDeep = false;
  std::string error;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = internal::json_error_text(e);
    return false;
  }

 private:
  bool enter() {
    if (++depth_ > maxDepth_) {
      tooDeep = true;
      return false;
    }
    return true;
  }
  bool leave() {
    --depth_;
    return true;
  }
  int maxDepth_, depth_ = 0;
};

}  // namespace

json json_parse_bounded(std::string_view text, const std::string& source, int maxDepth) {
  DepthCheck check(maxDepth);
  const bool ok = json::sax_parse(text.begin(), text.end(), &check);
  if (check.tooDeep)
    throw ModelInputError(source + ": JSON nested deeper than " + std::to_string(maxDepth) +
                          " levels; refused");
  if (!ok) throw ModelInputError(source + ": not valid JSON (" + check.error + ")");
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    throw ModelInputError(source + ": not valid JSON (" + internal::json_error_text(e) + ")");
  }
}

}  // namespace sinkscope::models
