#include "support/numeric_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace sinkscope::testing {

namespace {

struct Piece {
  bool number = false;
  std::string text;
  double value = 0.0;
};

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Where a number starts: a digit, or a sign or point right before one.
bool number_starts(const std::string& s, std::size_t i) {
  if (digit(s[i])) return true;
  if (s[i] != '-' && s[i] != '+' && s[i] != '.') return false;
  if (i + 1 < s.size() && digit(s[i + 1])) return true;
  return s[i] != '.' && i + 2 < s.size() && s[i + 1] == '.' && digit(s[i + 2]);
}

// A line as text and numbers, alternating (text first, possibly empty).
std::vector<Piece> pieces(const std::string& line) {
  std::vector<Piece> out(1);
  std::size_t i = 0;
  while (i < line.size()) {
    if (!number_starts(line, i)) {
      out.back().text += line[i++];
      continue;
    }
    const char* begin = line.c_str() + i;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    // strtod reads "1e5", "0x1.8p+3" and "-.5"; it never reads text as a number
    // here, since a number starts with a digit, a sign or a point.
    const auto length = static_cast<std::size_t>(end - begin);
    if (length == 0) {
      out.back().text += line[i++];
      continue;
    }
    out.push_back({true, line.substr(i, length), v});
    out.push_back({});
    i += length;
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (!text.empty() && text.back() != '\n') lines.push_back("(no end of line)");
  return lines;
}

bool finite_whole(double v) { return std::isfinite(v) && v == std::nearbyint(v); }

std::string where(std::size_t line, const std::string& what, const std::string& expected,
                  const std::string& got) {
  return "line " + std::to_string(line + 1) + ": " + what + "\n  expected: " + expected +
         "\n  got:      " + got;
}

}  // namespace

NumericTextComparison compare_numeric_text(const std::string& expected, const std::string& got,
                                           NumericTolerance tolerance) {
  NumericTextComparison r;
  const std::vector<std::string> a = lines_of(expected), b = lines_of(got);
  for (std::size_t line = 0; line < std::max(a.size(), b.size()); ++line) {
    if (line >= a.size() || line >= b.size()) {
      r.difference = where(line, "one text has more lines", line < a.size() ? a[line] : "(end)",
                           line < b.size() ? b[line] : "(end)");
      return r;
    }
    if (a[line] == b[line]) continue;
    const std::vector<Piece> pa = pieces(a[line]), pb = pieces(b[line]);
    if (pa.size() != pb.size()) {
      r.difference = where(line, "not the same count of numbers", a[line], b[line]);
      return r;
    }
    for (std::size_t k = 0; k < pa.size(); ++k) {
      const Piece &x = pa[k], &y = pb[k];
      if (!x.number) {
        if (x.text != y.text) {
          r.difference =
              where(line, "text \"" + x.text + "\" became \"" + y.text + "\"", a[line], b[line]);
          return r;
        }
        continue;
      }
      if (x.text == y.text || x.value == y.value) continue;
      if (finite_whole(x.value) && finite_whole(y.value)) {
        r.difference =
            where(line, "whole number " + x.text + " became " + y.text, a[line], b[line]);
        return r;
      }
      const double diff = std::abs(x.value - y.value);
      const double scale = std::max(std::abs(x.value), std::abs(y.value));
      if (!(diff <= tolerance.absolute + tolerance.relative * scale)) {
        r.difference =
            where(line, x.text + " became " + y.text + " (beyond the tolerance)", a[line], b[line]);
        return r;
      }
      ++r.inexactNumbers;
      r.largestAbsolute = std::max(r.largestAbsolute, diff);
      if (scale > 0) r.largestRelative = std::max(r.largestRelative, diff / scale);
    }
  }
  return r;
}

}  // namespace sinkscope::testing
