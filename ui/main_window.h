#pragma once
// The SinkScope main window: model and sentence dock on the left, the
// selection bar on top, the attention map and the plots in docks that can be
// floated, closed and restored; layout and recent models persist.
#include <QMainWindow>
#include <functional>
#include <optional>

#include "analysis/token_alignment.h"
#include "models/document/sentence_run.h"
#include "models/loaded_model.h"
#include "render/panel_export.h"
#include "ui/session.h"
#include "ui/shown_place.h"

class QAction;
class QCheckBox;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QPushButton;

namespace sinkscope::render {
class HeatMapView;
class FigureStandIn;
class LinePlotView;
}  // namespace sinkscope::render

namespace sinkscope::views {
struct HeatMap;
struct PlotSeries;
}

namespace sinkscope::document {
struct StudyTables;
}

namespace sinkscope::ui {

using document::SentenceRun;
using document::StudyTables;
class AnalysisPanels;
class AttentionMapPanel;
class PresentStage;
class KeyImportancePanel;
class InterventionsPanel;
class ComparisonChooser;
class JobRunner;
class ModelPanel;
class StatusLine;
class JobStatus;
class SelectionBar;
class SelectionModel;
class StudyPanel;
class Workspace;
class WorkspaceSession;
class CheckpointsPanel;
class PanelBoard;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // The document the window shows: runs, model, selection, jobs (ui/workspace.h).
  Workspace* workspace() const { return workspace_; }
  SelectionModel* selection() const { return selection_; }
  JobRunner* jobs() const { return jobs_; }
  JobStatus* jobStatus() const { return jobStatus_; }
  // Null when the platform cannot do OpenGL (a message is shown instead).
  render::HeatMapView* attentionView() const;
  render::LinePlotView* profileView() const;
  QDockWidget* attentionDock() const { return attentionDock_; }
  QDockWidget* profileDock() const { return profileDock_; }
  AnalysisPanels* analysisPanels() const;
  // Every panel drawing the workspace (ui/panel_board.h); the window lays out their docks.
  PanelBoard* panels() const { return board_; }
  StudyPanel* studyPanel() const { return studyPanel_; }
  QDockWidget* studyDock() const { return studyDock_; }
  CheckpointsPanel* checkpointsPanel() const;
  InterventionsPanel* interventionsPanel() const { return interventionsPanel_; }
  ComparisonChooser* comparisonChooser() const { return comparisonChooser_; }
  // Run B (interventions' or a comparison's), and run A, and the open model.
  const std::optional<SentenceRun>& intervenedRun() const;
  const std::optional<SentenceRun>& lastRun() const;
  const std::optional<models::LoadedModel>& model() const;
  // What the window shows, as a session (the dock layout included).
  Session currentSession() const;
  const QString& lastSessionWarning() const;
  // The last session's places that the model or sentence shown lacks (empty: none).
  const QString& lastSessionPlacesOutside() const;
  // "cpu" or "cuda": where models opened from now on run.
  void setDevice(const QString& device);
  void setPrecision(models::ComputePrecision precision);
  // The folder of SinkScope's built-in models (one sub-folder each), listed
  // in the model chooser.
  void setBuiltinModelsDir(const QString& dir);
  QString sentence() const;

 public Q_SLOTS:
  // Named commands: menus, shortcuts, the command line and tests use these.
  void setSentence(const QString& text);
  void runSentence();
  // A folder, or a Hugging Face cache name org/name.
  void openModelFolder(const QString& folderOrName);
  void chooseModelFolder();
  void resetLayout();
  // Experiments menu: single-head ablation dNLL of every head (overview score),
  // and KL after sink removal plus the Fisher trace per layer (layer profiles).
  void computeHeadAblation();
  void computeLayerFunction();
  // Exports `view` (a heat map or plot panel) to `path`: .png at `dpi`, .pdf,
  // .svg or .csv with the model, text, selection and interventions in the
  // header. Errors go to the status bar; returns whether the file was written.
  bool exportPanel(QWidget* view, const QString& path, int dpi = 300, bool overwrite = true);
  // The same with the figure's size, fonts and background (render::FigureOptions).
  bool exportPanel(QWidget* view, const QString& path, const render::FigureOptions& options,
                   bool overwrite = true);
  // Ctrl+E: names the focused view, offers it alone or its whole panel, asks
  // for the figure options and a file name, and exports.
  void exportFocusedPanel();
  // Several views as one figure, (a), (b), ... in a grid of `columns` (0: one
  // row); PNG, PDF or SVG. Errors go to the status bar.
  bool exportFigure(const std::vector<QWidget*>& views, const QString& path,
                    const render::FigureOptions& options, int columns = 0, bool overwrite = true);
  // The exportable views of `dock` (a whole panel's sub-plots), in order.
  std::vector<QWidget*> dockViews(QDockWidget* dock) const;
  // File > Export figure of several panels: views chosen by object name, the
  // layout kept in the session.
  void chooseFigureViews();
  // The views of the last multi-panel figure and its columns (saved in sessions).
  const QStringList& figureViews() const { return figureViews_; }
  int figureColumns() const { return figureColumns_; }
  void setFigureLayout(const QStringList& views, int columns);
  // The views with these object names, in this order (missing ones skipped).
  std::vector<QWidget*> viewsNamed(const QStringList& names) const;
  // The reason the last export failed (empty after a success).
  const QString& lastExportError() const { return lastExportError_; }
  // What the last figure left out (views with nothing to draw); empty if nothing.
  const QString& lastExportNote() const { return lastExportNote_; }
  // The shown run's tensors (attention, q, k, v, residuals, ids, tokens) as NPZ,
  // written in a job (models::trace_write_npz); the status bar says when done.
  void exportRunTensors(const QString& path, bool overwrite = true);
  void chooseRunTensorsFile();
  // File > Share as web page: the shown run as one HTML file (Workspace::shareAsWebPage).
  void shareAsWebPage(const QString& path, bool overwrite = true);
  void chooseWebPageFile();
  // File > Open capture: an NPZ of attention from any framework (ui/workspace.h).
  void openCapture(const QString& path);
  void chooseCaptureFile();
  // File > Open study: a merged corpus study folder (sinkscope-cli study
  // merge), read in a job and shown in the Study dock; errors go to the
  // status bar.
  void openStudy(const QString& folder);
  void chooseStudyFolder();
  // File > Open training checkpoints: the step-N folders of a training run in
  // the Checkpoints dock; the last one is opened and the sink-emergence plot
  // computed for the sentence (errors go to the status bar).
  void openCheckpoints(const QString& folder);
  // The dock and the emergence plot of a training run, without opening a checkpoint.
  bool showCheckpoints(const QString& folder);
  void chooseCheckpointsFolder();
  // The open model's own training run (its checkpoints/ folder), when it has one.
  void openModelTraining();
  void computeEmergence();
  // Runs `text` as the sentence with (layer, head) selected once it is shown,
  // opening the study's model first when another one is open.
  void openStudySentence(const QString& text, int layer, int head);
  // Sessions (.sinkscope files, ui/session.h): the model, sentence, selection,
  // interventions and panel options of the window, saved and opened again. A
  // session whose model has changed since it was saved opens with a warning
  // naming what changed (lastSessionWarning()). Errors go to the status bar.
  bool saveSession(const QString& path);
  void openSession(const QString& path);
  // File > Save session with its run: the session and, beside it, the run's
  // capture (NAME.capture.npz), so it opens where the model is found nowhere;
  // both written or neither. False (and the status bar says why) on failure.
  bool saveSessionWithRun(const QString& path);
  void chooseSessionWithRunToSave();
  void chooseSessionToSave();
  void chooseSessionToOpen();
  // The last session the window had when it closed (File > Restore the last
  // session on launch decides whether main() calls this).
  bool restoreLastSession();
  // Run > Compare with another sentence / model: the
  // current run (A) and a second one (B: another sentence on this model, or
  // this sentence on another model, of any shape, e.g. a
  // checkpoint) in every panel, as an intervention's before and after are:
  // A, B, their difference (same tokens) or side by side, each run with its
  // own token labels. The comparison follows new sentences until stopped;
  // interventions end it. Errors go to the status bar.
  void compareWithSentence(const QString& text);
  void compareWithModel(const QString& folderOrName);
  // Pins B's layer and head (SelectionModel::kAutomatic: follow the selection,
  // kHeadAverage: B's head average): now when B is shown, else when it arrives.
  void pinComparedRun(int layer, int head);
  // Selects `layer` (-1: keep) and `head` (SelectionModel::kHeadAverage, or
  // SelectionModel::kAutomatic: keep) once the next run is shown; a place the
  // model lacks is reported, not clamped.
  void selectAfterNextRun(int layer, int head);
  void stopComparing();
  // The classroom mode (View > Present, F5; Esc leaves): the map and the
  // panel in front fill the screen under a large caption (the sentence and
  // what the selected head shows), text sized for the screen, a line
  // explaining the red labels; the layout comes back exactly on leaving.
  // Asked before the window is first shown, it starts once it is.
  void setPresenting(bool on);
  bool presenting() const { return presenting_; }
  QString presentedDock() const { return presentedDock_; }  // the panel shown with the map
  PresentStage* presentStage() const { return stage_; }     // null until first presented
  // Selects the head whose queries give the first token the most attention.
  void goToStrongestSink();
  // Runs the next (+1) or previous (-1) demonstration sentence.
  void stepDemonstration(int step);
  void chooseComparisonSentence();
  void chooseComparisonModel();
  void chooseAnalysisSettings();
  // The compared runs' names: before/after, A/B or the two models' names.
  QString leftRunName() const;
  QString rightRunName() const;
  // Looks at the named 3-D views (graphView, spectralEmbedding, valueSpaceView) from these cameras.
  void setSceneCameras(const std::vector<std::pair<QString, views::SceneCamera>>& cameras);

 Q_SIGNALS:
  void runFinished();       // the forward pass: the map is shown
  void presentingChanged(bool on);
  void analysisFinished();  // every head analysed: the analysis panels are drawn
  void interventionsFinished();
  void experimentsFinished();
  void modelOpened(const QString& folder);
  void captureOpened(const QString& path);
  void studyOpened(const QString& folder);
  void sessionApplied();  // an opened session's model, sentence, selection and layout are shown
  void emergenceFinished();  // the checkpoints' sink-emergence plot is drawn
  void comparisonFinished();  // the compared run (B) is shown

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildDocks();  // in four parts:
  void buildMapDocks();
  void buildAnalysisDocks();
  void buildHiddenDocks();
  void connectPanels();
  void buildActions();  // the menus, one function each:
  void buildFileMenu();
  void buildRunMenu();
  void buildExperimentsMenu();
  void buildNavigateMenu();
  void buildViewMenu();
  void buildHelpMenu();
  struct KeyCommand {
    Qt::Key key;
    QString menuText;  // "Next layer\tDown"
    std::function<void()> run;
    bool demonstration = false;  // in the Run menu, else in Navigate
  };
  std::vector<KeyCommand> keyCommands();
  void refreshRecentModels();
  // The open model's name, summary and training, once the workspace has opened it.
  void showModel();
  // The workspace's study in the Study dock, beside the map.
  void showStudy();
  // The session's layout and what it could not show, once the workspace has it.
  void finishSession(const Session& session);
  // Runs an export's `write`: its error to the status bar, or "Exported PATH".
  bool reportExport(const QString& path, const std::function<void()>& write);
  void rememberSession(const QString& path);
  void refreshRecentSessions();

  // The dock of registry row `name` (ui/panel_registry.h).
  QDockWidget* panelDock(const QString& name);
  // The workspace's signals, to redraws and the window's own signals.
  void connectWorkspace();
  void saveLayout() const;
  void restoreLayout();

  Workspace* workspace_;
  SelectionModel* selection_;  // the workspace's
  JobRunner* jobs_;            // the workspace's
  QString lastExportError_;
  QString lastExportNote_;
  JobStatus* jobStatus_ = nullptr;
  SelectionBar* selectionBar_ = nullptr;

  ModelPanel* modelPanel_ = nullptr;
  QMenu* recentMenu_ = nullptr;

  QDockWidget* modelDock_ = nullptr;
  QDockWidget* attentionDock_ = nullptr;
  QDockWidget* profileDock_ = nullptr;
  PanelBoard* board_;
  WorkspaceSession* session_;
  std::vector<QDockWidget*> analysisDocks_;  // the analysis panels' docks, in registry order
  InterventionsPanel* interventionsPanel_ = nullptr;
  ComparisonChooser* comparisonChooser_ = nullptr;  // which of two runs the panels draw
  int modelDockWidth_ = 0;  // as the user left it (eventFilter)
  QSize lastWindowSize_;
  QDockWidget* interventionsDock_ = nullptr;
  StudyPanel* studyPanel_ = nullptr;
  QDockWidget* studyDock_ = nullptr;
  QDockWidget* checkpointsDock_ = nullptr;
  QMenu* recentSessionsMenu_ = nullptr;
  QStringList figureViews_;  // the multi-panel figure's views (object names)
  int figureColumns_ = 0;

  StatusLine* statusLine_ = nullptr;

  // Of saved dock layouts: bump when docks are added or renamed (2: Study,
  // 3: Head view, 4: Checkpoints).
  static constexpr int kLayoutVersion = 4;
  QByteArray defaultLayout_;
  QDockWidget* frontPlotDock() const;
  void enterStage();
  void leaveStage();
  void updatePresentCaption();
  // Shows the dock in front; while presenting, its panel takes the stage's
  // and the dock comes forward on leaving.
  void bringForward(QDockWidget* dock);
  void showBroughtForward();
  std::vector<QDockWidget*> broughtForward_;  // while presenting
  void scaleText(double labelScale, double plotScale);
  // Restores a dock layout, or while presenting keeps it for the way back.
  void applyLayout(const QByteArray& state);
  bool presenting_ = false;
  bool presentWhenShown_ = false;
  QByteArray beforePresenting_;  // the layout to come back to
  QByteArray geometryBeforePresenting_;
  // The layout to restore once the window has its size back (docks restored
  // into the full-screen window would keep full-screen sizes).
  QByteArray layoutAfterResize_;
  QSize sizeBeforePresenting_;
  int modelDockWidthBeforePresenting_ = 0;
  void applyLayoutAfterResize();
  bool wasFullScreen_ = false;
  QString presentedDock_;
  QDockWidget* presentedFrom_ = nullptr;  // the dock whose panel is on the stage
  PresentStage* stage_ = nullptr;
  QAction* presentAction_ = nullptr;
  QAction* modelTrainingAction_ = nullptr;  // enabled while the open model has checkpoints
  QAction* cancelAction_ = nullptr;  // Esc, given to the classroom mode while it lasts
  double baseFontPoints_ = 0;
  int demonstration_ = -1;  // the demonstration sentence shown last
  bool layoutInitialised_ = false;
};

}  // namespace sinkscope::ui
