#pragma once
// The web page's template, style and script (resources/web/), built into the
// program: a page is written with no files beside the executable.
namespace sinkscope::document {

extern const char* const kWebPageTemplate;  // page.html
extern const char* const kWebPageStyle;     // viewer.css
extern const char* const kWebPageScript;    // viewer.js

}  // namespace sinkscope::document
