#pragma once
// The dependency rules of shared/spec/architecture.md, as a checker over one
// source file's text: analysis/ uses no Qt, torch or VTK; models/ no Qt or VTK,
// and its headers no torch; nothing outside models/ includes torch; lower rooms
// never include higher ones.
#include <string>
#include <vector>

namespace sinkscope::test {

// `path` is relative to the source root, e.g. "analysis/sink_metric.cpp".
// Returns one message per offending #include line ("path:line: ...").
std::vector<std::string> include_violations(const std::string& path, const std::string& content);

}  // namespace sinkscope::test
