#include "ui/sentence_run.h"

#include <QFileInfo>
#include <QObject>

#include "models/capture.h"

#include "models/model_discovery.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <stdexcept>

#include "models/document/sentence_run.h"
#include "models/experiments.h"
#include "models/loaded_model.h"
#include "ui/job_runner.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"

namespace sinkscope::ui {

namespace {

// The document layer's run in the window's terms, and back.
void take_document_run(SentenceRun& run, document::SentenceRun&& from) {
  run.tokens.clear();
  for (const auto& d : from.tokens.display) run.tokens << QString::fromStdString(d);
  run.causal = from.trace->causal();
  run.firstIsSpecial = from.tokens.firstIsSpecial();
  run.special = std::move(from.tokens.special);
  run.offsets = std::move(from.tokens.offsets);
  run.trace = std::move(from.trace);
  run.beyondTrainedContext = QString::fromStdString(from.beyondTrainedContext);
}

document::SentenceRun document_run_of(const SentenceRun& run) {
  document::SentenceRun d;
  d.text = run.sentence.toStdString();
  for (const QString& t : run.tokens) d.tokens.display.push_back(t.toStdString());
  d.tokens.special = run.special;
  d.tokens.offsets = run.offsets;
  d.trace = run.trace;
  d.beyondTrainedContext = run.beyondTrainedContext.toStdString();
  return d;
}

}  // namespace

QStringList sentence_words(const QString& sentence) {
  static const QRegularExpression space(QStringLiteral("\\s+"));
  return sentence.split(space, Qt::SkipEmptyParts);
}

SentenceRun sentence_run_capture(const models::Capture& capture) {
  SentenceRun run;
  const QString name = capture.model.empty() ? QFileInfo(QString::fromStdString(capture.file.string())).fileName()
                                             : QString::fromStdString(capture.model);
  run.source = QObject::tr("%1 (capture)").arg(name);
  for (const std::string& token : capture.tokenText) run.tokens << QString::fromStdString(token);
  run.causal = capture.causal;
  run.trace = std::make_shared<const models::Trace>(models::capture_trace(capture));
  run.offsets.assign(capture.tokenText.size(), {-1, -1});
  run.hasValues = capture.headDim > 0;
  return run;
}

SentenceRun sentence_run_baseline(const QString& sentence) {
  SentenceRun run;
  run.sentence = sentence;
  run.source = QStringLiteral("no model");
  run.tokens = sentence_words(sentence);
  // The words' bytes in the sentence (as the tokenizer's offsets would be).
  const std::string text = sentence.toStdString();
  for (std::size_t at = 0; at < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[at]))) {
      ++at;
      continue;
    }
    const std::size_t begin = at;
    while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    run.offsets.emplace_back(static_cast<int>(begin), static_cast<int>(at));
  }
  if (run.offsets.size() != static_cast<std::size_t>(run.tokens.size()))
    run.offsets.assign(static_cast<std::size_t>(run.tokens.size()), {-1, -1});  // Unicode spaces
  if (run.tokens.isEmpty())
    throw std::invalid_argument("sentence: nothing to run (type a sentence first)");
  if (run.tokens.size() > kMaxBaselineWords)
    throw std::invalid_argument("sentence: " + std::to_string(run.tokens.size()) +
                                " words; without a model the uniform baseline is drawn for at "
                                "most " + std::to_string(kMaxBaselineWords) +
                                " (open a model to run it)");
  return run;
}

SentenceRun sentence_run_model(const models::LoadedModel& model, const QString& sentence,
                               const std::function<bool(double)>& progress) {
  SentenceRun run;
  run.sentence = sentence;
  // The repository and revision for a cache snapshot, never its hash.
  run.source = QString::fromStdString(models::model_display_name(model.model->folder()));
  run.model = model.model.get();
  if (sentence.trimmed().isEmpty())
    throw std::invalid_argument("sentence: nothing to run (type a sentence first)");
  document::SentenceRun plain;
  try {
    plain = document::sentence_run(model, sentence.toStdString(), {}, progress);
  } catch (const models::RunCancelled&) {
    throw JobCancelled();  // the runner's own way of saying "stopped on request"
  }
  take_document_run(run, std::move(plain));
  return run;
}

SentenceRun sentence_run_intervened(const models::LoadedModel& model, const SentenceRun& base,
                                    const models::Intervention& iv,
                                    const document::AnalysisSettings& settings,
                                    const std::function<bool(double)>& progress) {
  if (!base.trace) throw std::invalid_argument("interventions: open a model first");
  iv.check_fits(base.trace->layers(), base.trace->heads());
  SentenceRun run;
  run.sentence = base.sentence;
  run.source = base.source + QStringLiteral(" (intervened)");
  try {
    take_document_run(
        run, document::sentence_run_intervened(model, document_run_of(base), iv, progress));
    run.analysis = run_analysis_compute(*run.trace, settings, progress);
  } catch (const models::RunCancelled&) {
    throw JobCancelled();
  }
  return run;
}

std::shared_ptr<const models::LayerCapture> SentenceRun::layer(int layer) const {
  if (!cachedLayer_ || cachedLayerIndex_ != layer) {
    cachedLayer_ = std::make_shared<const models::LayerCapture>(trace->layer(layer));
    cachedLayerIndex_ = layer;
  }
  return cachedLayer_;
}

std::vector<std::string> SentenceRun::tokenStrings() const {
  std::vector<std::string> out;
  for (const QString& t : tokens) out.push_back(t.toStdString());
  return out;
}

analysis::AttentionMatrix SentenceRun::attention(int layer, int head) const {
  if (!trace) return analysis::attention_uniform(tokenCount(), causal);
  const models::LayerCapture& capture = *this->layer(layer);
  if (head == SelectionModel::kHeadAverage) return capture.headAverage();
  const analysis::AttentionView view = capture.attentionOf(head);
  return {std::vector<float>(view.weights.begin(), view.weights.end()), view.size, view.causal};
}

}  // namespace sinkscope::ui
