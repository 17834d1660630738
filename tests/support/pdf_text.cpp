#include "support/pdf_text.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "support/shell_run.h"

PdfText pdf_text(const std::string& pdf, int page) {
  PdfText t;
  const std::string err = pdf + ".pdftotext-err";
  const std::string pages =
      page > 0 ? " -f " + std::to_string(page) + " -l " + std::to_string(page) : std::string();
  const CliRun run = shell("pdftotext -bbox" + pages + " '" + pdf + "' - 2>'" + err + "'");
  if (run.exit != 0) return t;
  t.readable = true;
  t.complaints = read_text(err);
  std::remove(err.c_str());
  const std::regex pageSize(R"re(<page width="([0-9.]+)" height="([0-9.]+)")re");
  const std::regex word(
      R"re(<word xMin="([-0-9.]+)" yMin="([-0-9.]+)" xMax="([-0-9.]+)" yMax="([-0-9.]+)">([^<]*)</word>)re");
  std::smatch m;
  if (std::regex_search(run.out, m, pageSize))
    t.width = std::stod(m[1]), t.height = std::stod(m[2]);
  for (auto it = std::sregex_iterator(run.out.begin(), run.out.end(), word); it != std::sregex_iterator(); ++it) {
    const auto& w = *it;
    const double x0 = std::stod(w[1]), y0 = std::stod(w[2]), x1 = std::stod(w[3]), y1 = std::stod(w[4]);
    t.words.push_back({w[5], QRectF(x0, y0, x1 - x0, y1 - y0)});
  }
  return t;
}

std::vector<std::string> pdf_text_problems(const PdfText& t, double fontPt,
                                           const std::string& exempt, double smallestPt) {
  std::vector<std::string> out;
  auto say = [&](const PdfWord& w, const std::string& what) {
    std::ostringstream s;
    s << "\"" << w.text << "\" at (" << w.box.x() << ", " << w.box.y() << ", " << w.box.width() << " x "
      << w.box.height() << "): " << what;
    out.push_back(s.str());
  };
  const double line = 1.164 * fontPt, slack = 0.45;
  const double smallest = 1.164 * (smallestPt > 0 ? smallestPt : fontPt);
  // A word's line is its height, or its width when it is drawn turned.
  auto sized = [&](double side) { return side >= smallest - slack && side <= line + slack; };
  const std::regex skip(exempt.empty() ? std::string("$^") : exempt);
  for (std::size_t i = 0; i < t.words.size(); ++i) {
    const PdfWord& w = t.words[i];
    const QRectF b = w.box;
    if (b.left() < -0.5 || b.top() < -0.5 || b.right() > t.width + 0.5 || b.bottom() > t.height + 0.5)
      say(w, "outside the page");
    if (!std::regex_match(w.text, skip) && !sized(b.height()) && !sized(b.width()))
      say(w, "not " + std::to_string(fontPt).substr(0, 4) + " pt");
    for (std::size_t j = i + 1; j < t.words.size(); ++j) {
      const QRectF overlap = b.intersected(t.words[j].box);
      // Boxes include the font's whole line: neighbouring lines may touch.
      if (overlap.width() > 1.0 && overlap.height() > 1.5)
        say(w, "overlaps \"" + t.words[j].text + "\"");
    }
  }
  if (t.complaints.find("Error") != std::string::npos || t.complaints.find("Syntax") != std::string::npos)
    out.push_back("poppler: " + t.complaints.substr(0, 300));
  return out;
}
