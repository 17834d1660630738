#include "support/golden_compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace sinkscope::testing {

namespace {

using json = nlohmann::json;

// A whole cell or string read as a number: decimal or a C99 hexadecimal float
// (study files keep doubles so). Text such as "nan", "inf" or a token is not.
bool as_number(const std::string& s, double& value) {
  if (s.empty()) return false;
  const char c = s[0];
  if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != '+' && c != '.')
    return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(value);
}

bool is_whole(double v) { return v == std::nearbyint(v); }

class Comparer {
 public:
  explicit Comparer(const GoldenRules& rules) : rules_(rules) {}

  bool failed() const { return !result_.difference.empty(); }
  GoldenComparison result() const { return result_; }

  void fail(const std::string& where, const std::string& what) {
    if (!failed()) result_.difference = where + ": " + what;
  }

  // Two numbers; `random`: they belong to a random-baseline column or row.
  void numbers(double a, double b, bool random, const std::string& where, const std::string& shownA,
               const std::string& shownB) {
    if (a == b) return;
    if (is_whole(a) && is_whole(b)) {
      fail(where, "whole number " + shownA + " became " + shownB);
      return;
    }
    const double diff = std::abs(a - b), scale = std::max(std::abs(a), std::abs(b));
    const auto within = [&](const NumericTolerance& t) {
      return diff <= t.absolute + t.relative * scale;
    };
    if (!within(rules_.numbers)) {
      if (!random || !within(rules_.randomBaseline)) {
        fail(where, shownA + " became " + shownB + " (beyond the tolerance)");
        return;
      }
      ++result_.randomBaselineMoves;
    }
    ++result_.inexactNumbers;
    result_.largestAbsolute = std::max(result_.largestAbsolute, diff);
    if (scale > 0) result_.largestRelative = std::max(result_.largestRelative, diff / scale);
  }

  // Two cells or strings: numbers when both read as one, else text.
  void cells(const std::string& a, const std::string& b, bool random, const std::string& where) {
    if (a == b) return;
    double x = 0.0, y = 0.0;
    if (as_number(a, x) && as_number(b, y)) {
      numbers(x, y, random, where, a, b);
      return;
    }
    fail(where, "\"" + a + "\" became \"" + b + "\"");
  }

  const GoldenRules& rules() const { return rules_; }

  // Numbers a text comparison found within the tolerance.
  void count(const NumericTextComparison& t) {
    result_.inexactNumbers += t.inexactNumbers;
    result_.largestRelative = std::max(result_.largestRelative, t.largestRelative);
    result_.largestAbsolute = std::max(result_.largestAbsolute, t.largestAbsolute);
  }

  bool random_name(const std::string& name) const {
    return rules_.randomBaselineNames.count(name) > 0;
  }

  // JSON values; `random` carries down from a random-baseline key.
  void values(const json& a, const json& b, bool random, const std::string& where) {
    if (failed()) return;
    if (a.is_number() && b.is_number()) {
      numbers(a.get<double>(), b.get<double>(), random, where, a.dump(), b.dump());
      return;
    }
    if (a.type() != b.type()) {
      fail(where, a.dump() + " became " + b.dump());
      return;
    }
    if (a.is_string()) {
      cells(a.get<std::string>(), b.get<std::string>(), random, where);
    } else if (a.is_array()) {
      if (a.size() != b.size())
        return fail(where,
                    "array of " + std::to_string(a.size()) + " became " + std::to_string(b.size()));
      for (std::size_t k = 0; k < a.size() && !failed(); ++k)
        values(a[k], b[k], random, where + "[" + std::to_string(k) + "]");
    } else if (a.is_object()) {
      for (auto it = a.begin(); it != a.end(); ++it)
        if (!b.contains(it.key())) return fail(where, "key \"" + it.key() + "\" is missing");
      for (auto it = b.begin(); it != b.end(); ++it)
        if (!a.contains(it.key())) return fail(where, "key \"" + it.key() + "\" is new");
      if (a.contains("columns") && a.contains("rows") && a["columns"].is_array() &&
          a["rows"].is_array()) {
        table(a, b, where);
        return;
      }
      for (auto it = a.begin(); it != a.end() && !failed(); ++it)
        values(it.value(), b[it.key()], random || random_name(it.key()), where + "." + it.key());
    } else if (a != b) {
      fail(where, a.dump() + " became " + b.dump());
    }
  }

  // A table kept as {"columns": [...], "rows": [[...], ...]}: each cell
  // judged by its column's name and its row's labels.
  void table(const json& a, const json& b, const std::string& where) {
    values(a["columns"], b["columns"], false, where + ".columns");
    for (auto it = a.begin(); it != a.end() && !failed(); ++it)
      if (it.key() != "columns" && it.key() != "rows")
        values(it.value(), b[it.key()], false, where + "." + it.key());
    const json &ra = a["rows"], &rb = b["rows"];
    if (failed()) return;
    if (ra.size() != rb.size())
      return fail(where,
                  "rows: " + std::to_string(ra.size()) + " became " + std::to_string(rb.size()));
    std::vector<std::string> names;
    for (const json& c : a["columns"])
      names.push_back(c.is_string() ? c.get<std::string>() : c.dump());
    for (std::size_t r = 0; r < ra.size() && !failed(); ++r) {
      const std::string at = where + ".rows[" + std::to_string(r) + "]";
      if (!ra[r].is_array() || !rb[r].is_array() || ra[r].size() != rb[r].size()) {
        values(ra[r], rb[r], false, at);
        continue;
      }
      bool labelled = false;
      for (const json& cell : ra[r])
        labelled = labelled || (cell.is_string() && random_name(cell.get<std::string>()));
      for (std::size_t k = 0; k < ra[r].size() && !failed(); ++k) {
        const std::string column = k < names.size() ? names[k] : std::to_string(k);
        values(ra[r][k], rb[r][k], labelled || random_name(column), at + "." + column);
      }
    }
  }

 private:
  const GoldenRules& rules_;
  GoldenComparison result_;
};

// RFC 4180 records (quoted cells may hold commas, quotes as "" and line breaks).
std::vector<std::vector<std::string>> csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n') {
      record.push_back(std::move(cell));
      cell.clear();
      records.push_back(std::move(record));
      record.clear();
      any = false;
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (any) {
    record.push_back(std::move(cell));
    records.push_back(std::move(record));
  }
  return records;
}

// The '#' lines at the top, and the rest.
void split_header(const std::string& text, std::string& header, std::string& body) {
  std::size_t at = 0;
  while (at < text.size() && text[at] == '#') {
    const std::size_t end = text.find('\n', at);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  header = text.substr(0, at);
  body = text.substr(at);
}

void compare_csv(Comparer& c, const std::string& expected, const std::string& got) {
  std::string ha, hb, ba, bb;
  split_header(expected, ha, ba);
  split_header(got, hb, bb);
  // Headers state parameters (exact) and a few measured numbers (a run's NLL):
  // text with numbers.
  if (ha != hb) {
    const NumericTextComparison lines = compare_numeric_text(ha, hb, c.rules().numbers);
    if (!lines.difference.empty()) return c.fail("header", lines.difference);
    c.count(lines);
  }
  const auto ra = csv_records(ba), rb = csv_records(bb);
  if (ra.size() != rb.size())
    return c.fail("rows", std::to_string(ra.size()) + " became " + std::to_string(rb.size()));
  if (ra.empty()) return;
  const std::vector<std::string>& names = ra.front();
  if (names != rb.front()) return c.fail("column names", "differ");
  for (std::size_t r = 1; r < ra.size() && !c.failed(); ++r) {
    const std::string row = "data row " + std::to_string(r);
    if (ra[r].size() != rb[r].size()) return c.fail(row, "cell count differs");
    bool labelled = false;
    double ignored = 0.0;
    for (const std::string& cell : ra[r])
      labelled = labelled || (!as_number(cell, ignored) && c.random_name(cell));
    for (std::size_t k = 0; k < ra[r].size() && !c.failed(); ++k) {
      const std::string column = k < names.size() ? names[k] : std::to_string(k);
      c.cells(ra[r][k], rb[r][k], labelled || c.random_name(column), row + ", column " + column);
    }
  }
}

json parse_or_fail(Comparer& c, const std::string& text, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    c.fail(where, std::string("not JSON: ") + e.what());
    return {};
  }
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

GoldenComparison compare_golden_file(const std::string& name, const std::string& expected,
                                     const std::string& got, const GoldenRules& rules) {
  Comparer c(rules);
  if (expected == got) return c.result();
  // The layout first (the text between numbers, the count of numbers, whole
  // numbers), whatever the tolerances: key order, quoting and line breaks
  // are part of a format that scripts read.
  const double any = std::numeric_limits<double>::infinity();
  if (const auto layout = compare_numeric_text(expected, got, {any, any});
      !layout.difference.empty()) {
    c.fail("layout", layout.difference);
    return c.result();
  }
  if (ends_with(name, ".csv")) {
    compare_csv(c, expected, got);
  } else if (ends_with(name, ".jsonl")) {
    std::istringstream a(expected), b(got);
    std::string la, lb;
    for (int line = 1; !c.failed(); ++line) {
      const bool moreA = static_cast<bool>(std::getline(a, la)),
                 moreB = static_cast<bool>(std::getline(b, lb));
      if (!moreA && !moreB) break;
      const std::string where = "line " + std::to_string(line);
      if (moreA != moreB) {
        c.fail(where, "one file has more lines");
        break;
      }
      const json ja = parse_or_fail(c, la, where + " (golden)"), jb = parse_or_fail(c, lb, where);
      if (!c.failed()) c.values(ja, jb, false, where);
    }
  } else if (ends_with(name, ".json")) {
    const json ja = parse_or_fail(c, expected, "golden"), jb = parse_or_fail(c, got, "output");
    if (!c.failed()) c.values(ja, jb, false, "$");
  } else {
    const NumericTextComparison t = compare_numeric_text(expected, got, rules.numbers);
    GoldenComparison r;
    r.difference = t.difference;
    r.inexactNumbers = t.inexactNumbers;
    r.largestRelative = t.largestRelative;
    r.largestAbsolute = t.largestAbsolute;
    return r;
  }
  return c.result();
}

}  // namespace sinkscope::testing
