#include "models/document/sentence_run.h"

#include "models/model_config.h"

namespace sinkscope::document {

RunTokens RunTokens::withoutFirst() const {
  RunTokens t = *this;
  if (!t.display.empty()) t.display.erase(t.display.begin());
  if (!t.special.empty()) t.special.erase(t.special.begin());
  if (!t.offsets.empty()) t.offsets.erase(t.offsets.begin());
  return t;
}

SentenceRun sentence_run_of(const models::LoadedModel& model, const std::string& text,
                            models::SentenceTrace&& traced) {
  SentenceRun run;
  run.text = text;
  run.tokens = {std::move(traced.encoding.display), std::move(traced.encoding.special),
                std::move(traced.encoding.offsets)};
  run.trace = std::make_shared<const models::Trace>(std::move(traced.trace));
  run.beyondTrainedContext =
      models::beyond_trained_context(model.model->config(), run.trace->tokens());
  return run;
}

SentenceRun sentence_run(const models::LoadedModel& model, const std::string& text,
                         const models::RunOptions& options, const models::ProgressFn& progress) {
  return sentence_run_of(model, text, models::loaded_model_run(model, text, options, progress));
}

SentenceRun sentence_run_intervened(const models::LoadedModel& model, const SentenceRun& base,
                                    const models::Intervention& intervention,
                                    const models::ProgressFn& progress) {
  SentenceRun run;
  run.text = base.text;
  run.tokens = intervention.dropFirstToken ? base.tokens.withoutFirst() : base.tokens;
  run.intervention = intervention;
  run.beyondTrainedContext = base.beyondTrainedContext;
  run.trace = std::make_shared<const models::Trace>(models::intervention_run(
      *model.model, *base.trace, intervention, base.tokens.firstIsSpecial(), progress));
  return run;
}

SentenceRun sentence_run_analysed(const models::LoadedModel& model, const SentenceRun& base,
                                  const models::Intervention& intervention,
                                  const models::ProgressFn& progress) {
  return intervention.empty() ? base : sentence_run_intervened(model, base, intervention, progress);
}

}  // namespace sinkscope::document
