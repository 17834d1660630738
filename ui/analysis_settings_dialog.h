#pragma once
// Analysis > Settings: one field per analysis setting a run's heads are
// analysed with, made from document::analysis_setting_specs() (its help as
// the tooltip, its range as the field's bounds), so the window offers every
// setting analyze and Python take and no other. The selection's theta, top-N
// and query are the panels' own and are not here.
#include <QDialog>
#include <functional>
#include <vector>

#include "models/document/analysis_settings.h"

class QLabel;

namespace sinkscope::ui {

class AnalysisSettingsDialog : public QDialog {
 public:
  AnalysisSettingsDialog(const document::AnalysisSettings& settings, QWidget* parent = nullptr);
  // The settings as the fields give them (the ones not shown kept); false
  // with a message under the fields when a list field does not parse.
  bool read(document::AnalysisSettings& out);
  // The fields back to analyze's defaults.
  void restoreDefaults();

 private:
  struct Field {
    std::function<void(const document::AnalysisSettings&)> show;
    std::function<bool(document::AnalysisSettings&, QString& problem)> take;
  };
  std::vector<Field> fields_;
  document::AnalysisSettings settings_;
  QLabel* problem_ = nullptr;
};

}  // namespace sinkscope::ui
