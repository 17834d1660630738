#pragma once
// The Study dock: a merged corpus study read back from its
// folder. A layers x heads grid coloured by a pooled number, the layer
// profiles with their 95% intervals, the pooled head classes per layer, the
// reference frame with its evidence, and, for the chosen head, the sentences
// where it sinks hardest; opening one runs it as a normal sentence.
#include <QWidget>
#include <optional>

#include "models/document/study_tables.h"

class QComboBox;
class QLabel;
class QListWidget;

namespace sinkscope::views {
struct HeatMap;
}

namespace sinkscope::render {
class DrawnViews;
class HeatMapView;
class LinePlotView;
}  // namespace sinkscope::render

namespace sinkscope::ui {

using document::Interval;
using document::StudyHead;
using document::StudySentence;
using document::StudyTables;

class StudyPanel : public QWidget {
  Q_OBJECT

 public:
  explicit StudyPanel(render::DrawnViews& drawn, QWidget* parent = nullptr);

  // Shows `study` (replacing what was shown) with (layer, head) chosen.
  void setStudy(StudyTables study);
  // A study folder that could not be opened: the reason stays here (the study
  // shown before, if any, stays open).
  void showRefusal(const QString& folder, const QString& reason);
  const std::optional<StudyTables>& study() const { return study_; }
  // The head whose sentences the list shows; the grid frames it.
  void chooseHead(int layer, int head);
  int chosenLayer() const { return layer_; }
  int chosenHead() const { return head_; }

  // Null when the platform cannot do OpenGL (a message is shown instead).
  render::HeatMapView* gridView() const { return grid_; }
  render::LinePlotView* profileView() const { return profile_; }
  render::LinePlotView* classesView() const { return classes_; }
  QListWidget* sentenceList() const { return sentences_; }
  QComboBox* gridChooser() const { return gridChooser_; }
  QComboBox* profileChooser() const { return profileChooser_; }
  QLabel* summary() const { return summary_; }

  // The grid as drawn for the chosen pooled number (for tests and exports).
  views::HeatMap gridData() const;

 Q_SIGNALS:
  // A head was clicked in the grid.
  void headChosen(int layer, int head);
  // A sentence of the list was opened (double-click or Enter).
  void sentenceOpened(const QString& text, int layer, int head);

 private:
  render::DrawnViews& drawn_;  // what the views draw, for exports
  void drawGrid();
  void drawProfile();
  void drawClasses();
  void fillSentences();
  void fillProfileChooser();

  std::optional<StudyTables> study_;
  int layer_ = 0, head_ = 0;
  QLabel* summary_ = nullptr;
  QComboBox* gridChooser_ = nullptr;
  QComboBox* profileChooser_ = nullptr;
  render::HeatMapView* grid_ = nullptr;
  render::LinePlotView* profile_ = nullptr;
  render::LinePlotView* classes_ = nullptr;
  QLabel* sentencesTitle_ = nullptr;
  QListWidget* sentences_ = nullptr;
};

}  // namespace sinkscope::ui
