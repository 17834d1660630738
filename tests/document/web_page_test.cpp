// The web page's data: base64 and deflate as the browser reads them, every
// head's weights within the stated step of the run's, every head's numbers
// equal to analyze's tables, and no sentence can end the page's script or
// fill in a marker of its template.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <random>

#include "models/capture.h"
#include "models/document/analyze_report.h"
#include "models/document/web_page.h"
#include "models/io/table_io.h"
#include "models/model.h"

using namespace sinkscope;
using nlohmann::json;

namespace {

// Decoders written here, independently of the page's encoders.
std::string base64_decoded(const std::string& text) {
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int bits = 0, value = 0;
  for (const char c : text) {
    if (c == '=') break;
    value = value * 64 + static_cast<int>(digits.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 255);
    }
  }
  return out;
}

std::string inflated(const std::string& bytes, std::size_t size) {
  std::string out(size, '\0');
  uLongf n = static_cast<uLongf>(size);
  EXPECT_EQ(
      uncompress(reinterpret_cast<Bytef*>(out.data()), &n,
                 reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size())),
      Z_OK);
  out.resize(n);
  return out;
}

// A causal capture of 2 layers x 2 heads over 6 tokens with values: softmax
// rows with a heavy first column.
models::Capture small_capture() {
  models::Capture c;
  c.layers = 2, c.heads = 2, c.tokens = 6, c.headDim = 4;
  std::mt19937 random(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h)
      for (int i = 0; i < c.tokens; ++i) {
        std::vector<float> row(c.tokens, 0.0f);
        float sum = 0;
        for (int j = 0; j <= i; ++j) sum += row[j] = (j == 0 ? 4.0f : 1.0f) * (0.2f + u(random));
        for (float& w : row) w /= sum;
        c.attention.insert(c.attention.end(), row.begin(), row.end());
      }
  for (int k = 0; k < c.layers * c.heads * c.tokens * c.headDim; ++k)
    c.values.push_back(u(random) - 0.5f);
  c.tokenText = {"<s>", "The", "cat", "</script><!--", "@@SINKSCOPE_JS@@", "."};
  c.model = "test-model";
  models::capture_check(c, "test");
  return c;
}

}  // namespace

TEST(WebPage, Base64AndDeflateAreWhatTheBrowserReads) {
  // RFC 4648's test vectors.
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) EXPECT_EQ(document::base64_encode(plain), coded);
  std::string bytes;
  for (int k = 0; k < 5000; ++k) bytes += static_cast<char>((k * 37) % 256);
  EXPECT_EQ(base64_decoded(document::base64_encode(bytes)), bytes);
  EXPECT_EQ(inflated(document::zlib_deflate(bytes), bytes.size()), bytes);
}

TEST(WebPage, EveryHeadsWeightsAndNumbersAreTheRunsAndAnalyzes) {
  const models::Capture c = small_capture();
  const models::Trace trace = models::capture_trace(c);
  const document::AnalyzeSubject subject = document::analyze_subject_of(c, trace);
  document::AnalysisSettings settings;
  settings.weightSpectra = false;  // a capture has no weights
  document::WebPageInputs in;
  in.trace = &trace;
  in.tokens = subject.tokens;
  in.sentence = "a </script> sentence with @@SINKSCOPE_DATA@@ in it";
  in.settings = settings;
  in.tables = document::analyze_subject_csv(subject, settings);
  in.header = {{"model", "test-model"}, {"command", "sinkscope-cli analyze --capture x.npz"}};
  const json data = document::web_page_data(in);
  EXPECT_EQ(data["format"], "sinkscope-web-page");
  EXPECT_EQ(data["tokens"].size(), 6u);
  ASSERT_EQ(data["attention"].size(), 4u);
  ASSERT_EQ(data["heads"].size(), 4u);
  const io::CsvTable summary = [&] {
    for (const auto& [name, text] : in.tables)
      if (name == "sink_summary.csv") return io::csv_parse(text);
    return io::CsvTable{};
  }();
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      const std::size_t k = static_cast<std::size_t>(l * 2 + h);
      // Row i holds keys 0..i, each within half a step of the run's weight.
      const std::string bytes = inflated(base64_decoded(data["attention"][k]), 21);
      ASSERT_EQ(bytes.size(), 21u);
      std::size_t at = 0;
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j, ++at) {
          const double w = c.attention[((k * 6) + static_cast<std::size_t>(i)) * 6 +
                                       static_cast<std::size_t>(j)];
          const double q = static_cast<unsigned char>(bytes[at]) * document::kWebPageWeightStep;
          EXPECT_LE(std::abs(q - w), document::kWebPageWeightStep / 2 + 1e-9) << l << h << i << j;
        }
      const json head = json::parse(inflated(base64_decoded(data["heads"][k]), 1 << 22));
      for (const char* view :
           {"key_importance", "diagram", "barcode", "spectrum", "value_space", "value_curve"})
        EXPECT_TRUE(head.contains(view)) << view;
      EXPECT_FALSE(head["key_importance"].contains("numbers"));
      // α₀ is analyze's, to the last digit.
      bool found = false;
      for (const json& entry : head["summary"])
        if (entry["key"] == "alpha0") {
          found = true;
          for (const auto& row : summary.rows)
            if (row[0] == std::to_string(l) && row[1] == std::to_string(h)) {
              EXPECT_EQ(entry["value"].get<double>(), std::strtod(row[5].c_str(), nullptr));
            }
        }
      EXPECT_TRUE(found);
      EXPECT_FALSE(head["finding"].get<std::string>().empty());
    }

  // The page: markers filled once, the data's "<" escaped, nothing left of the template.
  const std::string page = document::web_page_html(data);
  EXPECT_EQ(page.find("@@SINKSCOPE_CSS@@"), std::string::npos);
  EXPECT_EQ(page.find("@@SINKSCOPE_TITLE@@"), std::string::npos);
  const std::size_t start = page.find("id=\"sinkscope-data\"");
  ASSERT_NE(start, std::string::npos);
  const std::size_t end = page.find("</script>", start);
  const std::string script = page.substr(start, end - start);
  EXPECT_EQ(script.find('<'), std::string::npos) << "a '<' in the data could end its element";
  EXPECT_NE(script.find("@@SINKSCOPE_JS@@"), std::string::npos) << "the token kept as text";
  EXPECT_NE(page.find("a \\u003c/script> sentence with @@SINKSCOPE_DATA@@"), std::string::npos);
  for (const char* fetch : {"src=\"http", "href=\"http", "url(http", "@import", "fetch("})
    EXPECT_EQ(page.find(fetch), std::string::npos) << "nothing from the network: " << fetch;
}
