#pragma once
// Pieces the analyze reports share (analyze_report.cpp, corpus_pool.cpp):
// number formatting, the --json document, the sink-set parameters and their
// header wording.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/sinks.h"
#include "models/io/table_io.h"
#include "models/document/analyze_report.h"

namespace sinkscope::document::report {

std::string num(double v);
// Not-applicable or undefined quantities (NaN) are written as empty fields.
std::string opt(double v);

// The whole output as one JSON document (schema 1): typed parameters, the
// header's readings, and every table of the CSVs.
nlohmann::json output_json(
    const std::string& command, const document::AnalysisSettings& p,
    const std::vector<std::pair<std::string, std::string>>& header,
    const std::vector<std::pair<std::string, const io::CsvTable*>>& tables);

}  // namespace sinkscope::document::report
