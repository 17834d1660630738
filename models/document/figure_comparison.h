#pragma once
// Several models' figure sets side by side, as the seed papers compare
// models: each kind's plots one panel per model on one y range (where each
// panel stays readable on it), its tables
// joined with a first column naming the model, and the sink rate of every
// model as one plot (Barbero et al. across context lengths and BOS packings,
// when the models are those checkpoints). Pure numbers: app/ draws them.
#include <string>
#include <vector>

#include "models/document/figure_set_data.h"

namespace sinkscope::document {

struct ModelSet {
  std::string label;  // the model's name in figures, tables and the folder of its own set
  std::vector<SetFigure> figures;
};

struct ComparedKind {
  std::string file, paperFigure;
  std::string title;                    // what the kind shows (its title before any " | " note)
  std::vector<std::string> notes;       // each panel's own note (its title after " | "; "" none)
  std::vector<std::string> labels;      // the models whose set has it, in the order given
  std::vector<std::string> without;     // those whose set lacks it
  std::vector<views::LinePlot> panels;  // one per model (titled by its label); none: a table
  bool sharedY = false;                 // the panels share one y range (else ranges differ tenfold)
  io::CsvTable table;                   // every model's rows after a first column "model"
};

// Every kind at least one set has, in the papers' order. The sink_rate
// table also gets its plot: one point per model with its 95% interval.
std::vector<ComparedKind> compare_sets(const std::vector<ModelSet>& sets);

// The models' labels: `given` (one per model) or each name's last path part,
// made unique by a suffix (-2, -3, ...). Throws std::invalid_argument naming
// a label that cannot name a folder or repeats, or a count that differs.
std::vector<std::string> model_labels(const std::vector<std::string>& names,
                                      const std::vector<std::string>& given);

}  // namespace sinkscope::document
