#pragma once
// The views of a merged corpus study (sinkscope-cli study merge): the
// layers x heads grid of a pooled number, a layer profile with its 95%
// intervals, and the head classes per layer. The study panel draws them and
// exports them; no widget builds a number of its own.
#include <string>
#include <vector>

#include "models/document/study_tables.h"
#include "models/views/heat_map.h"
#include "models/views/line_plot.h"

namespace sinkscope::document {

// The pooled numbers the grid can show, in the chooser's order.
enum class StudyGrid { SampleShare, SinkVotes, CurrentVotes, HeadClass };
// Their names, as the chooser lists them.
const std::vector<std::string>& study_grid_names();
// The grid of `what`, the head at (layer, head) framed and named in the title.
views::HeatMap study_grid(const StudyTables& study, StudyGrid what, int layer, int head);

// A layer profile the study holds: its label, axis and the metrics (profile
// file names) it plots, each one series; `reference` is drawn as a baseline
// (a metric, "uniform" or "one").
struct StudyProfile {
  std::string label;
  std::string yLabel;
  std::vector<std::string> metrics;
  std::string reference;
};
// The profiles `study` has every metric of, in the chooser's order.
std::vector<StudyProfile> study_profiles(const StudyTables& study);
// Profile `index` of study_profiles (out of range: an empty plot saying so).
views::LinePlot study_profile_plot(const StudyTables& study, int index);
// How many heads of each class (Retriever, Mixer, Reset) every layer has.
views::LinePlot study_head_classes_plot(const StudyTables& study);

// "0.42 [0.40, 0.44]": a value with its interval when it has one.
std::string with_interval(const Interval& i, int decimals = 2, double scale = 1.0);

}  // namespace sinkscope::document
