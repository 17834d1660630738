#pragma once
// The numbers of a figure set: for a sentence file, the
// figure kinds the seed papers show, pooled over the sentences, each with the
// table behind it:
//  - key importance alpha_k by position, per layer, with the uniform baseline (003, Gu et al.);
//  - Betti curves beta_0 and beta_1 per layer, and the reference frame with its evidence (000);
//  - F_N against N per layer with the random-subset baseline (004);
//  - the head classes' shares per layer (004, Retriever / Mixer / Reset);
//  - the sparsification curves, dNLL against the share of heads kept (004);
//  - the NLL change of removing the BOS token, per sentence (003).
// Pure numbers (no Qt): app/figure_set.cpp draws them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/document/analyze_report.h"
#include "models/document/corpus_pool.h"
#include "models/experiments.h"
#include "models/io/table_io.h"
#include "models/loaded_model.h"
#include "models/views/line_plot.h"

namespace sinkscope::document {

// One figure of a set: its file name, what it draws and every number it
// draws (and the layers it leaves out).
struct SetFigure {
  std::string file;         // the name without suffix: key_importance_by_layer
  std::string paperFigure;  // the seed paper's figure it redraws: "Mudarisov et al., Fig. 2"
  views::LinePlot plot;
  io::CsvTable table;
};

struct FigureSetParams {
  document::AnalysisSettings analysis;  // sink set, distances, value space, ... (corpus mode)
  int shownLayers = 8;                  // curves per plot: this many layers, evenly spread
  // Curves over positions (alpha_k, F_N) are drawn where at least this share
  // of the sentences reach (the tables keep every position with its count).
  double shownPositionShare = 0.25;
  int sparsificationSentences = 2;  // sentences whose head ablation feeds the sparsification curves
  models::Sparsification sparsification;
};

// The figures of `sentences` on `model`. `done(k)` hears after each block of
// sentences how many are analysed. Throws models::ModelRunError (a sentence
// that cannot run, named) or std::invalid_argument (no sentences).
std::vector<SetFigure> figure_set(const models::LoadedModel& model,
                                  const std::vector<std::string>& sentences,
                                  const FigureSetParams& params,
                                  const std::function<void(std::size_t)>& done = {});

// The figures that need no model, from records made with document::AnalysisSettings::curves
// (the BOS figure when they were made with ::functional too): a sentence
// file's or a finished corpus study's. Throws std::invalid_argument when a
// record has no curves.
std::vector<SetFigure> figure_set_of_records(const std::vector<SentenceRecord>& records, int layers,
                                             int heads, bool encoder,
                                             const document::AnalysisSettings& p,
                                             const FigureSetParams& params);
// What head ablation of the first params.sparsificationSentences sentences
// gives: the sparsification curves (their dNLL averaged) and the correlations
// across heads between each head diagnostic and the dNLL of ablating the head
// alone (each averaged over the sentences), with 95% intervals over resampled heads.
std::vector<SetFigure> ablation_figures(const models::LoadedModel& model,
                                        const std::vector<std::string>& sentences,
                                        const FigureSetParams& params);

// The atlas: every kind a figure set can draw, in the papers' order (Ruscio
// et al., Barbero et al., Mudarisov et al. by figure number), with the reason
// a set may lack it.
inline constexpr const char* kCurveAbsent =
    "the study's records were made before SinkScope kept this curve (run the study again)";
inline constexpr const char* kGeometryAbsent =
    "the study's records were made before SinkScope kept the value geometry per head (run the "
    "study again)";
inline constexpr const char* kClassesAbsent =
    "the study's records were made before SinkScope kept the head classes' trajectories (run the "
    "study again)";
inline constexpr const char* kContextAbsent =
    "needs --context-lengths on a causal model and sentences at least that long (a study: study "
    "run --curves --context-lengths)";
struct AtlasKind {
  const char* file;
  const char* paperFigure;
  const char* whyAbsent;  // "": every set has it
  int paper;              // 0 Ruscio et al., 1 Barbero et al., 2 Mudarisov et al.
  double order;           // within the paper
};
const std::vector<AtlasKind>& atlas_kinds();
// The papers' figures and tables SinkScope does not draw yet, with what exists of them.
const std::vector<std::pair<std::string, std::string>>& atlas_not_yet_drawn();
// `figures` sorted as atlas_kinds() lists them (unknown kinds last, as given).
std::vector<SetFigure> in_papers_order(std::vector<SetFigure> figures);
// The atlas kinds missing from `figures`: ("paper figure: file", why).
std::vector<std::pair<std::string, std::string>> atlas_left_out(
    const std::vector<SetFigure>& figures);

// What a caption says of a set's scope.
struct AtlasScope {
  std::string model, sentencesName, distances;
  std::size_t sentences = 0;
  int layers = 0, heads = 0, randomSubsets = 0;
  std::uint64_t seed = 0;
};
// A figure's caption: what it shows (its title), what it pools, the parameters, its CSV.
std::string figure_caption(const SetFigure& f, const AtlasScope& scope);

// The layers a plot of `layers` shows when it shows at most `shown`: all, or
// `shown` spread evenly from the first to the last.
std::vector<int> shown_layers(int layers, int shown);

}  // namespace sinkscope::document
