#include "analysis/token_alignment.h"

#include <cctype>
#include <map>

namespace sinkscope::analysis {

namespace {

// The text a display string stands for: markers back to the characters and
// bytes they show.
std::string undisplay(const std::string& d) {
  static const std::pair<const char*, const char*> kMarkers[] = {
      {"\u2423", " "}, {"\u21b5", "\n"}, {"\u21e5", "\t"}, {"\u2581", " "}, {"\u0120", " "}};
  std::string out;
  for (std::size_t i = 0; i < d.size();) {
    bool replaced = false;
    for (const auto& [marker, text] : kMarkers) {
      const std::string m(marker);
      if (d.compare(i, m.size(), m) == 0) {
        out += text;
        i += m.size();
        replaced = true;
        break;
      }
    }
    if (replaced) continue;
    // "<0xNN>": one byte.
    if (d.compare(i, 3, "<0x") == 0 && i + 6 <= d.size() && d[i + 5] == '>' &&
        std::isxdigit(static_cast<unsigned char>(d[i + 3])) && std::isxdigit(static_cast<unsigned char>(d[i + 4]))) {
      out += static_cast<char>(std::stoi(d.substr(i + 3, 2), nullptr, 16));
      i += 6;
      continue;
    }
    out += d[i++];
  }
  return out;
}

bool space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

bool same_ignoring_ascii_case(const std::string& text, std::size_t at, const std::string& piece) {
  if (at + piece.size() > text.size()) return false;
  for (std::size_t k = 0; k < piece.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(text[at + k])) != std::tolower(static_cast<unsigned char>(piece[k])))
      return false;
  return true;
}

}  // namespace

std::vector<TokenSpan> token_spans(const std::string& text, const std::vector<std::string>& display,
                                   const std::vector<bool>& special) {
  std::vector<TokenSpan> spans(display.size(), {-1, -1});
  std::size_t pos = 0;
  for (std::size_t i = 0; i < display.size(); ++i) {
    if (i < special.size() && special[i]) continue;
    std::string piece = undisplay(display[i]);
    if (piece.rfind("##", 0) == 0 && piece.size() > 2) piece = piece.substr(2);
    std::size_t lead = 0;
    while (lead < piece.size() && space(piece[lead])) ++lead;
    const std::string core = piece.substr(lead);
    if (core.empty()) continue;  // white space alone covers no word characters
    std::size_t at = pos;
    while (at < text.size() && space(text[at])) ++at;
    if (!same_ignoring_ascii_case(text, at, core)) {
      // A token the text does not show here (a normaliser changed it): look a
      // little further before giving it up, without losing our place.
      bool found = false;
      for (std::size_t k = at + 1; k < text.size() && k <= at + 16 && !found; ++k)
        if (same_ignoring_ascii_case(text, k, core)) at = k, found = true;
      if (!found) continue;
    }
    spans[i] = {static_cast<int>(at), static_cast<int>(at + core.size())};
    pos = at + core.size();
  }
  return spans;
}

std::vector<int> token_alignment(const std::vector<TokenSpan>& a, const std::vector<TokenSpan>& b) {
  std::map<TokenSpan, int> inB;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (b[j].first >= 0) inB.emplace(b[j], static_cast<int>(j));
  std::vector<int> out(a.size(), -1);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].first >= 0)
      if (const auto it = inB.find(a[i]); it != inB.end()) out[i] = it->second;
  return out;
}

}  // namespace sinkscope::analysis
