#pragma once
// What one press of "Run" produced: the sentence's tokens and, when a model
// is open, its forward-pass trace. Without a model the window shows the
// uniform causal baseline over the sentence's words: the map every sink is
// judged against (metrics.md section 1).
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "analysis/attention_matrix.h"
#include "models/intervention.h"

namespace sinkscope::models {
class Trace;
class Model;
struct LayerCapture;
struct LoadedModel;
struct Capture;
}  // namespace sinkscope::models

namespace sinkscope::document {
struct TraceAnalysis;
struct AnalysisSettings;
}

namespace sinkscope::ui {

using document::TraceAnalysis;

struct SentenceRun {
  QString sentence;
  QString source;      // the model's name, or "no model"
  const models::Model* model = nullptr;  // which loaded model made it (identity only); null: baseline
  QStringList tokens;  // display strings, in order
  bool causal = true;
  std::shared_ptr<const models::Trace> trace;  // null: the uniform baseline
  bool firstIsSpecial = false;                 // the tokenizer put a BOS/CLS at position 0
  // Empty, or why this many tokens exceed what the model was trained on.
  QString beyondTrainedContext;
  std::vector<bool> special;                   // per token: added by the tokenizer (empty: unknown)
  // Per token: the bytes [begin, end) of `sentence` it covers, from the
  // tokenizer's offsets; {-1, -1}: none (a special token the tokenizer adds).
  std::vector<std::pair<int, int>> offsets;
  // Whether the trace holds the heads' values (a capture may not).
  bool hasValues = true;
  // Every head's metrics (null without a trace, and until the window's
  // analysis job has delivered them: the map shows before they are in).
  std::shared_ptr<const TraceAnalysis> analysis;

  int tokenCount() const { return static_cast<int>(tokens.size()); }
  // The tokens as the document layer takes them.
  std::vector<std::string> tokenStrings() const;
  // The map of `layer` and `head` (SelectionModel::kHeadAverage for the mean
  // over heads); the uniform map when there is no trace.
  analysis::AttentionMatrix attention(int layer, int head) const;
  // The capture of `layer` (requires a trace), through the same one-layer cache.
  std::shared_ptr<const models::LayerCapture> layer(int layer) const;

 private:
  // The last layer asked for: stepping through heads (the common move) then
  // neither copies nor recomputes the layer again. Used on the GUI thread only.
  mutable std::shared_ptr<const models::LayerCapture> cachedLayer_;
  mutable int cachedLayerIndex_ = -1;
};

// The same sentence run with `interventions` (the "after" of a comparison):
// starts from `base`'s captured residual stream where the interventions allow.
// Throws the model's errors (e.g. dropping a first token that is not special).
SentenceRun sentence_run_intervened(const models::LoadedModel& model, const SentenceRun& base,
                                    const models::Intervention& interventions,
                                    const document::AnalysisSettings& settings,
                                    const std::function<bool(double)>& progress);

// A capture's attention (models/capture.h) as a run: its tokens, its trace,
// no model (what needs the model says so).
SentenceRun sentence_run_capture(const models::Capture& capture);

// Words of `sentence` split on white space.
QStringList sentence_words(const QString& sentence);

// Without a model the panels show a uniform map of T x T over the words; its
// matrices (and each panel's copies) grow with T^2, so it is drawn for at most
// this many words (a 2,048-word map is 16 MB; 20,000 words would be 1.6 GB
// per matrix).
inline constexpr int kMaxBaselineWords = 2048;

// Throws std::invalid_argument (with a message for the status bar) when the
// sentence has no word, or more than kMaxBaselineWords.
SentenceRun sentence_run_baseline(const QString& sentence);

// Tokenizes and runs the sentence through the model (the trace only; its
// analysis is run_analysis_compute's job). `progress` as everywhere: false
// aborts. Throws the model's errors with their messages.
SentenceRun sentence_run_model(const models::LoadedModel& model, const QString& sentence,
                               const std::function<bool(double)>& progress);

}  // namespace sinkscope::ui
