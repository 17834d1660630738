#include "ui/sentence_run.h"

#include <QRegularExpression>
#include <stdexcept>

#include "analysis/sink_metric.h"

namespace sinkscope::ui {

QStringList sentence_words(const QString& sentence) {
  static const QRegularExpression space(QStringLiteral("\\s+"));
  return sentence.split(space, Qt::SkipEmptyParts);
}

SentenceRun sentence_run_baseline(const QString& sentence) {
  SentenceRun run;
  run.sentence = sentence;
  run.tokens = sentence_words(sentence);
  if (run.tokens.isEmpty())
    throw std::invalid_argument("sentence: nothing to run (type a sentence first)");
  const int T = static_cast<int>(run.tokens.size());
  run.attention = analysis::attention_uniform(T, /*causal=*/true);
  run.keyImportance = analysis::sink_key_importance(run.attention.view());
  run.uniformBaseline.reserve(static_cast<std::size_t>(T));
  for (int k = 0; k < T; ++k)
    run.uniformBaseline.push_back(analysis::sink_uniform_baseline(T, k, true));
  return run;
}

}  // namespace sinkscope::ui
