#pragma once
// The text of an exported PDF as poppler reads it (`pdftotext -bbox`, an
// independent reader): each word's box, and what is wrong with the figure's
// text: a word outside the page, at another size than the figure's text, or
// on another word; poppler's complaints about the file itself.
#include <QRectF>
#include <string>
#include <vector>

struct PdfWord {
  std::string text;
  QRectF box;  // in points, y down
};

struct PdfText {
  bool readable = false;  // pdftotext ran
  double width = 0, height = 0;
  std::vector<PdfWord> words;
  std::string complaints;  // what pdftotext wrote to stderr
};

// `page` (from 1): that page only; 0: every page's words (one page's figures).
PdfText pdf_text(const std::string& pdf, int page = 0);

// Every problem of `t` as a line: outside the page, a size other than
// `fontPt` (a DejaVu Sans line is 1.164 em; rotated words by their width),
// overlapping words. Words matching `exempt` (a regex, e.g. the bold
// sub-figure letters) are not size-checked.
// `smallestPt`: words may be smaller down to it (token labels shrink to fit
// their cells before any is left out); 0: every word at `fontPt`.
std::vector<std::string> pdf_text_problems(const PdfText& t, double fontPt,
                                           const std::string& exempt = "", double smallestPt = 0);
