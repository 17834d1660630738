#pragma once
// A run as one self-contained web page: the attention of every head (quantised
// to bytes), every head's views as the window draws them (views::view_json,
// compressed) and the numbers analyze reports, with the viewer's script and
// style inlined, so that the page opens from disk or an e-mail attachment in
// any current browser with no network. The page decodes a head when it is
// selected.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "models/document/analysis_settings.h"

namespace sinkscope::models {
class Trace;
}

namespace sinkscope::document {

struct WebPageInputs {
  const models::Trace* trace = nullptr;
  std::vector<std::string> tokens;  // as the panels show them
  std::string sentence;             // empty for a capture without one
  // The header lines of analyze's tables (model, text or capture, hashes,
  // command): what the page names as its source.
  std::vector<std::pair<std::string, std::string>> header;
  AnalysisSettings settings;
  // analyze's tables of this run, (file name, CSV text): the page's per-head
  // numbers are read from them, so the page says what analyze says.
  std::vector<std::pair<std::string, std::string>> tables;
};

// The weights' precision in the page: a byte per weight, w = q / 255.
inline constexpr double kWebPageWeightStep = 1.0 / 255.0;

// The page's data object (format "sinkscope-web-page", version 1; resources/web/
// viewer.js reads it). Analyses the trace's heads for their views. Throws
// std::invalid_argument when the inputs do not fit together.
nlohmann::json web_page_data(const WebPageInputs& inputs);

// The page of an analyze subject: analyze's tables computed for it, then
// web_page_data and web_page_html. `progress` as analyze's (fraction of the
// tables; false stops).
struct AnalyzeSubject;
std::string web_page_of(const AnalyzeSubject& subject, const std::string& sentence,
                        const std::vector<std::pair<std::string, std::string>>& header,
                        const AnalysisSettings& settings,
                        const std::function<bool(double)>& progress = {});

// The whole page: resources/web/page.html with the viewer's style and script
// and `data` inlined (its "<" written as \u003c, so no text in it ends the
// script element).
std::string web_page_html(const nlohmann::json& data);

// Standard base64 of `bytes` (RFC 4648, with padding), and zlib's deflate of
// them (what a browser's DecompressionStream("deflate") reads).
std::string base64_encode(const std::string& bytes);
std::string zlib_deflate(const std::string& bytes);

}  // namespace sinkscope::document
