#pragma once
// Pieces the analyze reports share (analyze_report.cpp, corpus_pool.cpp):
// number formatting, the --json document, the sink-set parameters and their
// header wording.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/sinks.h"
#include "analysis/table_io.h"
#include "app/analyze_report.h"

namespace sinkscope::app::report {

std::string num(double v);
// Not-applicable or undefined quantities (NaN) are written as empty fields.
std::string opt(double v);

// The whole output as one JSON document (schema 1): typed parameters, the
// header's readings, and every table of the CSVs.
nlohmann::json output_json(
    const std::string& command, const AnalyzeParams& p,
    const std::vector<std::pair<std::string, std::string>>& header,
    const std::vector<std::pair<std::string, const analysis::CsvTable*>>& tables);

// Every parameter of an analysis, typed: --json's "params", and one header
// line of every pooled table (with the batch and the bootstrap settings).
nlohmann::json params_json(const AnalyzeParams& p);

analysis::SinkSetParams sink_params(const AnalyzeParams& p);
// The sink-set reading, as every header states it.
std::string sink_set_description(const AnalyzeParams& p);

}  // namespace sinkscope::app::report
