#pragma once
// What one press of "Run" computes for a sentence. Until the model runtime
// captures real attention, the shell shows the uniform causal baseline over
// the sentence's words: the map every sink is judged against (metrics.md
// section 1), and the baseline of the first-token sink metric.
#include <QString>
#include <QStringList>
#include <vector>

#include "analysis/attention_matrix.h"

namespace sinkscope::ui {

struct SentenceRun {
  QString sentence;
  QStringList tokens;  // display strings, in order
  analysis::AttentionMatrix attention;
  std::vector<double> keyImportance;    // alpha_k of `attention`
  std::vector<double> uniformBaseline;  // alpha_k of a uniform head
};

// Words of `sentence` split on white space (no tokenizer is loaded yet).
QStringList sentence_words(const QString& sentence);

// Throws std::invalid_argument (with a message for the status bar) when the
// sentence has no word.
SentenceRun sentence_run_baseline(const QString& sentence);

}  // namespace sinkscope::ui
