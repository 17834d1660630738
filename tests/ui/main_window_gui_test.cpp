// The main window under Xvfb as a user drives it: run, change the selection,
// float and re-dock panels, persist the layout, survive bad input.
#include <gtest/gtest.h>

#include <vtkCamera.h>
#include <vtkRenderer.h>
#include <atomic>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLineF>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QToolTip>
#include <QWhatsThis>
#include <functional>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <fstream>

#include "analysis/attention_matrix.h"
#include "analysis/sink_metric.h"
#include "analysis/token_alignment.h"
#include "models/capture.h"
#include "models/document/analysis_settings.h"
#include "models/document/sink_finding.h"
#include "models/document/trace_analysis.h"
#include "models/loaded_model.h"
#include "models/model.h"
#include "models/model_identity.h"
#include "models/model_writer.h"
#include "render/head_view.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/qcustomplot_include.h"
#include "render/scene_view.h"
#include "support/render_compare.h"
#include "ui/analysis_panels.h"
#include "ui/analysis_settings_dialog.h"
#include "ui/checkpoints_panel.h"
#include "ui/comparison_chooser.h"
#include "ui/deferred_results.h"
#include "ui/example_picker.h"
#include "ui/export_dialog.h"
#include "ui/interventions_panel.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/main_window.h"
#include "ui/panel_board.h"
#include "ui/present_stage.h"
#include "ui/selection_model.h"
#include "ui/session.h"
#include "ui/workspace.h"

namespace views = sinkscope::views;

// A description's text as the Qt checks below read it.
QString q(const std::string& s) { return QString::fromStdString(s); }

using namespace sinkscope;

namespace {
constexpr int kTimeout = 10000;

// A random llama of `layers` x `heads` (8 dimensions per head) in dir/name;
// `adjust` changes the spec further (positions, config fields).
QString write_model_folder(const QTemporaryDir& dir, int layers, int heads,
                           const QString& name = QStringLiteral("tiny-llama"),
                           std::optional<std::uint64_t> seed = std::nullopt,
                           const std::function<void(models::RandomModelSpec&)>& adjust = {}) {
  const QString folder = dir.filePath(name);
  models::RandomModelSpec spec = models::random_model_spec_for("llama");
  spec.layers = layers;
  spec.heads = heads;
  spec.hidden = 8 * heads;
  spec.kv_heads = heads % 2 == 0 ? 2 : 1;
  if (seed) spec.seed = *seed;
  spec.with_tokenizer = true;
  if (adjust) adjust(spec);
  models::model_folder_write_random(folder.toStdString(), spec);
  return folder;
}

// Shows `w`, opens a random model of `layers` x `heads` in it and waits for the
// run and its analyses.
bool show_with_model(ui::MainWindow& w, const QTemporaryDir& dir, int layers, int heads) {
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return false;
  w.openModelFolder(write_model_folder(dir, layers, heads));
  return QTest::qWaitFor(
      [&] { return w.selection()->layerCount() == layers && w.lastRun() && w.lastRun()->analysis; },
      kTimeout);
}

// The window's pixels where the attention view sits.
QImage attention_area(ui::MainWindow& w) {
  const QImage shot = w.grab().toImage();
  const QRect area(w.attentionView()->mapTo(&w, QPoint(0, 0)), w.attentionView()->size());
  return shot.copy(
      QRect(area.topLeft() * shot.devicePixelRatio(), area.size() * shot.devicePixelRatio()));
}

// Brings the analysis dock `name` to the front and waits until `view` in it
// is shown and laid out (so pixel positions are final).
bool raise_dock(QWidget* window, const char* name, QWidget* view) {
  if (auto* d = window->findChild<QDockWidget*>(QLatin1String(name))) d->raise();
  if (!QTest::qWaitFor([&] { return view->isVisible(); }, kTimeout)) return false;
  QTest::qWait(100);
  return true;
}

// A widget pixel inside the cell (row, col) of a map, found through the view
// itself; (-1, -1) when the cell is not on screen.
QPoint cell_pixel(render::HeatMapView* view, int row, int col) {
  for (int y = 0; y < view->height(); y += 2)
    for (int x = 0; x < view->width(); x += 2)
      if (view->cellAt(QPointF(x, y)) == std::pair<int, int>{row, col}) return {x, y};
  return {-1, -1};
}

bool wait_for_frame(render::HeatMapView* view) {
  const int before = view->renderedFrameCount();
  view->requestRender();
  return QTest::qWaitFor([&] { return view->renderedFrameCount() > before; }, kTimeout);
}

// Each test gets its own settings folder: ctest runs tests of this program
// in parallel, and they must not see each other's layout or recent models.
class MainWindowGui : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(settingsDir_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
    QSettings().clear();
  }
  QTemporaryDir settingsDir_;
};
}  // namespace

TEST_F(MainWindowGui, RunsTheExampleAndRendersBothPanels) {
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  ASSERT_NE(w.attentionView(), nullptr) << "GL panels must be available under Xvfb";
  EXPECT_FALSE(w.sentence().isEmpty()) << "the window opens with an example sentence";
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun().has_value(); }, kTimeout));
  ASSERT_TRUE(wait_for_frame(w.attentionView()));

  const QImage shot = w.grab().toImage();
  shot.save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/main-window.png"));
  EXPECT_TRUE(test::image_has_content(attention_area(w))) << "the VTK area is blank or uniform";
  EXPECT_TRUE(test::image_has_content(w.profileView()->grab().toImage()));
  EXPECT_EQ(w.selection()->tokenCount(), w.lastRun()->tokens.size());
}

TEST_F(MainWindowGui, SelectionDrivesThePanels) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(write_model_folder(dir, 4, 6));
  w.runSentence();
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.selection()->layerCount() == 4 && w.lastRun(); }, kTimeout));
  EXPECT_EQ(w.selection()->headCount(), 6);
  // The model's own attention, not the baseline: the run has a trace whose
  // tokens are the tokenizer's (with its BOS).
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->trace; }, kTimeout));
  EXPECT_EQ(QString::fromStdString(w.lastRun()->tokens.display.front()), QStringLiteral("<s>"));
  EXPECT_EQ(w.lastRun()->tokenCount(), w.lastRun()->trace->tokens());
  const auto shown = w.lastRun()->attention(0, 0);
  const auto uniform = analysis::attention_uniform(shown.size, true);
  EXPECT_NE(shown.weights, uniform.weights);

  // The layer box of the selection bar writes the model; the map's title follows.
  auto* layerBox = w.findChild<QSpinBox*>(QStringLiteral("layerBox"));
  ASSERT_NE(layerBox, nullptr);
  layerBox->setValue(2);
  EXPECT_EQ(w.selection()->layer(), 2);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return q(w.attentionView()->data().title).contains(QStringLiteral("layer 2")); },
      kTimeout));

  // Keyboard commands on a panel: Down = next layer, Left from head 0 = head average.
  w.attentionView()->setFocus();
  QTest::keyClick(w.attentionView(), Qt::Key_Down);
  EXPECT_EQ(w.selection()->layer(), 3);
  EXPECT_EQ(layerBox->value(), 3) << "the bar follows the model";
  QTest::keyClick(w.attentionView(), Qt::Key_Left);
  EXPECT_TRUE(w.selection()->headAveraged());
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return q(w.attentionView()->data().title).contains(QStringLiteral("head average")); },
      kTimeout));
  auto* headBox = w.findChild<QComboBox*>(QStringLiteral("headBox"));
  ASSERT_NE(headBox, nullptr);
  EXPECT_EQ(headBox->currentText(), QStringLiteral("average"));

  // Every view marks the selection: the map frames the (query, key) cell, key
  // importance marks the key, the layer profiles mark the layer.
  w.selection()->setHead(1);
  w.selection()->setQueryToken(3);
  w.selection()->setKeyToken(1);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.attentionView()->data().outlineRow == 3 && w.attentionView()->data().outlineCol == 1; },
      kTimeout));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.profileView()->data().markedX == 1.0; }, kTimeout));
  auto* layerSink = w.findChild<render::LinePlotView*>(QStringLiteral("layerSinkProfile"));
  ASSERT_NE(layerSink, nullptr);
  ASSERT_TRUE(QTest::qWaitFor([&] { return layerSink->data().markedX == 3.0; }, kTimeout))
      << layerSink->data().markedX;
}

TEST_F(MainWindowGui, AClickInTheOverviewMovesEveryPanel) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.resize(1400, 900);
  ASSERT_TRUE(show_with_model(w, dir, 3, 4));
  ui::AnalysisPanels* panels = w.analysisPanels();
  ASSERT_NE(panels->overviewView(), nullptr);
  render::HeatMapView* overview = panels->overviewView();
  ASSERT_EQ(overview->data().rows, 3);
  ASSERT_EQ(overview->data().cols, 4);
  // A real click on the cell of layer 2, head 3: find its pixel through the view.
  ASSERT_TRUE(wait_for_frame(overview));
  const QPoint target = cell_pixel(overview, 2, 3);
  ASSERT_GE(target.x(), 0) << "the cell of layer 2, head 3 is on screen";
  QTest::mouseClick(overview, Qt::LeftButton, {}, target);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.selection()->layer() == 2; }, kTimeout));
  EXPECT_EQ(w.selection()->head(), 3);
  const QString where = QStringLiteral("layer 2, head 3");
  // The window batches its own redraws behind a short timer.
  EXPECT_TRUE(
      QTest::qWaitFor([&] { return q(w.attentionView()->data().title).contains(where); }, kTimeout))
      << q(w.attentionView()->data().title).toStdString();
  EXPECT_TRUE(panels->diagramView()->title().contains(where));
  EXPECT_TRUE(panels->spectrumView()->title().contains(where));
  EXPECT_TRUE(q(panels->taxonomyView()->data().title).contains(QStringLiteral("layer 2, head 3")));
  // One run: the classes stacked per layer, each layer's bar its heads.
  const auto& counts = panels->taxonomyCountsView()->data();
  ASSERT_EQ(counts.series.size(), 3u);
  for (std::size_t l = 0; l < counts.series[0].y.size(); ++l) {
    double heads = 0;
    for (const auto& series : counts.series) {
      EXPECT_TRUE(series.stacked);
      heads += series.y[l];
    }
    EXPECT_LE(heads, w.selection()->headCount()) << "layer " << l;
  }
  EXPECT_EQ(panels->taxonomyCountsView()->plot()->yAxis->range().lower, 0.0);
  EXPECT_TRUE(q(overview->data().title).contains(where));
  EXPECT_EQ(overview->data().outlineRow, 2) << "the selected head is framed in the overview";
  EXPECT_EQ(overview->data().outlineCol, 3);
  EXPECT_TRUE(w.profileView()->title().contains(where));
  EXPECT_TRUE(q(panels->graphView()->data().title).contains(where));
  EXPECT_EQ(panels->embeddingView()->data().points.size(),
            static_cast<std::size_t>(w.lastRun()->tokenCount()));
  EXPECT_TRUE(q(panels->valueSpaceView()->data().title).contains(where));
  // The graph has one point per token; value space one per visible key plus s_N.
  const int T = w.lastRun()->tokenCount();
  EXPECT_EQ(static_cast<int>(panels->graphView()->data().points.size()), T);
  EXPECT_EQ(static_cast<int>(panels->valueSpaceView()->data().points.size()), T + 1);
  EXPECT_EQ(panels->valueCurveView()->data().series.front().x.size(), static_cast<std::size_t>(T));
  // Miniature maps: one shrunk map per head; a click in a block selects that head.
  panels->setScore(ui::HeadScore::MiniatureMaps);
  const int side = std::min(T, 24);
  EXPECT_EQ(overview->data().rows, 3 * (side + 1) - 1);
  EXPECT_EQ(overview->data().cols, 4 * (side + 1) - 1);
  if (QTest::qWaitFor([&] { return overview->renderedFrameCount() > 0; }, kTimeout))
    overview->grabFramebuffer().save(
        QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/overview-miniatures.png"));
  Q_EMIT overview->cellClicked(1 * (side + 1) + 2, 0 * (side + 1) + 1);
  EXPECT_EQ(w.selection()->layer(), 1);
  EXPECT_EQ(w.selection()->head(), 0);
  panels->setScore(ui::HeadScore::SinkAttention);
  w.selection()->setLayer(2);
  w.selection()->setHead(3);
  // A threshold outside the cached set is computed on demand, not replaced by a default.
  w.selection()->setThreshold(0.3);
  EXPECT_TRUE(panels->spectrumView()->title().contains(QStringLiteral("\u03b8 0.3")))
      << panels->spectrumView()->title().toStdString();
  EXPECT_EQ(panels->spectrumView()->data().series.size(), 5u);
  w.selection()->setThreshold(0.05);
  // The panels show numbers of that head: its persistence diagram has T H0 bars.
  const auto& diagram = panels->diagramView()->data();
  ASSERT_FALSE(diagram.series.empty());
  EXPECT_EQ(static_cast<int>(diagram.series[0].x.size()), w.lastRun()->tokenCount());
  // The barcode draws the same bars, two ends each.
  const auto& code = panels->barcodeView()->data();
  ASSERT_EQ(code.series.size(), 2u);
  EXPECT_EQ(code.series[0].x.size(), 2 * diagram.series[0].x.size());
  EXPECT_EQ(code.series[1].x.size(), 2 * diagram.series[1].x.size());
}

TEST_F(MainWindowGui, AnInterventionChangesTheMapsItMustAndOnlyThose) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 3, 4));
  QSignalSpy finished(&w, &ui::MainWindow::interventionsFinished);
  w.selection()->setLayer(1);
  w.selection()->setHead(0);
  w.interventionsPanel()->ablateSelectedHead();
  ASSERT_TRUE(finished.wait(kTimeout));
  ASSERT_TRUE(w.intervenedRun().has_value());
  EXPECT_EQ(w.selection()->interventions().labels().size(), 1u);
  auto shownTitle = [&] { return q(w.attentionView()->data().title); };
  EXPECT_TRUE(QTest::qWaitFor([&] { return shownTitle().contains(QStringLiteral("(intervened)")); },
                              kTimeout))
      << shownTitle().toStdString();
  w.comparisonChooser()->setComparison(ui::Comparison::Difference);
  auto largest = [&](int layer) {
    w.selection()->setLayer(layer);
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
          return shownTitle().contains(QStringLiteral("layer %1,").arg(layer)) &&
                 shownTitle().contains(QStringLiteral("difference"));
        },
        kTimeout));
    float m = 0;
    for (float v : w.attentionView()->data().values) m = std::max(m, std::abs(v));
    return m;
  };
  // Ablating a head of layer 1 cannot change layers 0 and 1's attention, and must change layer 2's.
  EXPECT_TRUE(w.attentionView()->data().diverging) << "differences use the diverging map";
  EXPECT_EQ(w.attentionView()->displayedMin(), -w.attentionView()->displayedMax());
  EXPECT_EQ(largest(0), 0.0f);
  EXPECT_EQ(largest(1), 0.0f);
  EXPECT_GT(largest(2), 1e-6f);
  // The panels follow: the analysis shown is the intervened run's.
  EXPECT_TRUE(w.analysisPanels()->layerSinkView()->title().contains(QStringLiteral("intervened")));

  // Side by side: before | gap | after in one map, clicks mapped back to keys,
  // the plain run's curves dashed in the plots.
  w.comparisonChooser()->setComparison(ui::Comparison::SideBySide);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return shownTitle().startsWith(QStringLiteral("before: layer 2, head 0 | after: layer 2, head 0")); }, kTimeout))
      << shownTitle().toStdString();
  const int T = w.lastRun()->tokenCount();
  const views::HeatMap& both = w.attentionView()->data();
  ASSERT_EQ(both.cols, 2 * T + 1);
  ASSERT_EQ(both.rows, T);
  const analysis::AttentionMatrix plain = w.lastRun()->attention(2, 0);
  const analysis::AttentionMatrix after = w.intervenedRun()->attention(2, 0);
  float leftError = 0, rightError = 0, change = 0;
  for (int i = 0; i < T; ++i) {
    EXPECT_TRUE(both.hidden[static_cast<std::size_t>(i) * both.cols + T]) << "the gap";
    for (int j = 0; j <= i; ++j) {
      const float b = plain.view().at(i, j), a = after.view().at(i, j);
      leftError = std::max(leftError, std::abs(both.values[i * both.cols + j] - b));
      rightError = std::max(rightError, std::abs(both.values[i * both.cols + T + 1 + j] - a));
      change = std::max(change, std::abs(a - b));
    }
  }
  EXPECT_EQ(leftError, 0.0f);
  EXPECT_EQ(rightError, 0.0f);
  EXPECT_GT(change, 1e-6f) << "layer 2 differs after the ablation";
  Q_EMIT w.attentionView()->cellClicked(T - 1, T + 1 + 1);  // after's key 1
  EXPECT_EQ(w.selection()->keyToken(), 1);
  Q_EMIT w.attentionView()->cellClicked(T - 1, T);  // the gap selects nothing
  EXPECT_EQ(w.selection()->keyToken(), 1);
  int dashed = 0;
  for (const auto& series : w.profileView()->data().series) dashed += series.dashed ? 1 : 0;
  EXPECT_EQ(dashed, 1) << "alpha_k before";
  // "Before", "after" and the uniform baseline are told apart: before dashed
  // in a hue of its own, the baseline grey.
  {
    const QCustomPlot* plot = w.profileView()->plot();
    const auto& series = w.profileView()->data().series;
    QColor before, baseline, after;
    for (std::size_t k = 0; k < series.size(); ++k) {
      const QColor c = plot->graph(static_cast<int>(k))->pen().color();
      if (series[k].dashed) before = c;
      else if (series[k].reference) baseline = c;
      else if (!series[k].threshold && after == QColor()) after = c;
    }
    EXPECT_NE(before, after);
    EXPECT_NE(before, baseline);
    EXPECT_NE(after, baseline);
  }
  // Dashed curves drawn (the legend's "dashed: before" entry draws nothing).
  auto dashedIn = [](render::LinePlotView* view) {
    int n = 0;
    for (const auto& series : view->data().series) n += series.dashed && !series.x.empty() ? 1 : 0;
    return n;
  };
  EXPECT_EQ(dashedIn(w.analysisPanels()->layerSinkView()), 3)
      << "sink attention, sink rate and centralisation before";
  ui::AnalysisPanels* panels = w.analysisPanels();
  EXPECT_EQ(dashedIn(panels->bettiView()), 2) << "beta_0 and beta_1 before";
  EXPECT_EQ(dashedIn(panels->spectrumView()), 1) << "the eigenvalues before";
  EXPECT_EQ(dashedIn(panels->taxonomyCountsView()), 3) << "the class counts before";
  EXPECT_EQ(dashedIn(panels->layerTopologyView()), 4)
      << "H0 and H1 bars, the effective rank and the Fiedler value before";
  // The grids: before | gap | after, clicks on the right grid select its head.
  const int heads = w.selection()->headCount();
  EXPECT_EQ(panels->overviewView()->data().cols, 2 * heads + 1);
  EXPECT_EQ(panels->taxonomyView()->data().cols, 2 * heads + 1);
  Q_EMIT panels->overviewView()->cellClicked(1, heads + 1 + 3);
  EXPECT_EQ(w.selection()->layer(), 1);
  EXPECT_EQ(w.selection()->head(), 3);
  Q_EMIT panels->taxonomyView()->cellClicked(0, 2);  // the left grid: head 2 as drawn
  EXPECT_EQ(w.selection()->layer(), 0);
  EXPECT_EQ(w.selection()->head(), 2);
  ASSERT_TRUE(wait_for_frame(w.attentionView()));
  w.grab().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/side-by-side.png"));
  w.interventionsPanel()->clearAll();
  EXPECT_TRUE(QTest::qWaitFor([&] { return !w.intervenedRun().has_value(); }, kTimeout));
}

TEST_F(MainWindowGui, EveryPanelExportsFiguresAndItsNumbers) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  const int T = w.lastRun()->tokenCount();
  std::vector<QWidget*> views{w.attentionView(), w.profileView()};
  ui::AnalysisPanels* panels = w.analysisPanels();
  for (QWidget* v :
       {static_cast<QWidget*>(panels->overviewView()), static_cast<QWidget*>(panels->diagramView()),
        static_cast<QWidget*>(panels->spectrumView()),
        static_cast<QWidget*>(panels->layerSinkView()),
        static_cast<QWidget*>(panels->taxonomyView()), static_cast<QWidget*>(panels->graphView()),
        static_cast<QWidget*>(panels->embeddingView()),
        static_cast<QWidget*>(panels->valueSpaceView())})
    views.push_back(v);
  // The 3-D views draw what their camera shows: lay them out first.
  ASSERT_TRUE(raise_dock(&w, "graphDock", panels->graphView()));
  for (QWidget* view : views) {
    const QString base = dir.filePath(view->objectName());
    for (const char* suffix : {".png", ".pdf", ".svg", ".csv"})
      ASSERT_TRUE(w.exportPanel(view, base + QLatin1String(suffix), 150))
          << view->objectName().toStdString() << suffix;
    QImage png(base + QStringLiteral(".png"));
    ASSERT_FALSE(png.isNull());
    EXPECT_NEAR(png.dotsPerMeterX() * 0.0254, 150.0, 1.0);
    QFile pdf(base + QStringLiteral(".pdf"));
    ASSERT_TRUE(pdf.open(QIODevice::ReadOnly));
    EXPECT_TRUE(pdf.read(5).startsWith("%PDF"));
    QFile svg(base + QStringLiteral(".svg"));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svg.readAll().contains("<svg"));
    QFile csv(base + QStringLiteral(".csv"));
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(csv.readAll());
    EXPECT_TRUE(text.contains(QStringLiteral("# text: "))) << text.left(300).toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("# selection: layer 0")));
  }
  // A 3-D view's CSV has one row per token in the graph, with its coordinates.
  QFile graphCsv(dir.filePath(QStringLiteral("graphView.csv")));
  ASSERT_TRUE(graphCsv.open(QIODevice::ReadOnly));
  int points = 0;
  for (const QByteArray& line : graphCsv.readAll().split('\n'))
    if (line.startsWith("point,")) ++points;
  EXPECT_EQ(points, T);
  EXPECT_TRUE(test::image_has_content(QImage(dir.filePath(QStringLiteral("graphView.png")))));
  // Kept for a look: the exported attention map, persistence diagram and graph.
  for (const char* name : {"attentionView.png", "persistenceDiagram.png", "attentionView.svg",
                           "graphView.png", "valueSpaceView.svg", "taxonomyView.png"}) {
    QFile::remove(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/export-") + QLatin1String(name));
    QFile::copy(dir.filePath(QLatin1String(name)),
                QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/export-") + QLatin1String(name));
  }
  // The attention map's CSV holds exactly the T(T+1)/2 visible weights of a causal map.
  QFile csv(dir.filePath(QStringLiteral("attentionView.csv")));
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  int rows = 0;
  for (const QByteArray& line : csv.readAll().split('\n'))
    if (!line.isEmpty() && !line.startsWith('#')) ++rows;
  EXPECT_EQ(rows, 1 + T * (T + 1) / 2);
  // An existing file is replaced only when asked.
  EXPECT_FALSE(w.exportPanel(w.attentionView(), dir.filePath(QStringLiteral("attentionView.csv")),
                             300, false));
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("exists")));
  EXPECT_FALSE(w.exportPanel(w.attentionView(), dir.filePath(QStringLiteral("x.doc"))));
}

TEST_F(MainWindowGui, TheMapMarksSinksAndHasALogScale) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  w.selection()->setLayer(1);
  w.selection()->setHead(1);
  const auto expected = w.lastRun()->analysis->at(1, 1).sinks.keys();
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        return q(w.attentionView()->data().title).contains(QStringLiteral("layer 1, head 1"));
      },
      kTimeout));
  EXPECT_EQ(w.attentionView()->data().markedCols, expected);
  EXPECT_FALSE(w.attentionView()->data().logScale);
  auto* box = w.findChild<QCheckBox*>(QStringLiteral("logScale"));
  ASSERT_NE(box, nullptr);
  box->setChecked(true);
  EXPECT_TRUE(QTest::qWaitFor([&] { return w.attentionView()->data().logScale; }, kTimeout));
  EXPECT_GT(w.attentionView()->displayedMin(), 0.0) << "a log scale starts above 0";
}

TEST_F(MainWindowGui, ExperimentsFeedTheOverviewAndTheLayerProfiles) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  ui::AnalysisPanels* panels = w.analysisPanels();
  // Before the experiment: the dNLL score says "not computed" in words, on
  // blank cells, not as a scale of zeros.
  panels->setScore(ui::HeadScore::Dnll);
  {
    const auto& blank = panels->overviewView()->data();
    EXPECT_TRUE(q(blank.quantity).contains(QStringLiteral("not computed")))
        << q(blank.quantity).toStdString();
    ASSERT_EQ(blank.hidden.size(), 4u);
    for (bool hidden : blank.hidden) EXPECT_TRUE(hidden);
    EXPECT_TRUE(std::isfinite(panels->overviewView()->displayedMin()));
    EXPECT_TRUE(std::isfinite(panels->overviewView()->displayedMax()));
  }
  QSignalSpy done(&w, &ui::MainWindow::experimentsFinished);
  w.computeHeadAblation();
  ASSERT_TRUE(done.wait(kTimeout));
  ASSERT_EQ(panels->experiments().headDnll.size(), 4u);
  // The overview switched to dNLL and shows exactly those numbers.
  const auto& grid = panels->overviewView()->data();
  ASSERT_EQ(grid.values.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_FLOAT_EQ(grid.values[k], static_cast<float>(panels->experiments().headDnll[k]));
  EXPECT_TRUE(grid.diverging) << "signed dNLL on a scale centred at 0";
  w.computeLayerFunction();
  ASSERT_TRUE(done.wait(kTimeout));
  EXPECT_EQ(panels->experiments().klPerLayer.size(), 2u);
  EXPECT_EQ(panels->experiments().fisherPerParameter.size(), 2u);
  const auto& profile = panels->layerFunctionView()->data();
  ASSERT_EQ(profile.series.size(), 2u);
  EXPECT_NE(profile.title.find("max KL"), std::string::npos);
  // A new run drops the old results.
  w.runSentence();
  EXPECT_TRUE(QTest::qWaitFor([&] { return panels->experiments().headDnll.empty(); }, kTimeout));
}

TEST_F(MainWindowGui, HoveringABarHighlightsItsTokensEverywhere) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.resize(1400, 900);
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  ui::AnalysisPanels* panels = w.analysisPanels();
  render::LinePlotView* diagram = panels->diagramView();
  ASSERT_TRUE(raise_dock(&w, "persistenceDock", diagram));
  // Move the mouse onto the H0 point farthest from every other point (so the hover
  // is unambiguous): the pair of tokens whose merge kills that bar lights up.
  const auto& h0 = w.lastRun()->analysis->at(0, 0).persistence.h0;
  QCustomPlot* plot = diagram->plot();
  auto pixel = [&](const analysis::PersistenceBar& b) {
    return QPointF(plot->xAxis->coordToPixel(b.birth), plot->yAxis->coordToPixel(b.death));
  };
  std::size_t chosen = 0;
  double isolation = -1;
  for (std::size_t k = 0; k < h0.size(); ++k) {
    if (h0[k].edge[0] < 0) continue;  // the infinite class has no merging pair
    double nearest = 1e9;
    for (std::size_t m = 0; m < h0.size(); ++m)
      if (m != k) nearest = std::min(nearest, QLineF(pixel(h0[k]), pixel(h0[m])).length());
    if (nearest > isolation) isolation = nearest, chosen = k;
  }
  const auto& bar = h0[chosen];
  // A synthetic move sent to the plot itself: parallel GUI tests share one X
  // server, so moving the real pointer would race with them.
  QMouseEvent move(QEvent::MouseMove, pixel(bar), plot->mapToGlobal(pixel(bar)), Qt::NoButton,
                   Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(plot, &move);
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return !w.selection()->highlightedTokens().isEmpty(); }, kTimeout));
  QList<int> expected{bar.edge[0], bar.edge[1]};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(w.selection()->highlightedTokens(), expected);
  EXPECT_TRUE(QTest::qWaitFor(
      [&] {
        const auto& lit = w.attentionView()->data().highlighted;
        return lit.size() == 2u && lit[0] == expected[0];
      },
      kTimeout));
  // The edge that kills the bar is lit too: framed in the map, drawn in the graph.
  const QPair<int, int> edge{expected[0], expected[1]};
  const QList<QPair<int, int>> edges{edge};
  EXPECT_EQ(w.selection()->highlightedEdges(), edges);
  EXPECT_TRUE(QTest::qWaitFor(
      [&] {
        const auto& framed = w.attentionView()->data().framedCells;
        return std::find(framed.begin(), framed.end(), std::make_pair(edge.second, edge.first)) !=
               framed.end();
      },
      kTimeout))
      << "the map frames the cell (later token, earlier token) of the edge";
  {  // Leaving the plot takes the highlight away ...
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(diagram, &leave);
    EXPECT_TRUE(w.selection()->highlightedTokens().isEmpty());
    QApplication::sendEvent(plot, &move);  // ... and coming back brings it again
    ASSERT_EQ(w.selection()->highlightedTokens(), expected);
  }
  {  // The barcode: the same bar hovered anywhere along it lights the same tokens.
    render::LinePlotView* barcode = panels->barcodeView();
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(diagram, &leave);
    ASSERT_TRUE(w.selection()->highlightedTokens().isEmpty());
    QCustomPlot* codePlot = barcode->plot();
    const QPointF middle(codePlot->xAxis->coordToPixel((bar.birth + bar.death) / 2),
                         codePlot->yAxis->coordToPixel(static_cast<double>(chosen)));  // bar k on row k
    QMouseEvent overBar(QEvent::MouseMove, middle, codePlot->mapToGlobal(middle), Qt::NoButton,
                        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(codePlot, &overBar);
    EXPECT_EQ(w.selection()->highlightedTokens(), expected);
    QApplication::sendEvent(barcode, &leave);
    EXPECT_TRUE(w.selection()->highlightedTokens().isEmpty());
    QApplication::sendEvent(plot, &move);  // the diagram's hover again, for what follows
    ASSERT_EQ(w.selection()->highlightedTokens(), expected);
  }
  int litEdges = 0;
  for (const auto& e : panels->graphView()->data().edges)
    if (e.lit) {
      ++litEdges;
      EXPECT_EQ(std::min(e.from, e.to), edge.first);
      EXPECT_EQ(std::max(e.from, e.to), edge.second);
    }
  EXPECT_EQ(litEdges, 1);
  // The graph draws those tokens in the selection colour.
  const auto& points = panels->graphView()->data().points;
  ASSERT_GT(points.size(), static_cast<std::size_t>(expected[1]));
  EXPECT_DOUBLE_EQ(points[static_cast<std::size_t>(expected[1])].color.r,
                   views::kSelectedHighlight.r);
  // Hovering a token in the attention graph lights it everywhere, and the
  // redraw that follows keeps the user's view of the graph.
  render::SceneView* graph = panels->graphView();
  ASSERT_TRUE(raise_dock(&w, "graphDock", graph));
  vtkCamera* camera = graph->renderer()->GetActiveCamera();
  camera->Azimuth(30);  // as if the user had rotated it
  double cameraBefore[3];
  camera->GetPosition(cameraBefore);
  const auto& target = graph->data().points[static_cast<std::size_t>(expected[1])].position;
  graph->renderer()->SetWorldPoint(target[0], target[1], target[2], 1.0);
  graph->renderer()->WorldToDisplay();
  const double* shown = graph->renderer()->GetDisplayPoint();
  const double ratio = graph->devicePixelRatioF();
  const QPointF at(shown[0] / ratio, graph->height() - shown[1] / ratio);
  ASSERT_EQ(graph->pointAt(at), expected[1]);
  QMouseEvent overToken(QEvent::MouseMove, at, graph->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                        Qt::NoModifier);
  QApplication::sendEvent(graph, &overToken);
  EXPECT_EQ(w.selection()->highlightedTokens(), QList<int>{expected[1]});
  EXPECT_DOUBLE_EQ(graph->data().points[static_cast<std::size_t>(expected[1])].color.g,
                   views::kSelectedHighlight.g);
  double cameraAfter[3];
  camera->GetPosition(cameraAfter);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(cameraAfter[k], cameraBefore[k]);
  {  // The highlight goes when the mouse leaves the view.
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(graph, &leave);
    EXPECT_TRUE(w.selection()->highlightedTokens().isEmpty());
    QMouseEvent overCell(QEvent::MouseMove, QPointF(5, 5), w.attentionView()->mapToGlobal(QPointF(5, 5)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w.attentionView(), &overCell);
    QApplication::sendEvent(w.attentionView(), &leave);
    EXPECT_TRUE(w.selection()->highlightedTokens().isEmpty());
  }

  // The force-directed layout is flat and says so.
  panels->setGraphLayout(1);
  EXPECT_TRUE(q(panels->graphView()->data().legend).contains(QStringLiteral("force-directed")));
  for (const auto& p : panels->graphView()->data().points) EXPECT_EQ(p.position[2], 0.0);
}

// Beyond the context a model was trained on (here 8 tokens, as SinkScope's
// recipe records it) the window says so where T is shown and in the map's title.
TEST_F(MainWindowGui, AnInputBeyondTheTrainedContextIsSaidSo) {
  QTemporaryDir dir;
  const QString folder = write_model_folder(dir, 1, 2, QStringLiteral("short-llama"), std::nullopt,
                                            [](models::RandomModelSpec& spec) {
                                              spec.max_positions = 64;
                                              spec.config_extra = R"({"sinkscope_recipe": {"context": 8}})";
                                            });
  ui::MainWindow w;
  w.setSentence(QStringLiteral("a b"));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(folder);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->trace; }, kTimeout));
  auto* status = w.findChild<QLabel*>(QStringLiteral("tokenStatus"));
  ASSERT_NE(status, nullptr);
  ASSERT_LE(w.lastRun()->tokenCount(), 8);
  EXPECT_FALSE(status->text().contains(QStringLiteral("beyond")));
  EXPECT_FALSE(q(w.attentionView()->data().title).contains(QStringLiteral("beyond")));
  QSignalSpy ran(&w, &ui::MainWindow::runFinished);
  w.setSentence(QStringLiteral("one two three four five six seven eight nine ten eleven twelve"));
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() >= 1; }, kTimeout));
  const int T = w.lastRun()->tokenCount();
  ASSERT_GT(T, 8);
  EXPECT_EQ(status->text(), QStringLiteral("T = %1 (beyond the trained context)").arg(T));
  EXPECT_TRUE(status->toolTip().contains(QStringLiteral("exceed the 8 tokens it was trained on")))
      << status->toolTip().toStdString();
  EXPECT_TRUE(
      q(w.attentionView()->data().title).contains(QStringLiteral("(beyond the trained context)")));
}

// --layer/--head (selectAfterNextRun) select a place once the sentence has
// run; one the model lacks is reported and the selection stays.
TEST_F(MainWindowGui, APlaceGivenAtLaunchIsSelectedOrReported) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.selectAfterNextRun(1, ui::SelectionModel::kHeadAverage);
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  EXPECT_TRUE(QTest::qWaitFor([&] { return w.selection()->layer() == 1; }, kTimeout));
  EXPECT_TRUE(w.selection()->headAveraged());
  QSignalSpy ran(&w, &ui::MainWindow::runFinished);
  w.selectAfterNextRun(5, 0);
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() >= 1; }, kTimeout));
  EXPECT_EQ(w.selection()->layer(), 1) << "no layer 5: the selection stays";
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("Layer 5, head 0: the model has 2 layers")))
      << w.jobStatus()->lastError().toStdString();
}

// A wider window gives its extra width to the map, not to the model dock.
TEST_F(MainWindowGui, ExtraWidthGoesToTheMap) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.resize(1200, 800);
  ASSERT_TRUE(show_with_model(w, dir, 1, 1));
  QApplication::processEvents();
  const int modelDock = w.findChild<QDockWidget*>(QStringLiteral("modelDock"))->width();
  const int map = w.attentionView()->width();
  w.resize(1500, 800);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.attentionView()->width() > map + 200; }, kTimeout))
      << "map " << map << " -> " << w.attentionView()->width() << ", window " << w.width() << ", model dock "
      << modelDock << " -> " << w.findChild<QDockWidget*>(QStringLiteral("modelDock"))->width();
  EXPECT_NEAR(w.findChild<QDockWidget*>(QStringLiteral("modelDock"))->width(), modelDock, 10);
}

// The screen's height in pixels (the classroom mode's sizes follow it).
int screen_height(const QWidget& w) { return w.screen() ? w.screen()->geometry().height() : 1080; }

// In the classroom mode the drawn map fills at least 60% of the screen's
// height and its token labels are at least 28 px at 1080 (as large
// relatively on any screen); the window covers the screen, window manager or
// not.
void expect_classroom_sizes(ui::MainWindow& w) {
  const int height = screen_height(w);
  render::HeatMapView* map = w.attentionView();
  const auto drawn = [&] { return map->shownCellPixels() * map->data().rows; };
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return w.geometry() == w.screen()->geometry() && drawn() >= 0.6 * height; }, kTimeout))
      << "map " << drawn() << " px of a screen " << height << " px high; window " << w.width()
      << " x " << w.height();
  // The labels are laid out when the map is next drawn, after its resize.
  EXPECT_TRUE(QTest::qWaitFor([&] { return map->shownLabelFontPx() >= 28.0 * height / 1080 - 0.5; },
                              kTimeout))
      << map->shownLabelFontPx() << " px labels, " << map->data().rows << " tokens";
}

// The classroom mode: the map and the panel in front alone under a caption
// of the sentence and what the selected head shows, text sized for the
// screen, the red labels explained; keys go to the strongest sink and step
// through the demonstration sentences, the caption following; leaving brings
// the layout, the window's size and the docks' panels back.
TEST_F(MainWindowGui, TheClassroomModeShowsTheMapAndOnePanelLarge) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.resize(1400, 900);
  w.setSentence(QStringLiteral("A cat sat."));  // few tokens: labels as large as asked
  ASSERT_TRUE(show_with_model(w, dir, 3, 4));
  auto* model = w.findChild<QDockWidget*>(QStringLiteral("modelDock"));
  auto* persistence = w.findChild<QDockWidget*>(QStringLiteral("persistenceDock"));
  ASSERT_TRUE(model->isVisible());
  persistence->raise();
  QApplication::processEvents();
  const QSize normal = w.size();
  w.setPresenting(true);
  EXPECT_TRUE(w.presenting());
  EXPECT_EQ(w.presentedDock(), QStringLiteral("persistenceDock"));
  EXPECT_FALSE(model->isVisible());
  EXPECT_FALSE(persistence->isVisible());
  ui::PresentStage* stage = w.presentStage();
  ASSERT_NE(stage, nullptr);
  EXPECT_TRUE(stage->isAncestorOf(w.attentionView()));
  EXPECT_TRUE(stage->isAncestorOf(w.analysisPanels()->diagramView()));
  EXPECT_TRUE(w.analysisPanels()->diagramView()->isVisible());
  auto* legend = w.findChild<QLabel*>(QStringLiteral("presentLegend"));
  ASSERT_NE(legend, nullptr);
  EXPECT_TRUE(legend->isVisible());
  EXPECT_TRUE(legend->text().contains(QStringLiteral("Red token labels")));
  expect_classroom_sizes(w);
  EXPECT_GE(w.analysisPanels()->diagramView()->plot()->xAxis->tickLabelFont().pointSizeF(), 12.0);
  // The caption: the sentence that ran and the selected head's finding.
  const ui::TraceAnalysis& a = *w.lastRun()->analysis;
  EXPECT_TRUE(stage->sentenceShown().contains(QString::fromStdString(w.lastRun()->text)));
  EXPECT_EQ(stage->findingShown().toStdString(),
            document::sink_finding(a, w.selection()->layer(), w.selection()->head()));
  // S: the head whose queries give the first token the most attention.
  double best = -1;
  int bestLayer = -1, bestHead = -1;
  for (int l = 0; l < a.layers; ++l)
    for (int h = 0; h < a.heads; ++h)
      if (a.at(l, h).meanOverQueries.sinkAttention > best)
        best = a.at(l, h).meanOverQueries.sinkAttention, bestLayer = l, bestHead = h;
  QTest::keyClick(&w, Qt::Key_S);
  EXPECT_EQ(w.selection()->layer(), bestLayer);
  EXPECT_EQ(w.selection()->head(), bestHead);
  EXPECT_EQ(stage->findingShown().toStdString(), document::sink_finding(a, bestLayer, bestHead));
  // N: the first demonstration sentence runs, and the caption says it.
  QSignalSpy ran(&w, &ui::MainWindow::runFinished);
  QTest::keyClick(&w, Qt::Key_N);
  ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() >= 1; }, kTimeout));
  EXPECT_EQ(QString::fromStdString(w.lastRun()->text),
            QStringLiteral("The cat sat on the mat because it was tired."));
  EXPECT_TRUE(stage->sentenceShown().contains(QStringLiteral("The cat sat on the mat")));
  // Esc leaves: the layout, the size and the docks' panels come back.
  QTest::keyClick(&w, Qt::Key_Escape);
  EXPECT_FALSE(w.presenting());
  EXPECT_TRUE(QTest::qWaitFor([&] { return model->isVisible(); }, kTimeout));
  EXPECT_FALSE(legend->isVisible());
  EXPECT_TRUE(w.attentionDock()->isAncestorOf(w.attentionView()));
  EXPECT_TRUE(persistence->isAncestorOf(w.analysisPanels()->diagramView()));
  EXPECT_TRUE(QTest::qWaitFor([&] { return w.size() == normal; }, kTimeout))
      << w.width() << " x " << w.height();
  EXPECT_DOUBLE_EQ(w.attentionView()->textScale(), 1.0);
  EXPECT_TRUE(w.menuBar()->isVisible());
}

// A layout saved by an earlier run (here: the overview floated, the model
// dock wide) does not reach the classroom mode asked for at launch, and
// comes back exactly on leaving it.
TEST_F(MainWindowGui, TheClassroomModeIgnoresASavedLayoutAndRestoresIt) {
  QTemporaryDir dir;
  const QString folder = write_model_folder(dir, 2, 2);
  QRect floated;
  int modelWidth = 0;
  {
    ui::MainWindow earlier;
    earlier.resize(1300, 850);
    earlier.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&earlier));
    auto* overview = earlier.findChild<QDockWidget*>(QStringLiteral("overviewDock"));
    ASSERT_NE(overview, nullptr);
    overview->setFloating(true);
    overview->setGeometry(40, 40, 420, 300);
    earlier.resizeDocks({earlier.findChild<QDockWidget*>(QStringLiteral("modelDock"))}, {420},
                        Qt::Horizontal);
    QTest::qWait(200);
    floated = overview->geometry();
    modelWidth = earlier.findChild<QDockWidget*>(QStringLiteral("modelDock"))->width();
    earlier.close();
  }
  ui::MainWindow w;
  w.setSentence(QStringLiteral("A cat sat."));
  w.setPresenting(true);  // as --present: asked before the window is shown
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(folder);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.presenting() && w.lastRun() && w.lastRun()->analysis; }, kTimeout));
  auto* model = w.findChild<QDockWidget*>(QStringLiteral("modelDock"));
  auto* overview = w.findChild<QDockWidget*>(QStringLiteral("overviewDock"));
  EXPECT_FALSE(model->isVisible());
  EXPECT_FALSE(overview->isVisible());
  expect_classroom_sizes(w);
  QTest::keyClick(&w, Qt::Key_Escape);
  ASSERT_FALSE(w.presenting());
  EXPECT_TRUE(
      QTest::qWaitFor([&] { return model->isVisible() && overview->isVisible(); }, kTimeout));
  EXPECT_TRUE(overview->isFloating());
  EXPECT_NEAR(overview->width(), floated.width(), 10);
  EXPECT_NEAR(model->width(), modelWidth, 10);
}

// A training run opened while presenting (as --present --checkpoints does)
// takes the stage's panel, not a dock beside the stage; after Esc its dock
// is in front.
TEST_F(MainWindowGui, ATrainingOpenedWhilePresentingTakesTheStage) {
  const QString builtin =
      QStringLiteral(SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first");
  ui::MainWindow w;
  w.setSentence(QStringLiteral("A cat sat."));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(builtin);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->analysis; }, kTimeout));
  w.setPresenting(true);
  QSignalSpy emerged(&w, &ui::MainWindow::emergenceFinished);
  w.openCheckpoints(builtin);
  ASSERT_TRUE(QTest::qWaitFor([&] { return emerged.count() > 0; }, kTimeout));
  auto* checkpoints = w.findChild<QDockWidget*>(QStringLiteral("checkpointsDock"));
  ASSERT_NE(checkpoints, nullptr);
  EXPECT_FALSE(checkpoints->isVisible()) << "no dock beside the stage";
  EXPECT_TRUE(w.presentStage()->isAncestorOf(w.checkpointsPanel()));
  EXPECT_EQ(w.presentedDock(), QStringLiteral("checkpointsDock"));
  EXPECT_TRUE(w.profileDock()->isAncestorOf(w.profileView())) << "key importance back in its dock";
  expect_classroom_sizes(w);
  QTest::keyClick(&w, Qt::Key_Escape);
  EXPECT_TRUE(QTest::qWaitFor([&] { return checkpoints->isVisible(); }, kTimeout));
  EXPECT_TRUE(checkpoints->isAncestorOf(w.checkpointsPanel()));
}

// Save dialogs never start inside a model's folder.
TEST_F(MainWindowGui, SaveDialogsStartOutsideModelFolders) {
  QTemporaryDir dir;
  const QString model = write_model_folder(dir, 1, 1);
  EXPECT_EQ(ui::user_folder(model), QDir::homePath()) << "a folder with a config.json";
  EXPECT_EQ(ui::user_folder(dir.path()), dir.path());
  EXPECT_EQ(ui::user_folder(dir.filePath(QStringLiteral("gone"))), QDir::homePath());
  EXPECT_EQ(ui::user_folder(QString()), QDir::homePath());
}

// Above kTopologyForAllHeadsMaxTokens the run leaves per-head topology out and
// the panels compute the selected head's in the background: they say so
// while it runs, then draw it; heads never visited stay blank in the overview.
// A run whose maps are too large to keep for every layer keeps its residual
// stream, and a layer is recomputed when shown: off the window's thread, the
// panels saying so meanwhile, then every panel drawn from it.
namespace {

// A 3-layer model's run that keeps no layer (as a long input of a real-size
// model does), shown and analysed.
void show_run_keeping_no_layer(ui::MainWindow& w, const QTemporaryDir& dir) {
  w.resize(1400, 900);
  w.workspace()->setKeptAttentionBytes(0);
  w.setSentence(QStringLiteral("The keeper of the lighthouse wrote every night."));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(write_model_folder(dir, 3, 2));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.selection()->layerCount() == 3 && w.lastRun() && w.lastRun()->analysis; },
      kTimeout));
}

}  // namespace

TEST_F(MainWindowGui, LayersTheRunDoesNotKeepAreRecomputedInTheBackground) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_run_keeping_no_layer(w, dir));
  ASSERT_FALSE(w.lastRun()->trace->layerStored(2));
  const int T = w.lastRun()->tokenCount();
  auto mapOfLayer = [&](int layer) {
    const auto& d = w.attentionView()->data();
    return d.rows == T && q(d.title).contains(QStringLiteral("layer %1").arg(layer));
  };
  ASSERT_TRUE(QTest::qWaitFor([&] { return mapOfLayer(0); }, kTimeout))
      << w.attentionView()->data().title;

  ui::AnalysisPanels* panels = w.analysisPanels();
  w.selection()->setHead(1);
  w.selection()->setLayer(2);
  // Nothing was recomputed on this thread: the panels wait for the job (which
  // may already be done at this size; its result comes through the event loop).
  EXPECT_TRUE(panels->diagramView()->title().contains(QStringLiteral("Recomputing layer 2")))
      << panels->diagramView()->title().toStdString();
  ASSERT_TRUE(QTest::qWaitFor([&] { return mapOfLayer(2); }, kTimeout))
      << w.attentionView()->data().title;
  EXPECT_TRUE(w.lastRun()->layerAtHand(2));
  // The map drawn is the recomputed layer's.
  const analysis::AttentionMatrix expected = w.lastRun()->attention(2, 1);
  const auto& shown = w.attentionView()->data();
  for (int i = 0; i < T; ++i)
    EXPECT_NEAR(shown.values[static_cast<std::size_t>(i) * T], expected.view().at(i, 0), 1e-6) << i;
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return !panels->diagramView()->title().contains(QStringLiteral("Recomputing")); },
      kTimeout));
  // Miniature maps would need every layer at once: said, not computed.
  panels->setScore(ui::HeadScore::MiniatureMaps);
  EXPECT_TRUE(q(panels->overviewView()->data().title).contains(QStringLiteral("every layer")))
      << panels->overviewView()->data().title;
}

// A recompute the user cancels is not started again by itself: the panels
// say it was cancelled, and the next selection asks for the layer again.
TEST_F(MainWindowGui, ACancelledLayerRecomputeIsSaidAndAskedForAgainOnTheNextSelection) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_run_keeping_no_layer(w, dir));
  ui::JobRunner* jobs = w.workspace()->jobs();
  ASSERT_TRUE(jobs->waitForIdle(kTimeout));
  // Both workers busy, so that the fetch waits and sees its cancel before it starts.
  std::atomic<bool> release{false};
  for (int k = 0; k < 2; ++k)
    jobs->submit<bool>(QStringLiteral("hold a worker"),
                       [&release](const ui::JobProgress&) {
                         while (!release) QThread::msleep(2);
                         return true;
                       },
                       {});
  ui::AnalysisPanels* panels = w.analysisPanels();
  w.selection()->setLayer(2);
  EXPECT_TRUE(panels->diagramView()->title().contains(QStringLiteral("Recomputing layer 2")))
      << panels->diagramView()->title().toStdString();
  jobs->cancelGroup(QStringLiteral("layer"));
  release = true;
  ASSERT_TRUE(jobs->waitForIdle(kTimeout));
  QCoreApplication::processEvents();
  EXPECT_FALSE(w.lastRun()->layerAtHand(2));
  EXPECT_TRUE(panels->diagramView()->title().contains(QStringLiteral("was cancelled")))
      << panels->diagramView()->title().toStdString();
  EXPECT_TRUE(q(w.attentionView()->data().title).contains(QStringLiteral("was cancelled")))
      << w.attentionView()->data().title;
  // Not asked for again by itself.
  QTest::qWait(200);
  EXPECT_EQ(jobs->activeJobCount(), 0);
  // The next selection asks again, and the layer is drawn.
  w.selection()->setHead(1);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        const auto& d = w.attentionView()->data();
        return q(d.title).contains(QStringLiteral("layer 2")) && !q(d.title).contains("Recomput");
      },
      kTimeout))
      << w.attentionView()->data().title;
  EXPECT_TRUE(w.lastRun()->layerAtHand(2));
}

TEST_F(MainWindowGui, LongInputsComputeTheSelectedHeadsTopologyInTheBackground) {
  QTemporaryDir dir;
  const QString folder = write_model_folder(dir, 2, 2, QStringLiteral("long-llama"), std::nullopt,
                                            [](models::RandomModelSpec& spec) {
                                              spec.kv_heads = 1;
                                              spec.max_positions = 1024;
                                            });
  ui::MainWindow w;
  w.resize(1400, 900);
  QString text;
  while (text.size() < 1800) text += QStringLiteral("attention sinks in the model ");
  w.setSentence(text);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  // The map is on screen as soon as the forward pass is done, before the
  // analyses; the analysis panels say what they wait for meanwhile.
  int mapRowsAtRun = -1;
  QString waitingTitle;
  QObject::connect(&w, &ui::MainWindow::runFinished, &w, [&] {
    if (w.lastRun()->analysis) return;
    mapRowsAtRun = w.attentionView()->data().rows;
    waitingTitle = w.analysisPanels()->diagramView()->title();
  });
  w.openModelFolder(folder);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->analysis; }, kTimeout));
  const int T = w.lastRun()->tokenCount();
  EXPECT_EQ(mapRowsAtRun, T);
  // A long input's linear map is clipped at the 99th percentile, and says so.
  {
    const auto& map = w.attentionView()->data();
    EXPECT_LT(map.rangeMax, 1.0);
    EXPECT_TRUE(q(map.title).contains(QStringLiteral("99th percentile")))
        << q(map.title).toStdString();
    std::vector<float> visible;
    for (std::size_t k = 0; k < map.values.size(); ++k)
      if (!map.hidden[k]) visible.push_back(map.values[k]);
    const auto above = std::count_if(visible.begin(), visible.end(),
                                     [&](float v) { return v > map.rangeMax; });
    EXPECT_LE(above, static_cast<long>(visible.size() / 100 + 1));
  }
  // The attention graph of a long input keeps each token's 3 strongest edges,
  // not every edge above theta.
  {
    ui::AnalysisPanels* panels = w.analysisPanels();
    ASSERT_TRUE(raise_dock(&w, "graphDock", panels->graphView()));
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return static_cast<int>(panels->graphView()->data().points.size()) == T; }, kTimeout));
    EXPECT_LE(panels->graphView()->data().edges.size(), static_cast<std::size_t>(3 * T));
    EXPECT_TRUE(q(panels->graphView()->data().legend).contains(QStringLiteral("strongest")));
  }
  EXPECT_TRUE(waitingTitle.contains(QStringLiteral("Analysing"))) << waitingTitle.toStdString();
  ASSERT_GT(T, document::kTopologyForAllHeadsMaxTokens);
  ASSERT_LT(T, 1024);
  EXPECT_FALSE(w.lastRun()->analysis->topologyForAllHeads);
  EXPECT_TRUE(w.lastRun()->analysis->at(0, 0).persistence.h0.empty());
  EXPECT_EQ(w.attentionView()->data().rows, T);

  ui::AnalysisPanels* panels = w.analysisPanels();
  render::LinePlotView* diagram = panels->diagramView();
  auto drawn = [&] {
    return diagram->data().series.size() >= 2 &&
           diagram->data().series[0].x.size() == static_cast<std::size_t>(T);  // T H0 bars
  };
  ASSERT_TRUE(QTest::qWaitFor(drawn, kTimeout)) << diagram->title().toStdString();

  w.selection()->setHead(1);
  EXPECT_TRUE(diagram->title().contains(QStringLiteral("computing")))
      << diagram->title().toStdString();
  EXPECT_GT(panels->deferredResults()->pendingCount(), 0);
  ASSERT_TRUE(QTest::qWaitFor(drawn, kTimeout)) << diagram->title().toStdString();
  EXPECT_TRUE(diagram->title().contains(QStringLiteral("head 1")));
  // The spectrum is its own background result: the selected theta only.
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return !panels->spectrumView()->data().series.empty(); }, kTimeout));
  EXPECT_EQ(panels->spectrumView()->data().series.size(), 1u);
  EXPECT_EQ(panels->spectrumView()->data().series[0].y.size(), static_cast<std::size_t>(T));

  // Fiedler values: layer 0's heads were visited, layer 1's were not.
  panels->setScore(ui::HeadScore::Fiedler);
  const auto& cells = panels->overviewView()->data().hidden;
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_FALSE(cells[0]);
  EXPECT_FALSE(cells[1]);
  EXPECT_TRUE(cells[2]);
  EXPECT_TRUE(cells[3]);
}

// The graph's theta slider and the value space's N slider are the
// selection's threshold and top-N: moving one moves every panel, and a change
// made elsewhere moves the slider.
TEST_F(MainWindowGui, PanelSlidersDriveTheSelection) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  auto* theta = w.findChild<QSlider*>(QStringLiteral("graphThreshold"));
  auto* topN = w.findChild<QSlider*>(QStringLiteral("valueSpaceTopN"));
  ASSERT_NE(theta, nullptr);
  ASSERT_NE(topN, nullptr);
  theta->setValue(120);
  EXPECT_DOUBLE_EQ(w.selection()->threshold(), 0.12);
  EXPECT_TRUE(q(w.analysisPanels()->graphView()->data().title).contains(QStringLiteral("0.12")));
  w.selection()->setThreshold(0.2);
  EXPECT_EQ(theta->value(), 200);
  EXPECT_EQ(topN->maximum(), w.selection()->tokenCount());
  topN->setValue(5);
  EXPECT_EQ(w.selection()->topN(), 5);
  EXPECT_TRUE(
      q(w.analysisPanels()->valueSpaceView()->data().title).contains(QStringLiteral("N = 5")));
  w.selection()->setTopN(2);
  EXPECT_EQ(topN->value(), 2);
}

// A 32 x 32-head model: the overview keeps its labels, a click on the last
// cell selects the last head of the last layer, and the miniature maps (a
// grid of 32 x 32 maps) still map clicks back to heads.
TEST_F(MainWindowGui, TheOverviewIsUsableAt32By32Heads) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.resize(1400, 900);
  ASSERT_TRUE(show_with_model(w, dir, 32, 32));
  render::HeatMapView* overview = w.analysisPanels()->overviewView();
  ASSERT_TRUE(QTest::qWaitFor([&] { return overview->data().rows == 32; }, kTimeout));
  EXPECT_EQ(overview->data().cols, 32);
  EXPECT_TRUE(overview->hasLabels());
  ASSERT_TRUE(QTest::qWaitFor([&] { return overview->isVisible(); }, kTimeout));
  QTest::qWait(100);
  auto clickCell = [&](int row, int col) {
    vtkRenderer* r = overview->renderer();
    r->SetWorldPoint(col, overview->data().rows - 1 - row, 0.0, 1.0);
    r->WorldToDisplay();
    const double* d = r->GetDisplayPoint();
    const double ratio = overview->devicePixelRatioF();
    const QPoint at(static_cast<int>(d[0] / ratio),
                    static_cast<int>(overview->height() - d[1] / ratio));
    QTest::mousePress(overview, Qt::LeftButton, Qt::NoModifier, at);
    QTest::mouseRelease(overview, Qt::LeftButton, Qt::NoModifier, at);
  };
  clickCell(31, 31);
  EXPECT_EQ(w.selection()->layer(), 31);
  EXPECT_EQ(w.selection()->head(), 31);
  EXPECT_TRUE(QTest::qWaitFor(
      [&] {
        return q(w.attentionView()->data().title).contains(QStringLiteral("layer 31, head 31"));
      },
      kTimeout));
  w.analysisPanels()->setScore(ui::HeadScore::MiniatureMaps);
  const int block = overview->data().rows / 32 + 1;  // a map's side plus the gap
  ASSERT_GT(block, 1);
  clickCell(5 * block + 1, 7 * block + 1);
  EXPECT_EQ(w.selection()->layer(), 5);
  EXPECT_EQ(w.selection()->head(), 7);
}

// Every supported family drives every panel: a random model of each, run on
// the example sentence, fills the map, the plots and the 3-D views.
TEST_F(MainWindowGui, EveryFamilyDrivesEveryPanel) {
  for (const char* type : {"llama", "mistral", "qwen2", "gemma", "gemma2", "phi", "gpt_neox",
                           "gpt2", "bert", "roberta"}) {
    SCOPED_TRACE(type);
    QTemporaryDir dir;
    const QString folder = dir.filePath(QString::fromLatin1(type));
    models::RandomModelSpec spec = models::random_model_spec_for(type);
    spec.with_tokenizer = true;
    models::model_folder_write_random(folder.toStdString(), spec);
    ui::MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    w.openModelFolder(folder);
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->analysis; }, kTimeout))
        << w.jobStatus()->lastError().toStdString();
    const int T = w.lastRun()->tokenCount();
    ui::AnalysisPanels* panels = w.analysisPanels();
    EXPECT_EQ(w.attentionView()->data().rows, T);
    EXPECT_FALSE(panels->diagramView()->data().series.empty());
    EXPECT_FALSE(panels->spectrumView()->data().series.empty());
    EXPECT_FALSE(panels->layerSinkView()->data().series.empty());
    EXPECT_EQ(panels->graphView()->data().points.size(), static_cast<std::size_t>(T));
    EXPECT_FALSE(panels->valueSpaceView()->data().points.empty());
    EXPECT_EQ(panels->taxonomyView()->data().rows, w.selection()->layerCount());
  }
}

// Dropping the first token makes the two runs differ in length: side by side
// still lines the maps up from the top, every panel keeps drawing, and
// plots and the selection pair each token with itself.
TEST_F(MainWindowGui, SideBySideCopesWithRunsOfDifferentLengths) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  const int T = w.lastRun()->tokenCount();
  QSignalSpy finished(&w, &ui::MainWindow::interventionsFinished);
  w.comparisonChooser()->setComparison(ui::Comparison::SideBySide);
  w.interventionsPanel()->dropFirstToken();
  ASSERT_TRUE(finished.wait(kTimeout)) << w.jobStatus()->lastError().toStdString();
  ASSERT_EQ(w.intervenedRun()->tokenCount(), T - 1);
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.attentionView()->data().cols == T + 1 + (T - 1); }, kTimeout));
  const views::HeatMap& both = w.attentionView()->data();
  EXPECT_EQ(both.rows, T);
  // Each map keeps its own row labels (the right one's
  // first row is the intervened run's first token, not the plain run's).
  ASSERT_EQ(both.rowLabels.size(), static_cast<std::size_t>(T));
  ASSERT_EQ(both.rightRowLabels.size(), static_cast<std::size_t>(T));
  for (int r = 0; r < T; ++r)
    EXPECT_TRUE(q(both.rowLabels[static_cast<std::size_t>(r)])
                    .endsWith(QString::fromStdString(w.lastRun()->tokens.display[r])))
        << r;
  for (int r = 0; r + 1 < T; ++r)
    EXPECT_TRUE(q(both.rightRowLabels[static_cast<std::size_t>(r)])
                    .endsWith(QString::fromStdString(w.intervenedRun()->tokens.display[r])))
        << r;
  EXPECT_TRUE(both.rightRowLabels.back().empty()) << "the padding row has no label";
  ASSERT_TRUE(wait_for_frame(w.attentionView()));
  attention_area(w).save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/side-by-side-drop-first.png"));
  // The right map's last row is padding: hidden.
  for (int c = T + 1; c < both.cols; ++c)
    EXPECT_TRUE(both.hidden[static_cast<std::size_t>(T - 1) * both.cols + c]);
  for (int layer = 0; layer < 2; ++layer)
    for (int head = -1; head < 2; ++head) {
      w.selection()->setLayer(layer);
      w.selection()->setHead(head);
      QApplication::processEvents();
    }
  EXPECT_FALSE(w.analysisPanels()->diagramView()->data().series.empty());
  EXPECT_EQ(w.analysisPanels()->graphView()->data().points.size(), static_cast<std::size_t>(T - 1));
  // Key importance overlays the runs by token: the intervened run's key j is
  // the plain run's token j + 1 (not the old first token against the new one).
  w.selection()->setLayer(0);
  w.selection()->setHead(0);
  QApplication::processEvents();
  const auto& series = w.profileView()->data().series;
  ASSERT_GE(series.size(), 2u);
  ASSERT_EQ(series[0].x.size(), static_cast<std::size_t>(T - 1));
  for (int j = 0; j + 1 < T; ++j) {
    EXPECT_EQ(series[0].x[static_cast<std::size_t>(j)], j + 1.0);
    EXPECT_EQ(series[0].labels[static_cast<std::size_t>(j)], w.intervenedRun()->tokens.display[j]);
  }
  // The selection follows its token: A's query 2 is the intervened run's query 1,
  // and clicking the right map's row 1 selects A's token 2.
  w.selection()->setQueryToken(2);
  QApplication::processEvents();
  const int right = w.attentionView()->data().sideBySideSplit + 1;
  Q_EMIT w.attentionView()->cellClicked(1, right + 0);
  EXPECT_EQ(w.selection()->queryToken(), 2);
  EXPECT_EQ(w.selection()->keyToken(), 1) << "the right map's key 0 is A's token 1";
}

// The spectrum panel shows either Laplacian (metrics.md s. 3: the normalised
// one is optional): its eigenvalues are the run's cached ones and lie in [0, 2].
TEST_F(MainWindowGui, TheSpectrumShowsEitherLaplacian) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  w.selection()->setLayer(1);
  w.selection()->setHead(0);
  auto* normalised = w.findChild<QCheckBox*>(QStringLiteral("normalisedLaplacian"));
  ASSERT_NE(normalised, nullptr);
  const auto& cached = w.lastRun()->analysis->at(1, 0);
  render::LinePlotView* plot = w.analysisPanels()->spectrumView();
  auto firstSeries = [&] { return plot->data().series.at(0).y; };
  EXPECT_EQ(firstSeries(), cached.spectra[0].eigenvalues);
  normalised->setChecked(true);
  EXPECT_TRUE(plot->title().startsWith(QStringLiteral("Normalised")));
  EXPECT_EQ(firstSeries(), cached.normalisedSpectra[0].eigenvalues);
  for (const auto& series : plot->data().series)
    for (double v : series.y) EXPECT_LE(v, 2.0 + 1e-9);
  w.selection()->setThreshold(0.07);  // outside the cached set: computed for the head
  EXPECT_TRUE(plot->title().contains(QStringLiteral("\u03b8 0.07")));
  for (const auto& series : plot->data().series)
    for (double v : series.y) EXPECT_LE(v, 2.0 + 1e-9);
}

TEST_F(MainWindowGui, PanelsKeepRenderingWhenFloatedAndRedocked) {
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun().has_value(); }, kTimeout));
  ASSERT_TRUE(wait_for_frame(w.attentionView()));

  w.attentionDock()->setFloating(true);
  w.profileDock()->setFloating(true);
  ASSERT_TRUE(QTest::qWaitForWindowExposed(w.attentionDock()));
  ASSERT_TRUE(wait_for_frame(w.attentionView()));
  const QImage floated = w.attentionView()->grabFramebuffer();
  floated.save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/attention-floated.png"));
  EXPECT_TRUE(test::image_has_content(floated)) << "floated VTK view renders nothing";
  EXPECT_TRUE(test::image_has_content(w.profileView()->grab().toImage()));

  // A selection change reaches the floated panel too.
  w.selection()->setBounds(3, 2, w.selection()->tokenCount());
  w.selection()->setLayer(1);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return q(w.attentionView()->data().title).contains(QStringLiteral("layer 1")); },
      kTimeout));

  w.attentionDock()->setFloating(false);
  w.profileDock()->setFloating(false);
  ASSERT_TRUE(wait_for_frame(w.attentionView()));
  EXPECT_TRUE(test::image_has_content(w.attentionView()->grabFramebuffer()))
      << "re-docked view is blank";
  EXPECT_TRUE(test::image_has_content(attention_area(w)));
}

TEST_F(MainWindowGui, LayoutAndRecentModelsPersist) {
  QTemporaryDir dir;
  const QString model = write_model_folder(dir, 2, 2);
  {
    ui::MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    w.openModelFolder(model);
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.selection()->layerCount() == 2; }, kTimeout));
    w.profileDock()->setFloating(true);
    QTest::qWait(50);
    w.close();
  }
  {
    ui::MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    EXPECT_TRUE(w.profileDock()->isFloating()) << "the floated dock comes back floated";
    auto* chooser = w.findChild<QComboBox*>(QStringLiteral("modelChooser"));
    ASSERT_NE(chooser, nullptr);
    EXPECT_EQ(chooser->itemData(0).toString(), QDir::cleanPath(model));
    w.resetLayout();
    EXPECT_FALSE(w.profileDock()->isFloating());
    EXPECT_TRUE(w.attentionDock()->isVisible());
    w.close();
  }
}

TEST_F(MainWindowGui, BadInputIsReportedNotFatal) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(dir.filePath(QStringLiteral("does-not-exist")));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.jobStatus()->lastError().isEmpty(); }, kTimeout));
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("not a folder")))
      << w.jobStatus()->lastError().toStdString();
  EXPECT_TRUE(w.jobStatus()->lastErrorDetails().startsWith(QStringLiteral("Open model: ")));

  // The details dialog shows the whole report.
  QString shownDetails;
  QTimer::singleShot(200, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      shownDetails = box->detailedText();
      box->accept();
    }
  });
  w.jobStatus()->showErrorDetails();
  EXPECT_TRUE(shownDetails.contains(QStringLiteral("not a folder"))) << shownDetails.toStdString();

  w.setSentence(QStringLiteral("   \n\t "));
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.jobStatus()->lastError().contains(QStringLiteral("nothing to run")); },
      kTimeout));
  // Odd but valid input runs.
  w.setSentence(QStringLiteral("\u200d 👩‍👩‍👧 \u0085 <s> <|endoftext|> 東京"));
  w.runSentence();
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->tokens.size() >= 4; }, kTimeout));
}

// A hostile folder ends in a status-bar error that names the file
// and the problem; the window keeps the model it had and stays usable.
TEST_F(MainWindowGui, HostileModelFoldersAreReportedAndTheWindowStaysUsable) {
  namespace fs = std::filesystem;
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 4));
  const std::vector<std::string> tokens = w.lastRun()->tokens.display;
  const std::string source = w.lastRun()->source;
  const fs::path good = dir.filePath(QStringLiteral("tiny-llama")).toStdString();
  auto spoiled = [&](const std::string& name) {
    const fs::path copy = fs::path(dir.path().toStdString()) / name;
    fs::copy(good, copy, fs::copy_options::recursive);
    return copy;
  };
  auto rewrite = [](const fs::path& file, const std::string& text) {
    fs::remove(file);
    std::ofstream(file, std::ios::binary) << text;
  };
  std::vector<std::pair<fs::path, QString>> cases;
  {
    const fs::path f = spoiled("fifo");
    fs::remove(f / "config.json");
    ASSERT_EQ(mkfifo((f / "config.json").c_str(), 0600), 0);
    cases.emplace_back(f, QStringLiteral("config.json: is a FIFO"));
  }
  {
    const fs::path f = spoiled("empty-index");
    fs::rename(f / "model.safetensors", f / "shard.safetensors");
    rewrite(f / "model.safetensors.index.json", R"({"weight_map": {}})");
    cases.emplace_back(f, QStringLiteral("names no tensor"));
  }
  {
    const fs::path f = spoiled("outside");
    fs::remove(f / "model.safetensors");
    fs::create_symlink("/etc/passwd", f / "model.safetensors");
    cases.emplace_back(f, QStringLiteral("points outside the model folder"));
  }
  {
    const fs::path f = spoiled("deep");
    rewrite(f / "tokenizer.json", std::string(100000, '[') + std::string(100000, ']'));
    cases.emplace_back(f, QStringLiteral("tokenizer.json: JSON nested deeper than"));
  }
  for (const auto& [folder, message] : cases) {
    SCOPED_TRACE(folder.string());
    w.openModelFolder(QString::fromStdString(folder.string()));
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.jobStatus()->lastError().contains(message); },
                                60000))
        << w.jobStatus()->lastError().toStdString();
    EXPECT_TRUE(w.jobStatus()->lastErrorDetails().contains(QString::fromStdString(folder.string())))
        << w.jobStatus()->lastErrorDetails().toStdString();
    ASSERT_TRUE(w.lastRun());
    EXPECT_EQ(w.lastRun()->tokens.display, tokens) << "the window keeps the run it had";
    EXPECT_EQ(w.lastRun()->source, source);
    EXPECT_EQ(w.selection()->layerCount(), 2);
  }
  // Still usable: the selection moves and a good folder opens.
  w.selection()->setLayer(1);
  EXPECT_EQ(w.selection()->layer(), 1);
  w.openModelFolder(QString::fromStdString(good.string()));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.jobStatus()->lastError().isEmpty() && w.lastRun(); },
                              60000));
}

// The shown run's tensors as NPZ from the GUI, read by numpy.
// File > Export run tensors, waited for until the file is written.
bool export_tensors(ui::MainWindow& w, const QString& path) {
  w.exportRunTensors(path);
  return QTest::qWaitFor([&] { return QFile::exists(path) && w.jobs()->activeJobCount() == 0; },
                         60000);
}

TEST_F(MainWindowGui, TheShownRunExportsItsTensorsAsNpz) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 4));
  const QString path = dir.filePath(QStringLiteral("run.npz"));
  ASSERT_TRUE(export_tensors(w, path));
  const std::string command =
      "/usr/bin/python3 -c \"import numpy as np, json; d = np.load('" + path.toStdString() +
      "'); p = json.loads(str(d['params'])); a = d['attention']; "
      "assert a.shape == (2, 4, p['tokens'], p['tokens']), a.shape; "
      "assert np.allclose(a.sum(-1), 1, atol=1e-5); print(len(d['tokens']))\"";
  FILE* pipe = popen(command.c_str(), "r");
  char buf[64] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, pipe);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(std::string(buf, n), std::to_string(w.lastRun()->tokenCount()) + "\n");
}

// File > Save session with its run: the session and its run's capture beside
// it; moved where its model is found nowhere, the session opens from the
// capture (no model) at its selection; both files or neither.
TEST_F(MainWindowGui, ASessionSavedWithItsRunOpensWithoutItsModel) {
  QTemporaryDir dir, sent;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 4));
  ASSERT_NE(w.findChild<QAction*>(QStringLiteral("saveSessionWithRunAction")), nullptr);
  w.selection()->setLayer(1);
  w.selection()->setHead(3);
  const auto atPlace = [](ui::MainWindow& window) {
    return window.attentionView() &&
           q(window.attentionView()->data().title).contains(QStringLiteral("layer 1, head 3"));
  };
  ASSERT_TRUE(QTest::qWaitFor([&] { return atPlace(w); }, kTimeout));
  const QString session = sent.filePath(QStringLiteral("run.sinkscope"));
  // The weights were hashed in the background since the model opened: the
  // session names them (whatever the model's size).
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.workspace()->hashingWeights(); }, kTimeout));
  ASSERT_TRUE(w.saveSessionWithRun(session));
  EXPECT_TRUE(QFile::exists(sent.filePath(QStringLiteral("run.capture.npz"))));
  EXPECT_EQ(ui::session_read(session.toStdString()).weightsSha256,
            models::weight_files_sha256(w.model()->model->folder()));
  EXPECT_EQ(ui::session_read(session.toStdString()).weightsSha256.size(), 64u);
  const std::vector<float> shown = w.attentionView()->data().values;
  // The model gone: neither where it was, nor beside the session, nor cached.
  ASSERT_TRUE(QDir(dir.path()).removeRecursively());
  ui::MainWindow other;
  other.show();
  QSignalSpy applied(&other, &ui::MainWindow::sessionApplied);
  other.openSession(session);
  ASSERT_TRUE(QTest::qWaitFor([&] { return applied.count() == 1; }, kTimeout))
      << other.jobStatus()->lastError().toStdString();
  EXPECT_FALSE(other.model().has_value());
  EXPECT_NE(other.lastRun()->source.find("(capture)"), std::string::npos);
  EXPECT_EQ(other.selection()->layer(), 1);
  EXPECT_EQ(other.selection()->head(), 3);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return atPlace(other) && other.attentionView()->data().values == shown; }, kTimeout))
      << "layer 1, head 3 of the capture is the model's map";
  // A session file that cannot be written leaves no capture behind.
  const QString blocked = sent.filePath(QStringLiteral("folder.sinkscope"));
  ASSERT_TRUE(QDir(sent.path()).mkdir(QStringLiteral("folder.sinkscope")));
  EXPECT_FALSE(w.saveSessionWithRun(blocked)) << "a folder where the session would go";
  EXPECT_FALSE(QFile::exists(sent.filePath(QStringLiteral("folder.capture.npz"))));
  EXPECT_FALSE(other.saveSessionWithRun(sent.filePath(QStringLiteral("none.sinkscope"))))
      << "no model's run in the other window";
}

// Help > Metric definitions shows docs/metrics.md as built in; Help >
// Keyboard shortcuts lists the menus' keys, those the window handles itself too.
TEST_F(MainWindowGui, HelpShowsTheMetricDefinitionsAndTheKeyboardShortcuts) {
  ui::MainWindow w;
  w.show();
  w.findChild<QAction*>(QStringLiteral("metricDefinitionsAction"))->trigger();
  auto* definitions = w.findChild<QTextBrowser*>(QStringLiteral("metricDefinitionsText"));
  ASSERT_NE(definitions, nullptr);
  const QString text = definitions->toPlainText();
  EXPECT_TRUE(text.contains(QStringLiteral("SinkScope metric definitions")))
      << text.left(200).toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("Reading:"))) << "the readings are marked";
  EXPECT_TRUE(text.contains(QStringLiteral("sink_summary.csv")));
  definitions->window()->grab().save(
      QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/metric-definitions.png"));
  w.findChild<QAction*>(QStringLiteral("keyboardShortcutsAction"))->trigger();
  auto* keys = w.findChild<QTextBrowser*>(QStringLiteral("keyboardShortcutsText"));
  ASSERT_NE(keys, nullptr);
  const QString listed = keys->toPlainText();
  for (const char* expected :
       {"F5", "Next layer", "Down", "Head with the strongest sink", "Next demonstration sentence"})
    EXPECT_TRUE(listed.contains(QString::fromUtf8(expected))) << expected;
  keys->window()->grab().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/keyboard-shortcuts.png"));
}

// File > Share as web page: the shown run as one HTML file, every head in
// it (its data object's heads), with the run's sentence and tokens; the menu
// has the item.
TEST_F(MainWindowGui, TheShownRunIsSharedAsOneWebPage) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 4));
  ASSERT_NE(w.findChild<QAction*>(QStringLiteral("shareWebPageAction")), nullptr);
  const QString path = dir.filePath(QStringLiteral("run.html"));
  w.shareAsWebPage(path);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return QFile::exists(path) && w.jobs()->activeJobCount() == 0; }, 60000));
  QFile page(path);
  ASSERT_TRUE(page.open(QIODevice::ReadOnly));
  const std::string html = page.readAll().toStdString();
  const std::size_t start = html.find('>', html.find("id=\"sinkscope-data\"")) + 1;
  const nlohmann::json data =
      nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
  EXPECT_EQ(data["format"], "sinkscope-web-page");
  EXPECT_EQ(data["heads"].size(), 8u) << "2 layers x 4 heads";
  EXPECT_EQ(data["sentence"], w.lastRun()->text);
  EXPECT_EQ(data["tokens"].size(), static_cast<std::size_t>(w.lastRun()->tokenCount()));
}

// File > Open capture: the run's own tensors, opened as a capture, draw the
// same map with no model open; what reruns the model says why it cannot.
TEST_F(MainWindowGui, ACaptureOpensInThePanelsAndSaysWhatItCannotDo) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 4));
  const QString path = dir.filePath(QStringLiteral("run.npz"));
  ASSERT_TRUE(export_tensors(w, path));
  w.selection()->setLayer(1);
  w.selection()->setHead(3);
  const auto shown = [&] { return w.attentionView() ? w.attentionView()->data().values : std::vector<float>{}; };
  const auto atPlace = [&] {
    return w.attentionView() &&
           q(w.attentionView()->data().title).contains(QStringLiteral("layer 1, head 3"));
  };
  ASSERT_TRUE(QTest::qWaitFor(atPlace, kTimeout));
  const std::vector<float> fromModel = shown();
  const int tokens = w.lastRun()->tokenCount();
  QSignalSpy opened(&w, &ui::MainWindow::captureOpened);
  QSignalSpy analysed(&w, &ui::MainWindow::analysisFinished);
  w.openCapture(path);
  ASSERT_TRUE(QTest::qWaitFor([&] { return opened.count() == 1 && analysed.count() >= 1; }, 60000));
  EXPECT_FALSE(w.model().has_value());
  EXPECT_EQ(w.lastRun()->tokenCount(), tokens);
  EXPECT_TRUE(QString::fromStdString(w.lastRun()->source).contains(QStringLiteral("(capture)")));
  EXPECT_TRUE(w.findChild<QLabel*>(QStringLiteral("modelSummary"))->text().startsWith(QStringLiteral("Capture run.npz")));
  ASSERT_TRUE(QTest::qWaitFor([&] { return atPlace() && shown() == fromModel; }, kTimeout))
      << "layer 1, head 3 of the capture is the model's map";
  models::Intervention drop;
  drop.dropFirstToken = true;
  w.selection()->setInterventions(drop);
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("a capture holds its attention only")))
      << w.jobStatus()->lastError().toStdString();
  w.computeHeadAblation();
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("a capture holds its attention only")));
  // The model chooser and the sentence box no longer show the model and
  // sentence before; Run (and Ctrl+Enter) wait for a model, saying why.
  auto* chooser = w.findChild<QComboBox*>(QStringLiteral("modelChooser"));
  EXPECT_EQ(chooser->currentIndex(), -1);
  EXPECT_TRUE(chooser->placeholderText().contains(QStringLiteral("run.npz")));
  auto* box = w.findChild<QPlainTextEdit*>(QStringLiteral("sentenceBox"));
  EXPECT_TRUE(box->isReadOnly());
  EXPECT_TRUE(box->toPlainText().startsWith(QStringLiteral("The capture's %1 tokens").arg(tokens)));
  EXPECT_FALSE(w.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
  w.runSentence();
  EXPECT_TRUE(
      w.jobStatus()->lastError().contains(QStringLiteral("open a model to run a sentence")));
  EXPECT_TRUE(w.lastRun()->source.find("(capture)") != std::string::npos) << "the capture stays";
  // A damaged capture is an error in the status bar, and the capture stays.
  QFile bad(dir.filePath(QStringLiteral("bad.npz")));
  ASSERT_TRUE(bad.open(QIODevice::WriteOnly));
  bad.write("not a zip");
  bad.close();
  QSignalSpy failed(w.jobs(), &ui::JobRunner::jobFailed);
  w.openCapture(bad.fileName());
  ASSERT_TRUE(QTest::qWaitFor([&] { return failed.count() == 1; }, kTimeout));
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("not a readable .npz")))
      << w.jobStatus()->lastError().toStdString();
  EXPECT_EQ(w.lastRun()->tokenCount(), tokens);
}

// With the head average selected, the head-specific
// interventions are disabled and say why, instead of doing nothing silently.
TEST_F(MainWindowGui, HeadInterventionsNeedAHead) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 4));
  auto* ablate = w.findChild<QPushButton*>(QStringLiteral("ablateHeadButton"));
  auto* sinks = w.findChild<QPushButton*>(QStringLiteral("removeHeadSinksButton"));
  ASSERT_TRUE(ablate && sinks);
  w.selection()->setHead(ui::SelectionModel::kHeadAverage);
  EXPECT_FALSE(ablate->isEnabled());
  EXPECT_FALSE(sinks->isEnabled());
  EXPECT_TRUE(ablate->toolTip().contains(QStringLiteral("head average")));
  w.selection()->setHead(2);
  ASSERT_TRUE(ablate->isEnabled());
  ablate->click();
  EXPECT_EQ(w.selection()->interventions().ablateHeads, (std::vector<models::HeadId>{{0, 2}}));
}

// "Difference" after "Drop first token" (runs of different
// lengths) says that no difference can be drawn, in the map and the status bar.
TEST_F(MainWindowGui, DifferenceOfRunsOfDifferentLengthsIsRefusedVisibly) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  QSignalSpy finished(&w, &ui::MainWindow::interventionsFinished);
  w.comparisonChooser()->setComparison(ui::Comparison::Difference);
  w.interventionsPanel()->dropFirstToken();
  ASSERT_TRUE(finished.wait(60000)) << w.jobStatus()->lastError().toStdString();
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return q(w.attentionView()->data().title).contains(QStringLiteral("no difference")); },
      60000))
      << q(w.attentionView()->data().title).toStdString();
  EXPECT_TRUE(w.statusBar()->currentMessage().contains(QStringLiteral("different tokens")))
      << w.statusBar()->currentMessage().toStdString();
}

// A model folder that cannot be opened at start leaves the
// uniform baseline over the sentence's words on screen, not a blank map.
TEST_F(MainWindowGui, ABadModelAtStartShowsTheUniformBaseline) {
  QTemporaryDir dir;
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.setSentence(QStringLiteral("the cat sat on the mat"));
  w.openModelFolder(dir.filePath(QStringLiteral("no-such-model")));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun().has_value(); }, 60000))
      << w.jobStatus()->lastError().toStdString();
  EXPECT_FALSE(w.lastRun()->trace) << "the uniform baseline, not a model run";
  EXPECT_EQ(w.lastRun()->tokenCount(), 6);
  EXPECT_FALSE(w.jobStatus()->lastError().isEmpty()) << "the error stays reported";
  EXPECT_EQ(w.attentionView()->data().rows, 6);
}

// A tooltip request over a map cell shows the cell, not
// the panel's help text (which used to win after What's This? was used).
TEST_F(MainWindowGui, CellTooltipsShowTheCellNotTheHelpText) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  render::HeatMapView* map = w.attentionView();
  ASSERT_TRUE(wait_for_frame(map));
  const QPoint target = cell_pixel(map, 1, 0);
  ASSERT_GE(target.x(), 0);
  QWhatsThis::enterWhatsThisMode();
  QWhatsThis::leaveWhatsThisMode();
  QHelpEvent help(QEvent::ToolTip, target, map->mapToGlobal(target));
  QApplication::sendEvent(map, &help);
  ASSERT_TRUE(QTest::qWaitFor([] { return QToolTip::isVisible(); }, kTimeout));
  EXPECT_TRUE(QToolTip::text().contains(map->cellText(1, 0))) << QToolTip::text().toStdString();
  EXPECT_FALSE(QToolTip::text().contains(QStringLiteral("row = query token")))
      << QToolTip::text().toStdString();
}

// A model that opens but cannot run the sentence (more
// tokens than its positions) must not leave the previous model's run on
// screen under the new name: the panels show the sentence's uniform baseline
// and the error stays reported.
TEST_F(MainWindowGui, AFailedRunOnANewModelDoesNotShowTheOldRun) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  ASSERT_TRUE(w.lastRun()->trace);
  models::RandomModelSpec spec = models::random_model_spec_for("gpt2");
  spec.max_positions = 8;
  spec.with_tokenizer = true;
  const QString small = dir.filePath(QStringLiteral("eight-positions"));
  models::model_folder_write_random(small.toStdString(), spec);
  w.setSentence(QStringLiteral("one two three four five six seven eight nine ten eleven"));
  w.openModelFolder(small);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        return w.jobStatus()->lastError().contains(QStringLiteral("maximum")) &&
               w.lastRun() && !w.lastRun()->trace;
      },
      60000))
      << w.jobStatus()->lastError().toStdString();
  EXPECT_EQ(w.lastRun()->tokenCount(), 11) << "the sentence's words, the uniform baseline";
  EXPECT_EQ(w.selection()->tokenCount(), 11);
}

// The Examples button opens a search box over a short
// list (not a menu of 500 sentences), and picking a sentence runs it.
TEST_F(MainWindowGui, ExamplesAreSearchedAndAPickRuns) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  // The default layout has Key importance in front of its tabs (the hidden
  // Study tab beside them must not change that).
  EXPECT_TRUE(w.profileView()->isVisible());
  auto* picker = w.findChild<ui::ExamplePicker*>(QStringLiteral("examplePicker"));
  ASSERT_NE(picker, nullptr);
  EXPECT_GE(picker->list()->count(), 100) << "every example is there to search";
  EXPECT_LE(picker->list()->height(), 400) << "a short list, not a screen-filling menu";
  picker->searchBox()->setText(QStringLiteral("MOTION PICTURE"));
  ASSERT_GE(picker->list()->count(), 1);
  for (int k = 0; k < picker->list()->count(); ++k)
    EXPECT_TRUE(picker->list()->item(k)->text().contains(QStringLiteral("motion picture"),
                                                         Qt::CaseInsensitive));
  picker->adjustSize();  // kept for a look: the search box over its short list
  picker->grab().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/examples-picker.png"));
  const QString chosen = picker->list()->item(0)->text();
  QSignalSpy ran(&w, &ui::MainWindow::runFinished);
  Q_EMIT picker->list()->itemActivated(picker->list()->item(0));
  EXPECT_EQ(w.sentence(), chosen);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        return ran.count() >= 1 && w.lastRun() &&
               QString::fromStdString(w.lastRun()->text) == chosen;
      },
      kTimeout));
}

// The model chooser lists the Hugging Face cache's models by
// repository and revision with their family and size, and opens one by name.
TEST_F(MainWindowGui, TheModelChooserListsCacheModelsWithRevisionFamilyAndSize) {
  QTemporaryDir dir;
  const QString source = write_model_folder(dir, 1, 2);
  const std::filesystem::path repo =
      std::filesystem::path(dir.path().toStdString()) / "hub" / "models--acme--tiny-llama";
  const std::filesystem::path snapshot = repo / "snapshots" / "0123456789abcdef";
  std::filesystem::create_directories(repo / "refs");
  std::filesystem::create_directories(snapshot);
  std::filesystem::copy(source.toStdString(), snapshot, std::filesystem::copy_options::recursive);
  std::ofstream(repo / "refs" / "main") << "0123456789abcdef";
  qputenv("HF_HUB_CACHE", QByteArray::fromStdString((std::filesystem::path(dir.path().toStdString()) / "hub").string()));
  ui::MainWindow w;
  auto* chooser = w.findChild<QComboBox*>(QStringLiteral("modelChooser"));
  qunsetenv("HF_HUB_CACHE");
  ASSERT_NE(chooser, nullptr);
  int at = -1;
  for (int k = 0; k < chooser->count(); ++k)
    if (chooser->itemText(k).startsWith(QStringLiteral("acme/tiny-llama (main) (cache)"))) at = k;
  ASSERT_GE(at, 0);
  const QString text = chooser->itemText(at);
  EXPECT_TRUE(text.contains(QStringLiteral("llama"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral(" kB")) || text.contains(QStringLiteral(" MB"))) << text.toStdString();
  EXPECT_FALSE(text.contains(QStringLiteral("0123456789abcdef"))) << "never the snapshot hash";
  EXPECT_EQ(chooser->itemData(at).toString(), QStringLiteral("acme/tiny-llama")) << "opened by its name";
}

// The head view follows the selection (one head, or every
// head of the layer for the average or when ticked) and a click on a token
// selects it as the query (left) or key (right) in every panel.
TEST_F(MainWindowGui, TheHeadViewFollowsTheSelectionAndSelectsTokens) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 3));
  render::HeadView* view = w.analysisPanels()->headView();
  ASSERT_NE(view, nullptr);
  w.selection()->setLayer(1);
  w.selection()->setHead(2);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return q(view->data().title).contains(QStringLiteral("layer 1, head 2")); }, kTimeout));
  EXPECT_EQ(view->data().heads.size(), 1u);
  EXPECT_EQ(view->data().tokens.size(), static_cast<std::size_t>(w.lastRun()->tokenCount()));
  // The weights are the run's map of that head.
  const analysis::AttentionMatrix map = w.lastRun()->attention(1, 2);
  const std::size_t T = view->data().tokens.size();
  EXPECT_FLOAT_EQ(view->data().heads[0].weights[(T - 1) * T], static_cast<float>(map.view().at(static_cast<int>(T) - 1, 0)));
  w.selection()->setHead(ui::SelectionModel::kHeadAverage);
  ASSERT_TRUE(QTest::qWaitFor([&] { return view->data().heads.size() == 3u; }, kTimeout));
  w.selection()->setHead(0);
  ASSERT_TRUE(QTest::qWaitFor([&] { return view->data().heads.size() == 1u; }, kTimeout));
  auto* all = w.findChild<QCheckBox*>(QStringLiteral("headViewAllHeads"));
  ASSERT_NE(all, nullptr);
  all->setChecked(true);
  ASSERT_TRUE(QTest::qWaitFor([&] { return view->data().heads.size() == 3u; }, kTimeout));

  // A click on the second query token on the left selects it.
  w.findChild<QDockWidget*>(QStringLiteral("headViewDock"))->raise();
  ASSERT_TRUE(QTest::qWaitFor([&] { return view->isVisible(); }, kTimeout));
  QTest::qWait(100);
  QPoint at(-1, -1);
  for (int y = 0; y < view->height() && at.x() < 0; ++y)
    if (render::head_view_token_at(view->data(), view->width(), view->height(), 9.0, QPointF(20, y),
                                   view->font().family()) == std::pair{0, 1})
      at = {20, y};
  ASSERT_GE(at.x(), 0);
  QTest::mouseClick(view, Qt::LeftButton, {}, at);
  EXPECT_EQ(w.selection()->queryToken(), 1);
}

// A training run's checkpoints in the Checkpoints dock: the
// last one opens, the slider opens any other (every panel follows), and the
// emergence plot has alpha_0 per layer at every step, equal to each
// checkpoint's own run of the sentence.
// A model folder that holds its own training run offers it in the File menu:
// one click opens its checkpoints and the emergence plot, the final model last.
TEST_F(MainWindowGui, AModelWithItsTrainingOffersItInOneClick) {
  QTemporaryDir dir;
  const std::filesystem::path root = std::filesystem::path(dir.path().toStdString()) / "run";
  auto write = [](const std::filesystem::path& folder, int seed) {
    models::RandomModelSpec spec = models::random_model_spec_for("llama");
    spec.layers = 2;
    spec.heads = 2;
    spec.hidden = 16;
    spec.seed = static_cast<std::uint64_t>(seed);
    spec.with_tokenizer = true;
    models::model_folder_write_random(folder, spec);
  };
  write(root / "checkpoints" / "step-100", 100);
  write(root / "checkpoints" / "step-200", 200);
  write(root, 300);  // the final model, at the step its recipe names
  std::ofstream(root / "recipe.json") << R"({"steps": 300})";
  const std::filesystem::path plain = std::filesystem::path(dir.path().toStdString()) / "plain";
  write(plain, 7);

  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.setSentence(QStringLiteral("A cat sat."));
  auto* training = w.findChild<QAction*>(QStringLiteral("modelTrainingAction"));
  ASSERT_NE(training, nullptr);
  w.openModelFolder(QString::fromStdString(plain.string()));
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.model() && w.model()->model->folder() == plain; }, kTimeout));
  EXPECT_FALSE(training->isEnabled()) << "a model without checkpoints has no training to show";
  w.openModelFolder(QString::fromStdString(root.string()));
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return w.model() && w.model()->model->folder() == root; }, kTimeout));
  ASSERT_TRUE(training->isEnabled());
  QSignalSpy emerged(&w, &ui::MainWindow::emergenceFinished);
  training->trigger();
  ASSERT_TRUE(QTest::qWaitFor([&] { return emerged.count() > 0; }, kTimeout));
  ASSERT_EQ(w.checkpointsPanel()->checkpoints().size(), 3u);
  EXPECT_TRUE(w.checkpointsPanel()->checkpoints().back().final);
  EXPECT_EQ(w.checkpointsPanel()->emergenceView()->data().series.front().x,
            (std::vector<double>{100, 200, 300}));
  EXPECT_EQ(w.model()->model->folder(), root) << "the final model stays open";
  const auto* label = w.findChild<QLabel*>(QStringLiteral("checkpointsFolderLabel"));
  ASSERT_NE(label, nullptr);
  EXPECT_TRUE(label->text().endsWith(QStringLiteral("3 checkpoints, steps 100 to 300")))
      << label->text().toStdString() << ": every checkpoint is shown, so no note";
  // At the window's default size the plot has room under its title and the
  // slider a row of its own (a demonstration drags it).
  ui::CheckpointsPanel* panel = w.checkpointsPanel();
  ASSERT_TRUE(QTest::qWaitFor([&] { return panel->isVisible(); }, kTimeout));
  QApplication::processEvents();
  const auto* slider = panel->findChild<QSlider*>(QStringLiteral("checkpointSlider"));
  ASSERT_NE(slider, nullptr);
  EXPECT_GE(slider->width(), panel->width() * 2 / 3)
      << "slider " << slider->width() << " of " << panel->width();
  const QCPAxisRect* axes = panel->emergenceView()->plot()->axisRect();
  EXPECT_GE(axes->height(), 100) << "the emergence plot's axes, window " << w.width() << " x "
                                 << w.height();
  EXPECT_GE(panel->emergenceView()->width(), panel->width() / 2);
}

TEST_F(MainWindowGui, CheckpointsPlayBackOverTraining) {
  QTemporaryDir dir;
  const std::filesystem::path root = std::filesystem::path(dir.path().toStdString()) / "run";
  std::vector<std::filesystem::path> folders;
  for (int step : {100, 200, 300}) {
    models::RandomModelSpec spec = models::random_model_spec_for("llama");
    spec.layers = 2;
    spec.heads = 2;
    spec.hidden = 16;
    spec.seed = static_cast<std::uint64_t>(step);  // each checkpoint its own weights
    spec.with_tokenizer = true;
    folders.push_back(root / "checkpoints" / ("step-" + std::to_string(step)));
    models::model_folder_write_random(folders.back(), spec);
  }
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.setSentence(QStringLiteral("A cat sat."));
  QSignalSpy emerged(&w, &ui::MainWindow::emergenceFinished);
  w.openCheckpoints(QString::fromStdString(root.string()));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.model() && w.lastRun() && w.lastRun()->analysis; }, kTimeout));
  EXPECT_EQ(w.model()->model->folder(), folders.back()) << "the last checkpoint opens first";
  ASSERT_TRUE(QTest::qWaitFor([&] { return emerged.count() > 0; }, kTimeout));
  const views::LinePlot& plot = w.checkpointsPanel()->emergenceView()->data();
  ASSERT_EQ(plot.series.size(), 4u)
      << "one curve per layer, the model's (dashed), the uniform head's (reference)";
  EXPECT_TRUE(plot.series[3].reference);
  EXPECT_TRUE(plot.series[2].dashed);
  EXPECT_EQ(plot.series[0].x, (std::vector<double>{100, 200, 300}));
  // Each point: that checkpoint's alpha_0, mean over its heads, recomputed here.
  for (std::size_t c = 0; c < folders.size(); ++c) {
    const models::LoadedModel model = models::loaded_model_open(folders[c].string());
    const models::SentenceTrace run = models::loaded_model_run(model, "A cat sat.");
    for (int l = 0; l < 2; ++l) {
      const models::LayerCapture cap = run.trace.layer(l);
      double sum = 0;
      for (int h = 0; h < 2; ++h) sum += analysis::sink_key_importance(cap.attentionOf(h))[0];
      EXPECT_NEAR(plot.series[static_cast<std::size_t>(l)].y[c], sum / 2, 1e-12) << "step " << c << " layer " << l;
      // The overview against training: every head at every step.
      const views::HeatMap& grid = w.checkpointsPanel()->emergenceGrid();
      ASSERT_EQ(grid.rows, 4);
      ASSERT_EQ(grid.cols, 3);
      for (int h = 0; h < 2; ++h)
        EXPECT_FLOAT_EQ(grid.values[static_cast<std::size_t>(l * 2 + h) * 3 + c],
                        static_cast<float>(analysis::sink_key_importance(cap.attentionOf(h))[0]));
    }
  }
  // Other metrics from the same numbers: the mean boost, and the share of heads above eps.
  {
    const models::LoadedModel model = models::loaded_model_open(folders[1].string());
    const models::SentenceTrace run = models::loaded_model_run(model, "A cat sat.");
    const double uniform0 = analysis::sink_uniform_baseline(run.trace.tokens(), 0, run.trace.causal());
    const models::LayerCapture cap = run.trace.layer(1);
    double boost = 0, rate = 0, strong = 0, everyHead = 0;
    for (int h = 0; h < 2; ++h) {
      const double a = analysis::sink_key_importance(cap.attentionOf(h))[0];
      boost += a / uniform0 / 2;
      rate += (a > 0.3 ? 1.0 : 0.0) / 2;
      strong += (a / uniform0 >= 3.0 ? 1.0 : 0.0) / 2;
    }
    for (int l = 0; l < 2; ++l) {
      const models::LayerCapture layer = run.trace.layer(l);
      for (int h = 0; h < 2; ++h) everyHead += analysis::sink_key_importance(layer.attentionOf(h))[0] / 4;
    }
    EXPECT_NEAR(w.checkpointsPanel()->emergenceView()->data().series[2].y[1], everyHead, 1e-12)
        << "the dashed curve: every head of the model";
    w.checkpointsPanel()->setMetric(ui::EmergenceMetric::Boost);
    EXPECT_NEAR(w.checkpointsPanel()->emergenceView()->data().series[1].y[1], boost, 1e-12);
    EXPECT_TRUE(
        w.checkpointsPanel()->emergenceView()->title().contains(QStringLiteral("sink boost")));
    w.checkpointsPanel()->setMetric(ui::EmergenceMetric::SinkRate);
    EXPECT_NEAR(w.checkpointsPanel()->emergenceView()->data().series[1].y[1], rate, 1e-12);
    w.checkpointsPanel()->setMetric(ui::EmergenceMetric::StrongBoost);
    EXPECT_NEAR(w.checkpointsPanel()->emergenceView()->data().series[1].y[1], strong, 1e-12);
    EXPECT_TRUE(
        w.checkpointsPanel()->emergenceView()->title().contains(QStringLiteral("boost >= 3")));
    w.checkpointsPanel()->setMetric(ui::EmergenceMetric::Alpha0);
  }
  // The slider opens another checkpoint; the panels show it.
  w.checkpointsPanel()->choose(0);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.model() && w.model()->model->folder() == folders.front() && w.lastRun() && w.lastRun()->analysis; },
      kTimeout));
  // The emergence plot marks the checkpoint open now; visiting it with the
  // slider does not add it to Recent models.
  EXPECT_TRUE(w.checkpointsPanel()->isIntermediateStep(folders.front()));
  EXPECT_EQ(w.checkpointsPanel()->emergenceView()->data().markedX,
            w.checkpointsPanel()->emergenceView()->data().series[0].x.front());
  auto* chooser = w.findChild<QComboBox*>(QStringLiteral("modelChooser"));
  ASSERT_NE(chooser, nullptr);
  for (int k = 0; k < chooser->count(); ++k)
    EXPECT_NE(QDir::cleanPath(chooser->itemData(k).toString()),
              QDir::cleanPath(QString::fromStdString(folders.front().string())))
        << "a visited step is not a recent model";
  // A folder without checkpoints says so.
  w.openCheckpoints(dir.path());
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("no checkpoints")));
}

// Another sentence (same model) or another model (same
// text, same shape: checkpoints) beside the current run in every panel, each
// run with its own tokens, named A | B or by the models; a model of another
// shape is refused with the reason; interventions end a comparison.
TEST_F(MainWindowGui, TwoSentencesOrTwoModelsSideBySide) {
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  QSignalSpy compared(&w, &ui::MainWindow::comparisonFinished);
  w.compareWithSentence(QStringLiteral("zz yy"));
  ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() == 1; }, kTimeout));
  EXPECT_EQ(w.leftRunName(), QStringLiteral("A"));
  EXPECT_EQ(w.rightRunName(), QStringLiteral("B"));
  ASSERT_TRUE(w.intervenedRun().has_value());
  EXPECT_EQ(QString::fromStdString(w.intervenedRun()->text), QStringLiteral("zz yy"));
  EXPECT_EQ(w.comparisonChooser()->comparison(), ui::Comparison::SideBySide);
  const views::HeatMap& map = w.attentionView()->data();
  ASSERT_GE(map.sideBySideSplit, 0);
  EXPECT_EQ(map.rows, std::max(w.lastRun()->tokenCount(), w.intervenedRun()->tokenCount()));
  // Each run named once in the title, and under its half of the map.
  EXPECT_TRUE(q(map.title).startsWith(QStringLiteral("A: layer 0, head 0 | B: layer 0, head 0 | ")))
      << q(map.title).toStdString();
  EXPECT_EQ(w.attentionView()->shownRunNames(), (std::pair{QStringLiteral("A"), QStringLiteral("B")}));
  EXPECT_EQ(w.analysisPanels()->overviewView()->shownRunNames(), (std::pair{QStringLiteral("A"), QStringLiteral("B")}));
  EXPECT_EQ(w.analysisPanels()->taxonomyView()->shownRunNames(), (std::pair{QStringLiteral("A"), QStringLiteral("B")}));
  // The chooser of what the panels show sits in the selection bar while there are two runs.
  QComboBox* chooser = w.comparisonChooser()->box();
  // (Visible in the bar: its action there; a narrow window moves it to the bar's overflow menu.)
  auto inBar = [&] {
    auto* bar = qobject_cast<QToolBar*>(chooser->parentWidget());
    if (!bar) return false;
    for (QAction* a : bar->actions())
      if (bar->widgetForAction(a) == chooser) return a->isVisible();
    return false;
  };
  EXPECT_TRUE(inBar() && chooser->isEnabled());
  EXPECT_EQ(chooser->currentText(), QStringLiteral("side by side (A | B)"));
  EXPECT_EQ(q(map.rowLabels.front()).section(QLatin1Char(' '), 1),
            QString::fromStdString(w.lastRun()->tokens.display.front()));
  EXPECT_EQ(map.rightRowLabels.size(), map.rowLabels.size());
  // Each run's CSV rows say which run they are.
  const QString csv = render::heat_map_csv(map, {});
  EXPECT_TRUE(csv.contains(QStringLiteral("\nA,0,0,"))) << csv.left(300).toStdString();
  EXPECT_TRUE(csv.contains(QStringLiteral("\nB,0,0,")));
  const auto& series = w.profileView()->data().series;
  ASSERT_GE(series.size(), 2u);
  EXPECT_EQ(series[0].run, "A");
  EXPECT_EQ(series[1].run, "B");
  // B's curve is told from A's by its colour as well as its dashes.
  {
    QCustomPlot* plot = w.profileView()->plot();
    ASSERT_GE(plot->graphCount(), 2);
    EXPECT_NE(plot->graph(0)->pen().color(), plot->graph(1)->pen().color());
    EXPECT_EQ(plot->graph(1)->pen().style(), Qt::DashLine);
  }
  // A new sentence A keeps comparing with B.
  w.setSentence(QStringLiteral("a new first sentence"));
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() == 2; }, kTimeout));
  EXPECT_EQ(QString::fromStdString(w.intervenedRun()->text), QStringLiteral("zz yy"));
  w.stopComparing();
  EXPECT_FALSE(w.intervenedRun().has_value());
  EXPECT_EQ(w.leftRunName(), QStringLiteral("before"));
  EXPECT_FALSE(inBar()) << "one run: nothing to choose";
  EXPECT_TRUE(w.attentionView()->shownRunNames().first.isEmpty());

  // Another model of the same shape: the same sentence on both, named by the models.
  const QString other = write_model_folder(dir, 2, 2, QStringLiteral("other"), 77);
  w.compareWithModel(other);
  ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() == 3; }, kTimeout));
  EXPECT_EQ(w.leftRunName(), QStringLiteral("tiny-llama"));
  EXPECT_EQ(w.rightRunName(), QStringLiteral("other"));
  EXPECT_EQ(QString::fromStdString(w.intervenedRun()->text),
            QString::fromStdString(w.lastRun()->text));
  EXPECT_TRUE(
      q(w.attentionView()->data().title)
          .startsWith(QStringLiteral("tiny-llama: layer 0, head 0 | other: layer 0, head 0 | ")))
      << q(w.attentionView()->data().title).toStdString();
  // Same tokenizer, same text: every token aligns with its twin, the special
  // first token (which covers no characters) by its string.
  const int T = w.lastRun()->tokenCount();
  ASSERT_LT(w.lastRun()->tokens.offsets.front().first, 0) << "the model adds a special first token";
  EXPECT_TRUE(
      q(w.attentionView()->data().title)
          .contains(QStringLiteral("%1 of %2 tokens align by their characters").arg(T).arg(T)))
      << q(w.attentionView()->data().title).toStdString();
  EXPECT_FALSE(q(w.attentionView()->data().rowLabels.front()).contains(QChar(0x2260)));
  // The plot overlays the runs by token: B's points at A's positions, from k = 0
  // (the first token's value is what a sink comparison is about).
  const auto& overlaid = w.profileView()->data().series;
  ASSERT_GE(overlaid.size(), 2u);
  EXPECT_NE(overlaid[1].name.find("at tiny-llama's tokens"), std::string::npos) << overlaid[1].name;
  ASSERT_EQ(overlaid[1].x.size(), static_cast<std::size_t>(T));
  EXPECT_EQ(overlaid[1].x.front(), 0.0);
  // The same tokens: a difference map is allowed; another sentence's tokens: refused with a message.
  w.comparisonChooser()->setComparison(ui::Comparison::Difference);
  EXPECT_TRUE(w.attentionView()->data().diverging) << "same tokens: the difference is drawn";
  w.comparisonChooser()->setComparison(ui::Comparison::SideBySide);
  // Interventions end the comparison.
  w.interventionsPanel()->dropFirstToken();
  EXPECT_EQ(w.leftRunName(), QStringLiteral("before"));
}

// Comparing whatever differs: a model of another shape (layers x
// heads) is compared layer by relative depth, its head average unless the
// layers have as many heads; B's layer and head can be pinned anywhere.
TEST_F(MainWindowGui, ModelsOfDifferentShapesCompareByRelativeDepth) {
  constexpr int kGenerous = 120000;  // background runs on a busy machine
  QTemporaryDir dir;
  ui::MainWindow w;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  const QString deep = write_model_folder(dir, 5, 4, QStringLiteral("deep"), 5);
  ui::SelectionModel* sel = w.selection();
  sel->setLayer(1);
  sel->setHead(1);
  QSignalSpy compared(&w, &ui::MainWindow::comparisonFinished);
  w.compareWithModel(deep);
  ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() == 1; }, kGenerous))
      << w.jobStatus()->lastError().toStdString();
  ASSERT_TRUE(w.intervenedRun().has_value());
  EXPECT_EQ(w.rightRunName(), QStringLiteral("deep"));
  ASSERT_TRUE(sel->hasCounterpart());
  // The last layer of A lands on the last of B; 2 heads against 4: B's average.
  EXPECT_EQ(sel->counterpartLayer(), 4);
  EXPECT_EQ(sel->counterpartHead(), ui::SelectionModel::kHeadAverage);
  EXPECT_EQ(sel->layer(), 1) << "the selection stays A's";
  EXPECT_EQ(w.comparisonChooser()->comparison(), ui::Comparison::SideBySide);

  // The map: A's layer 1 head 1 on the left, B's layer 4 head average on the right.
  auto mapShows = [&](int layerB, int headB) {
    const views::HeatMap& map = w.attentionView()->data();
    const analysis::AttentionMatrix a = w.lastRun()->attention(1, 1);
    const analysis::AttentionMatrix b = w.intervenedRun()->attention(layerB, headB);
    if (map.sideBySideSplit != a.size)
      return ::testing::AssertionFailure() << "split " << map.sideBySideSplit;
    for (int i = 0; i < b.size; ++i)
      for (int j = 0; j < b.size; ++j) {
        const float want = b.weights[static_cast<std::size_t>(i) * b.size + j];
        const float got = map.values[static_cast<std::size_t>(i) * map.cols + a.size + 1 + j];
        if (std::abs(want - got) > 1e-6f)
          return ::testing::AssertionFailure() << "B's cell " << i << "," << j << ": " << got << " != " << want;
      }
    for (int i = 0; i < a.size; ++i)
      for (int j = 0; j < a.size; ++j)
        if (std::abs(a.weights[static_cast<std::size_t>(i) * a.size + j] -
                     map.values[static_cast<std::size_t>(i) * map.cols + j]) > 1e-6f)
          return ::testing::AssertionFailure() << "A's cell " << i << "," << j;
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(mapShows(4, -1));
  const QString title = q(w.attentionView()->data().title);
  EXPECT_TRUE(title.contains(QStringLiteral("layer 4, head average"))) << title.toStdString();
  EXPECT_TRUE(title.startsWith(QStringLiteral("tiny-llama: layer 1, head 1 | deep: layer 4, head average")))
      << title.toStdString();

  // Every panel draws B at its counterpart and says where A is.
  ui::AnalysisPanels* panels = w.analysisPanels();
  for (const QString& t : {panels->diagramView()->title(), panels->spectrumView()->title(),
                           q(panels->graphView()->data().title), w.profileView()->title()})
    EXPECT_TRUE(t.contains(QStringLiteral("layer 4, head average")) &&
                t.contains(QStringLiteral("tiny-llama at layer 1, head 1")))
        << t.toStdString();
  // Value space needs one head: both its views say so, and how to pin one of B's.
  EXPECT_TRUE(
      q(panels->valueSpaceView()->data().title).contains(QStringLiteral("pin one of its heads")))
      << q(panels->valueSpaceView()->data().title).toStdString();
  EXPECT_TRUE(panels->valueCurveView()->title().contains(QStringLiteral("pin one of its heads")));
  // The diagram is B's head average: one H0 bar per token of B.
  EXPECT_EQ(panels->diagramView()->data().series.front().x.size(),
            static_cast<std::size_t>(w.intervenedRun()->tokenCount()));
  // The overview and the taxonomy: A's grid (2 x 2) beside B's (5 x 4).
  const views::HeatMap& overview = panels->overviewView()->data();
  EXPECT_EQ(overview.rows, 5);
  EXPECT_EQ(overview.cols, 2 + 1 + 4);
  EXPECT_LT(overview.outlineCol, 0) << "B's head average has no cell to frame (not the gap)";
  EXPECT_EQ(panels->taxonomyView()->data().cols, 2 + 1 + 4);
  // Plots by layer overlay the runs by relative depth: both span 0..1.
  const auto& sinks = panels->layerSinkView()->data();
  EXPECT_NE(sinks.xLabel.find("relative depth"), std::string::npos) << sinks.xLabel;
  ASSERT_GE(sinks.series.size(), 4u);
  EXPECT_EQ(sinks.series[0].x, (std::vector<double>{0, 1})) << "A's two layers";
  EXPECT_EQ(sinks.series[3].x, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}))
      << "B's five layers, dashed";
  const auto& counts = panels->taxonomyCountsView()->data();
  EXPECT_NE(counts.yLabel.find("share"), std::string::npos) << "2 and 4 heads: shares, not counts";
  for (const auto& series : counts.series)
    for (double y : series.y) EXPECT_LE(y, 1.0);

  // A click on B's half of the overview pins B at that head; A's selection stays.
  Q_EMIT panels->overviewView()->cellClicked(2, 2 + 1 + 3);
  EXPECT_EQ(sel->counterpartLayer(), 2);
  EXPECT_EQ(sel->counterpartHead(), 3);
  EXPECT_EQ(sel->layer(), 1);
  EXPECT_EQ(sel->head(), 1);
  EXPECT_TRUE(QTest::qWaitFor([&] { return mapShows(2, 3); }, kGenerous));
  EXPECT_EQ(panels->overviewView()->data().outlineRow, 2) << "B's pinned head framed in B's grid";
  EXPECT_EQ(panels->overviewView()->data().outlineCol, 2 + 1 + 3);
  EXPECT_TRUE(QTest::qWaitFor(
      [&] {
        return q(panels->valueSpaceView()->data().title)
            .contains(QStringLiteral("layer 2, head 3"));
      },
      kGenerous))
      << q(panels->valueSpaceView()->data().title).toStdString();
  EXPECT_EQ(panels->headView()->data().heads.size(), 1u);
  // A click on A's half selects A's head.
  Q_EMIT panels->overviewView()->cellClicked(0, 0);
  EXPECT_EQ(sel->layer(), 0);
  EXPECT_EQ(sel->head(), 0);
  EXPECT_EQ(sel->counterpartLayer(), 2) << "B stays pinned";

  // The selection bar shows B's place and unpins it.
  auto* bar = w.findChild<QToolBar*>(QStringLiteral("selectionBar"));
  ASSERT_NE(bar, nullptr);
  auto* layerB = bar->findChild<QComboBox*>(QStringLiteral("counterpartLayerBox"));
  auto* headB = bar->findChild<QComboBox*>(QStringLiteral("counterpartHeadBox"));
  ASSERT_TRUE(layerB && headB);
  EXPECT_EQ(layerB->currentData().toInt(), 2);
  EXPECT_EQ(headB->currentData().toInt(), 3);
  EXPECT_EQ(layerB->count(), 1 + 5);
  EXPECT_EQ(headB->count(), 2 + 4);
  layerB->setCurrentIndex(0);
  headB->setCurrentIndex(0);
  EXPECT_EQ(sel->pinnedCounterpartLayer(), ui::SelectionModel::kAutomatic);
  EXPECT_EQ(sel->counterpartLayer(), 0) << "auto again: A's layer 0 is B's layer 0";
  EXPECT_TRUE(layerB->itemText(0).contains(QStringLiteral("0")));
  headB->setCurrentIndex(headB->findData(1));

  // A session keeps B's pinned head and brings it back.
  const ui::Session saved = w.currentSession();
  EXPECT_EQ(QString::fromStdString(saved.compareModel), deep);
  EXPECT_EQ(saved.compareLayer, ui::Session::kAutomatic);
  EXPECT_EQ(saved.compareHead, 1);
  const ui::Session read = ui::session_from_json(ui::session_to_json(saved), "test");
  EXPECT_EQ(read.compareHead, 1);
  EXPECT_EQ(read.compareLayer, ui::Session::kAutomatic);
  const QString path = dir.filePath(QStringLiteral("deep.sinkscope"));
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(ui::session_to_json(saved)));
  }
  ui::MainWindow again;
  QSignalSpy applied(&again, &ui::MainWindow::sessionApplied);
  QSignalSpy comparedAgain(&again, &ui::MainWindow::comparisonFinished);
  again.show();
  again.openSession(path);
  ASSERT_TRUE(QTest::qWaitFor([&] { return applied.count() == 1 && comparedAgain.count() >= 1; }, kGenerous))
      << again.jobStatus()->lastError().toStdString();
  EXPECT_EQ(again.selection()->pinnedCounterpartHead(), 1);
  EXPECT_EQ(again.selection()->counterpartLayer(), 0);

  // Stopping the comparison hides B's place.
  w.stopComparing();
  EXPECT_FALSE(sel->hasCounterpart());
  EXPECT_EQ(sel->counterpartLayer(), sel->layer());
}

// Comparing token by token: with B a model of another tokenizer
// (and shape), every panel that draws B follows A's selection through the
// characters the tokens cover, and what is pointed at in B selects in A.
TEST_F(MainWindowGui, PanelsOfAModelWithAnotherTokenizerFollowTheSelectionByCharacters) {
  constexpr int kGenerous = 120000;
  QTemporaryDir dir;
  ui::MainWindow w;
  w.setSentence(QStringLiteral("The cat sat on the mat."));
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  // A (the random model's byte-level BPE): <s> T he ␣cat ␣sat ␣on ␣the ␣mat .
  ASSERT_EQ(w.lastRun()->tokens.size(), 9);
  ASSERT_EQ(QString::fromStdString(w.lastRun()->tokens.display[3]), QStringLiteral("\u2423cat"));
  QSignalSpy compared(&w, &ui::MainWindow::comparisonFinished);
  w.compareWithModel(QStringLiteral(SINKSCOPE_SOURCE_DIR "/resources/models/learned-encoder"));
  ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() == 1; }, kGenerous))
      << w.jobStatus()->lastError().toStdString();
  // B (the encoder's BPE): <s> The ␣cat ␣sat ␣on ␣the ␣mat . </s>
  const ui::SentenceRun& b = *w.intervenedRun();
  ASSERT_GT(b.tokens.size(), 2);
  ASSERT_EQ(b.tokens.display[1], "The");
  ASSERT_EQ(b.tokens.display[2], "\u2423cat");
  w.comparisonChooser()->setComparison(ui::Comparison::After);  // B alone
  ui::AnalysisPanels* panels = w.analysisPanels();
  ui::SelectionModel* sel = w.selection();

  // A's query "␣cat" (3) is B's "␣cat" (2) in the head view; "he" (2) lies in B's "The" (1).
  sel->setHead(0);
  sel->setQueryToken(3);
  sel->setKeyToken(2);
  EXPECT_TRUE(QTest::qWaitFor([&] { return panels->headView()->data().selectedQuery == 2; }, kGenerous));
  EXPECT_EQ(panels->headView()->data().selectedKey, 1);
  EXPECT_EQ(panels->headView()->data().tokens.size(), 9u) << "B's own tokens";
  // Hovering B's "The" in the graph lights A's "T" and "he"; the graph lights B's token.
  Q_EMIT panels->graphView()->tokenHovered(1);
  EXPECT_EQ(sel->highlightedTokens(), (QList<int>{1, 2}));
  sel->setHighlightedTokens({3});
  EXPECT_TRUE(QTest::qWaitFor(
      [&] {
        const auto& points = panels->graphView()->data().points;
        auto lit = [](const views::ScenePoint& p) {
          return p.color.r == views::kSelectedHighlight.r &&
                 p.color.g == views::kSelectedHighlight.g &&
                 p.color.b == views::kSelectedHighlight.b;
        };
        return points.size() == 9u && lit(points[2]) && !lit(points[3]);
      },
      kGenerous))
      << "A's ␣cat lights B's ␣cat (2), not B's position 3";
  // B's map: a click on (␣sat, <s>) selects A's ␣sat (4) and <s> (0); B's </s> has no token in A.
  Q_EMIT w.attentionView()->cellClicked(3, 0);
  EXPECT_EQ(sel->queryToken(), 4);
  EXPECT_EQ(sel->keyToken(), 0);
  Q_EMIT w.attentionView()->cellClicked(8, 0);
  EXPECT_EQ(sel->queryToken(), 4) << "nothing of A lands on </s>: the click selects nothing";
  // The map lights B's labels where A's highlighted tokens land.
  sel->setHighlightedTokens({1, 3});
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return w.attentionView()->data().highlighted == std::vector<int>{1, 2}; }, kGenerous));
  // Side by side: A's labels light A's tokens, B's labels where they land in B.
  w.comparisonChooser()->setComparison(ui::Comparison::SideBySide);
  sel->setHighlightedTokens({2, 3});
  EXPECT_TRUE(QTest::qWaitFor(
      [&] {
        const views::HeatMap& d = w.attentionView()->data();
        return d.highlighted == std::vector<int>{2, 3} && d.rightHighlighted == std::vector<int>{1, 2};
      },
      kGenerous));
}

// A session from a colleague names a model this machine lacks, with a
// 20,000-word sentence: the window says why the model did not open and draws
// no 20,000 x 20,000 uniform baseline (1.6 GB per matrix, on the GUI thread);
// asked to run without a model it says the baseline's limit.
TEST_F(MainWindowGui, AMissingModelWithAHugeSentenceIsSaidNotDrawn) {
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QString words;
  for (int k = 0; k < 20000; ++k) words += QStringLiteral("word ");
  w.setSentence(words);
  w.openModelFolder(QStringLiteral("/nonexistent/colleagues-model"));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.jobStatus()->lastError().contains(QStringLiteral("colleagues-model")); }, kTimeout))
      << w.jobStatus()->lastError().toStdString();
  QTest::qWait(500);  // a baseline run would have started by now
  EXPECT_FALSE(w.lastRun().has_value());
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("colleagues-model")))
      << "the model's error stays: " << w.jobStatus()->lastError().toStdString();
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.jobStatus()->lastError().contains(QStringLiteral("20000 words")); }, kTimeout))
      << w.jobStatus()->lastError().toStdString();
  EXPECT_FALSE(w.lastRun().has_value());
}

// A figure of some panels draws those alone: the others ask for no
// background work (a long input's spectrum and persistence of the selected
// head), so `sinkscope figure` waits for what it shows alone.
TEST_F(MainWindowGui, AFigureOfSomePanelsAsksForNoOtherPanelsWork) {
  QTemporaryDir dir;
  const int T = 300;
  models::Capture c;
  c.layers = 1, c.heads = 2, c.tokens = T;
  c.attention.assign(static_cast<std::size_t>(2 * T * T), 0.0f);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j <= i; ++j)
        c.attention[static_cast<std::size_t>((h * T + i) * T + j)] =
            1.0f / static_cast<float>(i + 1);
  models::capture_check(c, "built here");
  const QString path = dir.filePath(QStringLiteral("long.npz"));
  models::capture_write(c, path.toStdString(), false);

  ui::Workspace workspace;
  QWidget host;
  ui::PanelBoard board(&workspace, &host);
  board.drawOnlyPanelsOf({QStringLiteral("attentionView")});
  QSignalSpy analysed(&workspace, &ui::Workspace::analysisFinished);
  workspace.openCapture(path);
  ASSERT_TRUE(QTest::qWaitFor([&] { return analysed.count() >= 1; }, kTimeout));
  board.flushDraws();
  ui::AnalysisPanels* panels = board.analysisPanels();
  EXPECT_EQ(panels->deferredResults()->pendingCount(), 0);
  EXPECT_TRUE(panels->spectrumView()->data().series.empty()) << "the spectrum panel drew";
  // Asked for the spectrum, the panel draws and starts the selected head's.
  board.drawOnlyPanelsOf({QStringLiteral("spectrumView")});
  board.redraw();
  EXPECT_GT(panels->deferredResults()->pendingCount(), 0);
}

// Analysis > Settings: a field per setting analyze takes (the selection's own
// left out), read back into the settings; a bad list is refused under the
// fields. Applied, every head of the shown run is analysed again with them.
TEST_F(MainWindowGui, AnalysisSettingsReanalyseTheRun) {
  ui::MainWindow w;
  QTemporaryDir dir;
  ASSERT_TRUE(show_with_model(w, dir, 2, 2));
  const auto& first = w.lastRun()->analysis;
  ASSERT_TRUE(first);
  EXPECT_EQ(first->params.sinks.percentile, 90.0);

  ui::AnalysisSettingsDialog dialog(w.workspace()->analysisSettings(), &w);
  EXPECT_EQ(dialog.findChild<QWidget*>(QStringLiteral("top_n")), nullptr) << "the selection's";
  EXPECT_EQ(dialog.findChild<QWidget*>(QStringLiteral("query")), nullptr) << "the selection's";
  auto* percentile = dialog.findChild<QDoubleSpinBox*>(QStringLiteral("percentile"));
  auto* thresholds = dialog.findChild<QLineEdit*>(QStringLiteral("thresholds"));
  auto* symmetrise = dialog.findChild<QComboBox*>(QStringLiteral("symmetrise"));
  ASSERT_TRUE(percentile && thresholds && symmetrise);
  EXPECT_EQ(thresholds->text(), QStringLiteral("0.01,0.05,0.1,0.2"));
  EXPECT_FALSE(percentile->toolTip().isEmpty());
  dialog.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
  dialog.grab().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/analysis-settings.png"));
  percentile->setValue(50);
  symmetrise->setCurrentText(QStringLiteral("max"));
  thresholds->setText(QStringLiteral("0.1, 2"));
  document::AnalysisSettings chosen;
  EXPECT_FALSE(dialog.read(chosen)) << "2 is outside 0 to 1";
  auto* problem = dialog.findChild<QLabel*>(QStringLiteral("settingsProblem"));
  ASSERT_NE(problem, nullptr);
  EXPECT_TRUE(problem->text().contains(QStringLiteral("thresholds")))
      << problem->text().toStdString();
  thresholds->setText(QStringLiteral("0.1, 0.3"));
  ASSERT_TRUE(dialog.read(chosen));
  EXPECT_EQ(chosen.percentile, 50.0);
  EXPECT_TRUE(chosen.symmetriseByMax);
  EXPECT_EQ(chosen.thresholds, (std::vector<double>{0.1, 0.3}));

  QSignalSpy analysed(&w, &ui::MainWindow::analysisFinished);
  w.workspace()->setAnalysisSettings(chosen);
  ASSERT_TRUE(QTest::qWaitFor([&] { return analysed.count() > 0; }, kTimeout));
  const auto& again = w.lastRun()->analysis;
  ASSERT_TRUE(again);
  EXPECT_EQ(again->params.sinks.percentile, 50.0);
  EXPECT_TRUE(again->params.distance.symmetriseByMax);
  EXPECT_EQ(again->settings.thresholds, (std::vector<double>{0.1, 0.3}));
  dialog.restoreDefaults();
  ASSERT_TRUE(dialog.read(chosen));
  EXPECT_EQ(chosen.percentile, 90.0);
}
