#pragma once
// The model and sentence dock's content: the model chooser (recent models,
// SinkScope's built-in ones and the Hugging Face cache, each with its family
// and size), the open model's summary, the sentence with its examples, and
// Run. It edits the workspace's model and sentence and shows them back.
#include <QString>
#include <QWidget>
#include <filesystem>
#include <utility>
#include <vector>

class QComboBox;
class QPushButton;
class QLabel;

namespace sinkscope::ui {

class Workspace;
class SentenceBox;

class ModelPanel : public QWidget {
  Q_OBJECT

 public:
  ModelPanel(Workspace* workspace, QWidget* parent = nullptr);
  // The folder of SinkScope's built-in models (one sub-folder each), listed too.
  void setBuiltinModelsDir(const QString& dir);
  // The chooser's models as (name shown, what opens it).
  std::vector<std::pair<QString, QString>> knownModels() const;
  // The open model's summary; `remember`: add it to the recent models (a
  // training checkpoint visited with the slider is not one the user opened).
  void showModel(bool remember);
  // A capture shown instead of a model's run: what it holds and what it cannot do.
  void showCapture(const QString& path);

 public Q_SLOTS:
  void refreshRecentModels();
  // Asks for a model folder and opens it.
  void chooseModelFolder();

 Q_SIGNALS:
  void recentModelsChanged();

 private:
  void addModel(const QString& name, const QString& open, const std::filesystem::path& folder);
  Workspace* workspace_;
  QString builtinDir_;
  QComboBox* chooser_;
  QLabel* summary_;
  SentenceBox* sentenceBox_;
  QPushButton* runButton_;
  // Back to running sentences after a capture: the chooser, box and Run as a model needs them.
  void leaveCapture();
};

}  // namespace sinkscope::ui
