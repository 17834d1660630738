#pragma once
// The pooled corpus tables of `analyze --sentences` and of corpus studies,
// built from one record per sentence. Pooling walks the records in sentence
// order, so records made in several processes (the shards of a study) and
// concatenated give exactly the numbers of one process over the whole file.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/frames.h"
#include "models/io/table_io.h"
#include "analysis/taxonomy.h"
#include "models/document/analyze_report.h"
#include "models/loaded_model.h"

namespace sinkscope::document {

// One layer of one sentence: means over the layer's heads (metrics.md s. 1,
// 2, 6) and the graph of its head-averaged map at each threshold (s. 3).
struct LayerFigures {
  double sinkConcentration = 0.0;   // % of the attention mass on sink keys
  double alpha0 = 0.0;              // sink metric of the first token
  double boost = 0.0;               // alpha_0 / its uniform baseline
  double bars0 = 0.0, bars1 = 0.0;  // bars above min_persistence, H0 and H1
  double fN = 0.0, fNRandom = 0.0;  // F_N at the value-space query and its random-subset mean
  std::vector<double> fiedler, centralisation;  // per threshold
};

// One layer's curves in one sentence (document::AnalysisSettings::curves), means over its heads.
struct LayerCurves {
  std::vector<double> alpha;                    // alpha_k, k = 0 .. T-1
  std::vector<double> alphaUniform;             // the uniform head's alpha_k
  std::vector<double> bettiGrid, beta0, beta1;  // Betti curves on the grid of e
  std::vector<double> fN, fNRandom;  // F_N and its random-subset mean, N = 1 .. keys seen
  // More curves at the value-space query (metrics.md s. 6), N = 1 .. keys seen,
  // each the mean over the heads where it is defined (NaN where no head's is);
  // empty in studies recorded before they were kept (per_n_curves() lists them).
  // The leave-one-out control:
  std::vector<double> looMargin, looAlignment, positiveLoo;
  // precision and recall of the top N and their random-subset means:
  std::vector<double> precision, recall, precisionRandom, recallRandom;
  // the share of heads whose top N holds the sink (position 0), and F_N over the
  // heads with it and over those without:
  std::vector<double> sinkRate, fSinkIn, fSinkOut;
  // the sink diagnostics: over heads with the sink selected (share of the
  // aggregate, direction change), without it (intrusion, inverted share), all
  // (alignment with the selected non-sink sum):
  std::vector<double> sinkShare, sinkTurn, sinkIntrusion, sinkInverted, sinkAlignment;
};

// Which heads a per-N curve's mean is over, so that pooling sentences weights
// each sentence's mean by its share of those heads.
enum class HeadsCounted { All, SinkSelected, SinkUnselected };

// One optional per-N curve of LayerCurves: its key in study records, the range
// its definition allows, what it is (for messages).
struct PerNCurve {
  const char* key;
  std::vector<double> LayerCurves::*values;
  double lo, hi;
  const char* what;
  HeadsCounted heads;
};
const std::vector<PerNCurve>& per_n_curves();

// One head class's trajectories against N in one sentence (004, Fig. 4b):
// means over the sentence's heads of that class, in every layer, at the
// value-space query, N = 1 .. keys seen (NaN where no head's is defined).
struct ClassTrajectories {
  int heads = 0;                                    // the sentence's heads of this class
  std::vector<double> sinkCosine, currentCosine;    // cos(s_N, v_0), cos(s_N, v_cur)
  std::vector<double> sinkRemoved, currentRemoved;  // ||s_N - y_k|| / ||s_N||, k = 0, cur
};
// ClassTrajectories' curves with their study-record keys and ranges.
struct ClassCurve {
  const char* key;
  std::vector<double> ClassTrajectories::*values;
  double lo, hi;
};
const std::vector<ClassCurve>& class_curves();

// Precision and recall of the top N at one context length L in one sentence
// (004, Figs. 10-11): means over every head of every layer at query L - 1,
// N = 1 .. L (NaN where no head's is defined).
struct ContextCurves {
  int length = 0;
  std::vector<double> precision, recall;
};
// The context lengths a study or figure set takes: at most this many, each 2 .. the longest.
inline constexpr std::size_t kMaxContextLengths = 16;
inline constexpr int kMaxContextLength = 1 << 20;
// `lengths` ascending, each once; std::invalid_argument saying what is wrong
// (more than kMaxContextLengths, one outside 2 .. kMaxContextLength).
std::vector<int> context_lengths_checked(std::vector<int> lengths);

// What every head saw in one sentence (index: its line in the sentence file).
// The sink token of a sink at position 0 when the first token is no special
// token (the inputs' first words differ; the frame rule counts them as one).
inline constexpr const char* kFirstTokenLabel = "(first token)";

struct SentenceRecord {
  std::size_t index = 0;
  std::string text;
  int tokens = 0;
  std::string firstSpecial;       // the first token's display text when it is special, else ""
  std::string lastSpecial;        // the same for the last token
  double uniformBaseline0 = 0.0;  // alpha_0 of a uniform head at this length
  // [layer * heads + head]:
  std::vector<std::vector<analysis::SinkOccurrence>> sinks;
  std::vector<analysis::TaxonomyVotes> votes;
  std::vector<double> alpha0;  // the sink metric of the first token
  // The value vectors' geometry at the value-space query (metrics.md s. 6):
  // lambda, norm_cv, coherence_max (mu_N) and sink_alignment_range (nu); empty
  // in studies recorded before it was kept.
  std::vector<std::array<double, 4>> valueGeometry;
  std::vector<LayerFigures> layers;
  std::vector<LayerCurves> curves;  // with document::AnalysisSettings::curves, one per layer
  // With ::curves, one per head class (Retriever, Mixer, Reset; each head
  // classed by its own votes in this sentence); empty in studies recorded before.
  std::vector<ClassTrajectories> classCurves;
  // With ::curves and ::contextLengths: one per length the sentence reaches
  // (T >= L), in a causal model; none in studies recorded before them.
  std::vector<ContextCurves> contextCurves;
  // With ::curves: how the values point (004, Fig. 3b), counts of cosines per
  // bin (analysis::kValueCosineBins each) summed over every head of every
  // layer: the sink's against the others', then the others' pairs. Empty in
  // studies recorded before they were kept.
  std::vector<std::int64_t> sinkCosineCounts, pairCosineCounts;
  // With document::AnalysisSettings::functional (metrics.md s. 5): mean KL of sink removal
  // in each layer and then in every layer (layers + 1 entries), and the mean
  // NLL change of BOS removal (NaN without a special first token).
  std::vector<double> kl;
  double bosDeltaNll = 0.0;
};

// Records sentences [first, end) of `sentences` (`first` a multiple of
// params.batch): in blocks of params.batch consecutive sentences, those of one
// token count in a block run as one batched pass, and every head of a
// sentence is analysed on every core. Blocks never depend on the range, so
// any split into block-aligned ranges records exactly what one range does.
// `done` hears, after each block, how many sentences of the range are recorded.
std::vector<SentenceRecord> corpus_records(const models::LoadedModel& model,
                                           const std::vector<std::string>& sentences,
                                           std::size_t first, std::size_t end,
                                           const document::AnalysisSettings& params,
                                           const std::function<void(std::size_t)>& done = {});

// specialisation, token_specialisation, taxonomy_pooled, sink_rate, frame,
// layer_profile, top_sentences and (with document::AnalysisSettings::functional) functional,
// without header lines; the same for any split of `records` into shards.
struct CorpusTables {
  io::CsvTable specialisation, tokenSpecialisation, taxonomy, sinkRate, frame, layerProfile,
      topSentences, functional;
};
CorpusTables corpus_tables(const std::vector<SentenceRecord>& records, int layers, int heads,
                           bool encoder, const document::AnalysisSettings& params);

// The header lines every pooled table carries (definitions and readings).
std::vector<std::pair<std::string, std::string>> corpus_header(
    const document::AnalysisSettings& params);

// Writes the tables (and optionally the JSON file) into `dir`, atomically,
// with `header` as each file's comment lines. Returns the files written.
std::vector<std::filesystem::path> corpus_write(
    const CorpusTables& tables, const std::filesystem::path& dir,
    const std::vector<std::pair<std::string, std::string>>& header,
    const document::AnalysisSettings& params, bool force, const std::filesystem::path& jsonFile,
    const std::string& model, std::size_t sentences);

}  // namespace sinkscope::document
