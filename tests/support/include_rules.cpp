#include "support/include_rules.h"

#include <regex>
#include <sstream>

namespace sinkscope::test {

namespace {
enum class Kind { Qt, Torch, Vtk, Models, ModelsInternal, Document, Io, Views, Render, Ui };

const std::regex kInclude(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");

bool is_kind(const std::string& header, Kind kind) {
  static const std::regex qt(R"(^(Qt\w*/.*|Q[A-Z]\w*|q\w+\.h|qcustomplot.*)$)");
  static const std::regex torch(R"(^(torch|ATen|c10|caffe2)/.*)");
  static const std::regex vtk(R"(^vtk\w*(\.h)?$)");
  switch (kind) {
    case Kind::Qt:
      return std::regex_match(header, qt);
    case Kind::Torch:
      return std::regex_match(header, torch);
    case Kind::Vtk:
      return std::regex_match(header, vtk);
    case Kind::Models:  // models/io/ and models/views/ are rooms of their own
      return header.rfind("models/", 0) == 0 && header.rfind("models/io/", 0) != 0 &&
             header.rfind("models/views/", 0) != 0;
    case Kind::Io:
      return header.rfind("models/io/", 0) == 0;
    case Kind::Views:
      return header.rfind("models/views/", 0) == 0;
    case Kind::ModelsInternal:
      return header.rfind("models/internal/", 0) == 0;
    case Kind::Document:
      return header.rfind("models/document/", 0) == 0;
    case Kind::Render:
      return header.rfind("render/", 0) == 0;
    case Kind::Ui:
      return header.rfind("ui/", 0) == 0;
  }
  return false;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Qt:
      return "a Qt header";
    case Kind::Torch:
      return "a torch header";
    case Kind::Vtk:
      return "a VTK header";
    case Kind::Models:
      return "a models/ header";
    case Kind::ModelsInternal:
      return "an internal models/ header";
    case Kind::Document:
      return "a document-layer header";
    case Kind::Io:
      return "a models/io/ header";
    case Kind::Views:
      return "a models/views/ header";
    case Kind::Render:
      return "a render/ header";
    case Kind::Ui:
      return "a ui/ header";
  }
  return "?";
}

std::vector<Kind> forbidden_for(const std::string& path) {
  const bool header = path.size() > 2 && path.compare(path.size() - 2, 2, ".h") == 0;
  auto in = [&](const char* room) { return path.rfind(room, 0) == 0; };
  if (in("analysis/"))
    return {Kind::Qt, Kind::Torch, Kind::Vtk,    Kind::Models, Kind::ModelsInternal,
            Kind::Io, Kind::Views, Kind::Render, Kind::Ui};
  // The files SinkScope writes (tables, NPZ, caches): plain C++ on analysis/
  // alone, so that render/ may write its CSV through them too.
  if (in("models/io/"))
    return {Kind::Qt,       Kind::Torch, Kind::Vtk,    Kind::Models, Kind::ModelsInternal,
            Kind::Document, Kind::Views, Kind::Render, Kind::Ui};
  // What a view draws, as plain data (series, axes, colours, the numbers):
  // built by the document layer, read by render/, the writers and Python.
  if (in("models/views/"))
    return {Kind::Qt,     Kind::Torch, Kind::Vtk, Kind::Models, Kind::ModelsInternal,
            Kind::Render, Kind::Ui};
  // The document layer stands on the public models/ API: no torch at all.
  if (in("models/document/"))
    return {Kind::Qt, Kind::Torch, Kind::Vtk, Kind::ModelsInternal, Kind::Render, Kind::Ui};
  if (in("models/")) {
    // The layers below the document layer never reach up into it.
    std::vector<Kind> k{Kind::Qt, Kind::Vtk, Kind::Render, Kind::Ui, Kind::Document};
    // Public headers stay torch-free; models/internal/ holds the torch-facing
    // headers that only models/ itself includes.
    if (header && !in("models/internal/")) k.push_back(Kind::Torch);
    return k;
  }
  if (in("render/")) return {Kind::Torch, Kind::Ui, Kind::Models, Kind::ModelsInternal};
  return {Kind::Torch, Kind::ModelsInternal};  // ui/, app/, tests/ and everything else
}
}  // namespace

std::vector<std::string> include_violations(const std::string& path, const std::string& content) {
  std::vector<std::string> out;
  const std::vector<Kind> forbidden = forbidden_for(path);
  std::istringstream lines(content);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::smatch m;
    if (!std::regex_search(line, m, kInclude)) continue;
    const std::string header = m[1];
    for (Kind k : forbidden)
      if (is_kind(header, k))
        out.push_back(path + ":" + std::to_string(number) + ": includes " + kind_name(k) + " <" +
                      header + ">");
  }
  return out;
}

}  // namespace sinkscope::test
