#include "models/document/web_page.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "models/document/analyze_report.h"
#include "models/document/run_views.h"
#include "models/document/sink_finding.h"
#include "models/document/trace_analysis.h"
#include "models/document/web_page_resources.h"
#include "models/io/table_io.h"
#include "models/model.h"
#include "models/model_discovery.h"
#include "models/views/colours.h"

namespace sinkscope::document {

using nlohmann::json;

std::string base64_encode(const std::string& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto a = static_cast<unsigned char>(bytes[i]),
               b = static_cast<unsigned char>(bytes[i + 1]),
               c = static_cast<unsigned char>(bytes[i + 2]);
    out += kDigits[a >> 2];
    out += kDigits[((a & 3) << 4) | (b >> 4)];
    out += kDigits[((b & 15) << 2) | (c >> 6)];
    out += kDigits[c & 63];
  }
  if (i + 1 == bytes.size()) {
    const auto a = static_cast<unsigned char>(bytes[i]);
    out += kDigits[a >> 2];
    out += kDigits[(a & 3) << 4];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const auto a = static_cast<unsigned char>(bytes[i]),
               b = static_cast<unsigned char>(bytes[i + 1]);
    out += kDigits[a >> 2];
    out += kDigits[((a & 3) << 4) | (b >> 4)];
    out += kDigits[(b & 15) << 2];
    out += '=';
  }
  return out;
}

std::string zlib_deflate(const std::string& bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                Z_BEST_COMPRESSION) != Z_OK)
    throw std::runtime_error("web page: zlib could not compress the page's data");
  out.resize(size);
  return out;
}

namespace {

json rgb(const views::Rgb& c) { return json::array({c.r, c.g, c.b}); }

// A head's weights as bytes, w = q / 255: the rows' keys up to the query
// when the map is causal (the rest is masked), else every key.
std::string quantised(const analysis::AttentionView& view) {
  const int T = view.size;
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(T) * static_cast<std::size_t>(T + 1) / 2);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= (view.causal ? i : T - 1); ++j) {
      const double w = view.weights[static_cast<std::size_t>(i) * static_cast<std::size_t>(T) +
                                    static_cast<std::size_t>(j)];
      const double q = std::isfinite(w) ? std::clamp(std::round(w * 255.0), 0.0, 255.0) : 0.0;
      bytes += static_cast<char>(static_cast<unsigned char>(q));
    }
  return bytes;
}

// Every number of a view to 5 significant digits: what a drawing or a
// tooltip shows, at a third of the page's bytes.
void round_numbers(json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.5g", v);
      value = std::strtod(text, nullptr);
    }
  } else if (value.is_structured()) {
    for (json& item : value) round_numbers(item);
  }
}

// A view as the page draws it: without its table (analyze's CSVs and the
// page's summary carry the numbers), its numbers rounded.
json drawn(json view) {
  view.erase("numbers");
  round_numbers(view);
  return view;
}

// analyze's tables by file name, parsed once.
struct Tables {
  std::vector<std::pair<std::string, io::CsvTable>> byName;
  const io::CsvTable* find(const std::string& name) const {
    for (const auto& [n, t] : byName)
      if (n == name) return &t;
    return nullptr;
  }
};

// The cell of `column` in the row of (layer, head) of `table` (and where
// `extra` names another column, the row whose cell there equals its value).
const std::string* cell(const io::CsvTable* table, int layer, int head, const std::string& column,
                        const std::pair<std::string, std::string>& extra = {}) {
  if (!table) return nullptr;
  const auto index = [&](const std::string& name) -> long {
    const auto at = std::find(table->columns.begin(), table->columns.end(), name);
    return at == table->columns.end() ? -1 : at - table->columns.begin();
  };
  const long l = index("layer"), h = index("head"), c = index(column),
             e = extra.first.empty() ? -1 : index(extra.first);
  if (l < 0 || h < 0 || c < 0 || (!extra.first.empty() && e < 0)) return nullptr;
  for (const auto& row : table->rows) {
    if (row.size() != table->columns.size()) continue;
    if (row[static_cast<std::size_t>(l)] != std::to_string(layer) ||
        row[static_cast<std::size_t>(h)] != std::to_string(head))
      continue;
    if (e >= 0 && row[static_cast<std::size_t>(e)] != extra.second) continue;
    return &row[static_cast<std::size_t>(c)];
  }
  return nullptr;
}

// A number as the summary shows it: three significant digits.
std::string shown(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

// The head's numbers in the page's summary, each read from analyze's table.
json head_summary(const Tables& t, int layer, int head, const AnalysisSettings& s) {
  json out = json::array();
  const auto add = [&](const std::string& key, const std::string& name, const std::string* text,
                       bool number = true) {
    if (!text || text->empty()) return;
    json entry = {{"key", key}, {"name", name}};
    if (number) {
      const double v = std::strtod(text->c_str(), nullptr);
      entry["value"] = v;
      entry["text"] = shown(v);
    } else {
      entry["value"] = *text;
      entry["text"] = *text;
    }
    out.push_back(std::move(entry));
  };
  const io::CsvTable* summary = t.find("sink_summary.csv");
  add("alpha0", "α₀ (attention to the first token, mean over queries)",
      cell(summary, layer, head, "alpha0"));
  add("boost0", "α₀ / uniform baseline", cell(summary, layer, head, "boost0"));
  if (const std::string* sink = cell(summary, layer, head, "alpha0_above_eps");
      sink && !sink->empty()) {
    const bool yes = std::strtod(sink->c_str(), nullptr) != 0;
    out.push_back({{"key", "is_sink"},
                   {"name", "a sink: α₀ > ε = " + io::csv_number(s.eps)},
                   {"value", yes ? 1 : 0},
                   {"text", yes ? "yes" : "no"}});
  }
  add("sink_count", "sinks", cell(summary, layer, head, "sink_count"));
  add("sink_concentration", "% of attention on sinks",
      cell(summary, layer, head, "sink_concentration"));
  const io::CsvTable* diagnostics = t.find("diagnostics.csv");
  add("entropy", "entropy of the query's row (nats)", cell(diagnostics, layer, head, "entropy"));
  const io::CsvTable* bars = t.find("persistence_summary.csv");
  add("bars_h0_above_min", "H0 bars above the minimum persistence",
      cell(bars, layer, head, "bars_h0_above_min"));
  add("bars_h1_above_min", "H1 bars above the minimum persistence",
      cell(bars, layer, head, "bars_h1_above_min"));
  const io::CsvTable* spectra = t.find("spectra.csv");
  const std::pair<std::string, std::string> at{"threshold", io::csv_number(0.05)};
  add("fiedler", "Fiedler value (θ 0.05)", cell(spectra, layer, head, "fiedler", at));
  add("centralisation", "centralisation (θ 0.05)",
      cell(spectra, layer, head, "centralisation", at));
  const io::CsvTable* taxonomy = t.find("taxonomy.csv");
  add("class", "head class (Retriever / Mixer / Reset)", cell(taxonomy, layer, head, "label"),
      false);
  const io::CsvTable* values = t.find("value_space.csv");
  add("f", "Fₙ of the top-N keys (value space)", cell(values, layer, head, "f"));
  add("random_f_mean", "Fₙ of random N-subsets (mean)", cell(values, layer, head, "random_f_mean"));
  return out;
}

std::string header_value(const WebPageInputs& in, const std::string& key) {
  for (const auto& [k, v] : in.header)
    if (k == key) return v;
  return {};
}

}  // namespace

json web_page_data(const WebPageInputs& in) {
  if (!in.trace) throw std::invalid_argument("web page: no run");
  const models::Trace& trace = *in.trace;
  const int L = trace.layers(), T = trace.tokens();
  if (static_cast<int>(in.tokens.size()) != T)
    throw std::invalid_argument("web page: " + std::to_string(in.tokens.size()) +
                                " token labels for a run of " + std::to_string(T) + " tokens");
  Tables tables;
  for (const auto& [name, text] : in.tables) tables.byName.emplace_back(name, io::csv_parse(text));
  const auto analysed =
      analyse_trace(trace, head_analysis_params(in.settings, T), {.settings = in.settings});
  const TraceAnalysis& a = *analysed;
  const int H = a.heads;
  // A folder by its name (a cache snapshot's repository and revision), not
  // by where it sits on the machine that wrote the page.
  std::string model = header_value(in, "model");
  std::error_code missing;
  if (!model.empty() && std::filesystem::is_directory(model, missing))
    model = models::model_display_name(model);
  json data = {{"format", "sinkscope-web-page"}, {"version", 1}};
  data["title"] = (model.empty() ? std::string("SinkScope run") : model) +
                  (in.sentence.empty() ? std::string() : ": \"" + in.sentence + "\"");
  data["model"] = {{"name", model.empty() ? std::string("unknown") : model},
                   {"sha256", header_value(in, "model_config_sha256")},
                   {"layers", L},
                   {"heads", H}};
  data["sentence"] = in.sentence;
  data["command"] = header_value(in, "command");
  json parameters = json::array();
  const json settings = settings_json(in.settings);
  for (const auto& [key, value] : settings.items())
    parameters.push_back({key, value.is_string() ? value.get<std::string>() : value.dump()});
  data["parameters"] = parameters;
  data["version_made_by"] = std::string("SinkScope ") + SINKSCOPE_VERSION;
  data["tokens"] = in.tokens;
  data["causal"] = a.causal;
  data["precision"] =
      "attention weights quantised to 1/255 (absolute error at most 0.002); plots' numbers to 5 "
      "significant digits; the summary's numbers as analyze computes them";
  json colormap = json::array(), palette = json::array();
  for (int k = 0; k < 256; ++k) colormap.push_back(rgb(views::colormap_viridis(k / 255.0)));
  for (int k = 0; k < 8; ++k) palette.push_back(rgb(views::colormap_categorical(k)));
  data["colormap"] = colormap;
  data["palette"] = palette;
  data["sink_colour"] = rgb(views::kSinkHighlight);
  data["selected_colour"] = rgb(views::kSelectedHighlight);

  json attention = json::array(), heads = json::array();
  for (int l = 0; l < L; ++l) {
    const models::LayerCapture capture = trace.layer(l);
    for (int h = 0; h < H; ++h) {
      attention.push_back(base64_encode(zlib_deflate(quantised(capture.attentionOf(h)))));
      // Only the panels the page draws per head (the map and head view come
      // from the weights; the overview once).
      ViewSelection place{
          l, h, -1, 0.05, {"key-importance", "persistence", "spectrum", "value-space"}};
      if (l == 0 && h == 0) place.panels.push_back("overview");
      const json views = run_views_json(trace, a, in.tokens, model, place);
      const json& p = views["panels"];
      json head = {{"key_importance", drawn(p["key-importance"][0])},
                   {"diagram", drawn(p["persistence"][0])},
                   {"barcode", drawn(p["persistence"][1])},
                   {"spectrum", drawn(p["spectrum"][0])},
                   {"finding", sink_finding(a, l, h)},
                   {"summary", head_summary(tables, l, h, in.settings)}};
      if (p.contains("value-space")) {
        head["value_space"] = drawn(p["value-space"][0]);
        head["value_curve"] = drawn(p["value-space"][1]);
      }
      if (l == 0 && h == 0) data["overview"] = drawn(p["overview"][0]);
      heads.push_back(base64_encode(zlib_deflate(head.dump())));
    }
  }
  data["attention"] = std::move(attention);
  data["heads"] = std::move(heads);
  return data;
}

std::string web_page_of(const AnalyzeSubject& subject, const std::string& sentence,
                        const std::vector<std::pair<std::string, std::string>>& header,
                        const AnalysisSettings& settings,
                        const std::function<bool(double)>& progress) {
  WebPageInputs page;
  page.trace = subject.trace;
  page.tokens = subject.tokens;
  page.sentence = sentence;
  page.header = header;
  page.settings = settings;
  page.tables = analyze_subject_csv(subject, settings, progress);
  return web_page_html(web_page_data(page));
}

namespace {

// The template with each marker replaced by its text; what was put in is
// never searched again (a sentence may contain a marker's name).
std::string filled(const std::string& page,
                   const std::vector<std::pair<std::string, std::string>>& parts) {
  std::string out;
  std::size_t from = 0;
  for (;;) {
    std::size_t next = std::string::npos;
    const std::pair<std::string, std::string>* part = nullptr;
    for (const auto& p : parts)
      if (const std::size_t at = page.find(p.first, from); at < next) next = at, part = &p;
    if (!part) break;
    out.append(page, from, next - from);
    out += part->second;
    from = next + part->first.size();
  }
  out.append(page, from);
  return out;
}

std::string html_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string web_page_html(const json& data) {
  // "<" inside the JSON as \u003c: no "</script>" or "<!--" in a string ends
  // or changes the script element that holds it.
  std::string text = data.dump();
  std::string safe;
  safe.reserve(text.size());
  for (const char c : text) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe += c;
  }
  return filled(
      kWebPageTemplate,
      {{"@@SINKSCOPE_TITLE@@", html_escaped(data.value("title", std::string("SinkScope run")))},
       {"@@SINKSCOPE_CSS@@", kWebPageStyle},
       {"@@SINKSCOPE_DATA@@", safe},
       {"@@SINKSCOPE_JS@@", kWebPageScript}});
}

}  // namespace sinkscope::document
