// Sessions in the window. A saved session opened in a new
// window shows the same model, sentence, selection, interventions and panel
// options, and exports the same figure; a session whose model has changed
// opens with a warning naming the change; the last session comes back.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QDockWidget>
#include <QImage>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/panel_export.h"
#include "ui/export_dialog.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"
#include "support/render_compare.h"
#include "support/shell_run.h"

using namespace sinkscope;
namespace fs = std::filesystem;

namespace {

constexpr int kTimeout = 60000;  // generous: the other core may be busy
const QString kModel = QStringLiteral(SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first");

class SessionGui : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(settingsDir_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    QSettings().clear();
  }
  // Shows `w` with `model` and `text`, waiting for the run and its analysis.
  static bool show_run(ui::MainWindow& w, const QString& model, const QString& text) {
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return false;
    w.setSentence(text);
    w.openModelFolder(model);
    return QTest::qWaitFor(
        [&] {
          return w.lastRun() && QString::fromStdString(w.lastRun()->text) == text &&
                 w.lastRun()->analysis;
        },
        kTimeout);
  }
  // Whether the persistence panel's plots show their results (not "computing").
  static bool topology_shown(ui::MainWindow& w) {
    for (const char* name : {"persistenceDiagram", "bettiCurves"}) {
      auto* view = w.findChild<render::LinePlotView*>(QLatin1String(name));
      if (!view || view->data().series.empty() ||
          view->title().contains(QStringLiteral("computing")))
        return false;
    }
    return true;
  }
  static QByteArray file_bytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }
  QTemporaryDir settingsDir_;
};

}  // namespace

TEST_F(SessionGui, ASavedSessionReopensAsItWas) {
  QTemporaryDir dir;
  const QString text = QStringLiteral("Precursor of the modern motion picture.");
  const QString file = dir.filePath(QStringLiteral("figure.sinkscope"));
  {
    ui::MainWindow a;
    ASSERT_TRUE(show_run(a, kModel, text));
    a.selection()->setLayer(2);
    a.selection()->setHead(1);
    a.selection()->setQueryToken(3);
    a.selection()->setThreshold(0.1);
    a.selection()->setTopN(4);
    a.findChild<QCheckBox*>(QStringLiteral("logScale"))->setChecked(true);
    models::Intervention ablate;
    ablate.ablateHeads = {{1, 0}};
    QSignalSpy intervened(&a, &ui::MainWindow::interventionsFinished);
    a.selection()->setInterventions({ablate});
    ASSERT_TRUE(QTest::qWaitFor([&] { return intervened.count() >= 1; }, kTimeout));
    // A figure of several panels: its layout goes into the session.
    a.setFigureLayout({QStringLiteral("attentionView"), QStringLiteral("persistenceDiagram"),
                       QStringLiteral("bettiCurves")},
                      2);
    ASSERT_TRUE(a.saveSession(file)) << a.jobStatus()->lastError().toStdString();
    ASSERT_TRUE(a.exportPanel(a.attentionView(), dir.filePath(QStringLiteral("a.svg"))));
    ASSERT_TRUE(QTest::qWaitFor([&] { return topology_shown(a); }, kTimeout));
    // A preset size: the figure does not depend on how large the window's docks are.
    ASSERT_TRUE(a.exportFigure(a.viewsNamed(a.figureViews()), dir.filePath(QStringLiteral("fa.svg")),
                               render::figure_preset(render::FigurePreset::TwoColumns),
                               a.figureColumns()));
  }
  ui::MainWindow b;
  b.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&b));
  QSignalSpy applied(&b, &ui::MainWindow::sessionApplied);
  QSignalSpy intervened(&b, &ui::MainWindow::interventionsFinished);
  b.openSession(file);
  ASSERT_TRUE(QTest::qWaitFor([&] { return applied.count() == 1; }, kTimeout))
      << b.jobStatus()->lastError().toStdString();
  ASSERT_TRUE(QTest::qWaitFor([&] { return intervened.count() >= 1; }, kTimeout));
  EXPECT_EQ(b.sentence(), text);
  EXPECT_EQ(QString::fromStdString(b.model()->model->folder().string()), kModel);
  EXPECT_EQ(b.selection()->layer(), 2);
  EXPECT_EQ(b.selection()->head(), 1);
  EXPECT_EQ(b.selection()->queryToken(), 3);
  EXPECT_DOUBLE_EQ(b.selection()->threshold(), 0.1);
  EXPECT_EQ(b.selection()->topN(), 4);
  EXPECT_EQ(b.selection()->interventions().ablateHeads, (std::vector<models::HeadId>{{1, 0}}));
  EXPECT_EQ(b.selection()->interventions().labels().size(), 1u);
  EXPECT_TRUE(b.findChild<QCheckBox*>(QStringLiteral("logScale"))->isChecked());
  EXPECT_TRUE(b.lastSessionWarning().isEmpty()) << b.lastSessionWarning().toStdString();
  // The same figure: the attention map's SVG, byte for byte.
  ASSERT_TRUE(b.exportPanel(b.attentionView(), dir.filePath(QStringLiteral("b.svg"))));
  const QByteArray svgA = file_bytes(dir.filePath(QStringLiteral("a.svg")));
  ASSERT_FALSE(svgA.isEmpty());
  EXPECT_EQ(svgA, file_bytes(dir.filePath(QStringLiteral("b.svg"))));
  // The multi-panel figure's layout came back, and so does its heat-map part.
  EXPECT_EQ(b.figureViews(), (QStringList{QStringLiteral("attentionView"),
                                          QStringLiteral("persistenceDiagram"),
                                          QStringLiteral("bettiCurves")}));
  EXPECT_EQ(b.figureColumns(), 2);
  ASSERT_EQ(b.viewsNamed(b.figureViews()).size(), 3u);
  ASSERT_TRUE(QTest::qWaitFor([&] { return topology_shown(b); }, kTimeout));
  ASSERT_TRUE(b.exportFigure(b.viewsNamed(b.figureViews()), dir.filePath(QStringLiteral("fb.svg")),
                             render::figure_preset(render::FigurePreset::TwoColumns),
                             b.figureColumns()));
  const QByteArray figureA = file_bytes(dir.filePath(QStringLiteral("fa.svg")));
  QFile::remove(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/fa.svg"));
  QFile::remove(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/fb.svg"));
  QFile::copy(dir.filePath(QStringLiteral("fa.svg")), QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/fa.svg"));
  QFile::copy(dir.filePath(QStringLiteral("fb.svg")), QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/fb.svg"));
  for (const char* letter : {">(a)<", ">(b)<", ">(c)<"}) EXPECT_TRUE(figureA.contains(letter)) << letter;
  EXPECT_EQ(figureA, file_bytes(dir.filePath(QStringLiteral("fb.svg"))));
}

TEST_F(SessionGui, AWholePanelExportsAsOneFigureWithLetters) {
  ui::MainWindow w;
  ASSERT_TRUE(show_run(w, kModel, QStringLiteral("Precursor of the modern motion picture.")));
  QDockWidget* persistence = w.findChild<QDockWidget*>(QStringLiteral("persistenceDock"));
  ASSERT_NE(persistence, nullptr);
  persistence->raise();
  QTest::qWait(200);
  const auto views = w.dockViews(persistence);
  ASSERT_EQ(views.size(), 3u);  // diagram, barcode, Betti curves
  QTemporaryDir dir;
  render::FigureOptions options = render::figure_preset(render::FigurePreset::TwoColumns, 150);
  const QString svg = dir.filePath(QStringLiteral("panel.svg"));
  const QString png = dir.filePath(QStringLiteral("panel.png"));
  ASSERT_TRUE(w.exportFigure(views, svg, options)) << w.jobStatus()->lastError().toStdString();
  ASSERT_TRUE(w.exportFigure(views, png, options));
  const QByteArray text = file_bytes(svg);
  for (const char* part : {">(a)<", ">(b)<", ">(c)<", "Persistence diagram", "Betti curves", "Barcode"})
    EXPECT_TRUE(text.contains(part)) << part;
  // Two columns: two views a row, so two rows of 0.7 x 100 mm, 178 mm wide, at 150 DPI.
  EXPECT_EQ(render::figure_columns(options, 3, 0), 2);
  const QImage image(png);
  EXPECT_NEAR(image.width(), 178.0 / 25.4 * 150, 2.0);
  EXPECT_NEAR(image.height(), 2 * 70.0 / 25.4 * 150, 2.0);
  QFile::remove(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/figure-whole-persistence.png"));  // for a look
  QFile::copy(png, QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/figure-whole-persistence.png"));
  // No single CSV for several views.
  EXPECT_FALSE(w.exportFigure(views, dir.filePath(QStringLiteral("panel.csv")), options));
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("no single CSV")));
}

TEST_F(SessionGui, AChangedModelOpensWithAWarningNamingTheChange) {
  QTemporaryDir dir;
  const fs::path copy = fs::path(dir.path().toStdString()) / "model";
  fs::copy(kModel.toStdString(), copy, fs::copy_options::recursive);
  const QString folder = QString::fromStdString(copy.string());
  const QString file = dir.filePath(QStringLiteral("s.sinkscope"));
  {
    ui::MainWindow a;
    ASSERT_TRUE(show_run(a, folder, QStringLiteral("A sentence.")));
    ASSERT_TRUE(a.saveSession(file));
  }
  std::ofstream(copy / "config.json", std::ios::app) << "\n";  // same model, other bytes
  ui::MainWindow b;
  b.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&b));
  QSignalSpy applied(&b, &ui::MainWindow::sessionApplied);
  b.openSession(file);
  ASSERT_TRUE(QTest::qWaitFor([&] { return applied.count() == 1; }, kTimeout));
  EXPECT_TRUE(b.lastSessionWarning().contains(QStringLiteral("config.json")))
      << b.lastSessionWarning().toStdString();
  EXPECT_TRUE(b.jobStatus()->lastError().contains(QStringLiteral("model changed")));
  // A damaged session file: an error, and the window goes on as it was.
  std::ofstream(dir.filePath(QStringLiteral("bad.sinkscope")).toStdString()) << "{\"format\": 3}";
  b.openSession(dir.filePath(QStringLiteral("bad.sinkscope")));
  EXPECT_TRUE(b.jobStatus()->lastError().contains(QStringLiteral("bad.sinkscope: format")))
      << b.jobStatus()->lastError().toStdString();
  EXPECT_EQ(b.sentence(), QStringLiteral("A sentence."));
}

TEST_F(SessionGui, TheLastSessionComesBack) {
  const QString text = QStringLiteral("Move or progress freely as if in a stream.");
  {
    ui::MainWindow a;
    ASSERT_TRUE(show_run(a, kModel, text));
    a.selection()->setLayer(3);
    a.close();  // remembers the session
  }
  ui::MainWindow b;
  b.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&b));
  QSignalSpy applied(&b, &ui::MainWindow::sessionApplied);
  ASSERT_TRUE(b.restoreLastSession());
  ASSERT_TRUE(QTest::qWaitFor([&] { return applied.count() == 1; }, kTimeout));
  EXPECT_EQ(b.sentence(), text);
  EXPECT_EQ(b.selection()->layer(), 3);
}

// The export dialog names the view, its presets give
// the paper sizes, it offers the whole panel, and it remembers the choices.
TEST_F(SessionGui, TheExportDialogOffersPresetsAndTheWholePanel) {
  QSettings().remove(QStringLiteral("export/preset"));
  EXPECT_DOUBLE_EQ(ui::ExportDialog(QStringLiteral("x")).options().widthMm, 85.0)
      << "a paper's column until another size is chosen";
  // Files are named by panel (and view, when one of several), never by widget.
  EXPECT_EQ(ui::export_file_name(QStringLiteral("rope-decoder-bos-first"), 2, 1,
                                 QStringLiteral("persistence"), QStringLiteral("barcode")),
            QStringLiteral("rope-decoder-bos-first-layer2-head1-persistence-barcode.png"));
  EXPECT_EQ(ui::export_file_name(QStringLiteral("org/model (capture)"), 0, -1,
                                 QStringLiteral("attention-map"), QString()),
            QStringLiteral("org-model-capture-layer0-headavg-attention-map.png"));
  EXPECT_EQ(ui::export_file_name(QString(), 3, 0, QStringLiteral("persistence"),
                                 QStringLiteral("persistence diagram")),
            QStringLiteral("sinkscope-layer3-head0-persistence-diagram.png"));
  {
    ui::ExportDialog dialog(QStringLiteral("Persistence: persistenceDiagram"));
    EXPECT_TRUE(dialog.windowTitle().contains(QStringLiteral("persistenceDiagram")));
    dialog.setPreset(render::FigurePreset::TwoColumns);
    render::FigureOptions o = dialog.options();
    EXPECT_DOUBLE_EQ(o.widthMm, 178.0);
    EXPECT_DOUBLE_EQ(o.heightMm, 100.0);
    EXPECT_DOUBLE_EQ(o.fontPt, 8.0);
    dialog.setPreset(render::FigurePreset::Screen);
    o = dialog.options();
    EXPECT_EQ(o.widthMm, 0.0) << "the panel's own size";
    dialog.setPreset(render::FigurePreset::Slide);
    dialog.offerWholePanel(3);
    dialog.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
    auto* whole = dialog.findChild<QCheckBox*>(QStringLiteral("exportWholePanel"));
    ASSERT_NE(whole, nullptr);
    EXPECT_TRUE(whole->isVisible());
    whole->setChecked(true);
    EXPECT_TRUE(dialog.wholePanel());
    dialog.grab().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/export-dialog.png"));  // for a look
    dialog.remember();
  }
  ui::ExportDialog again(QStringLiteral("Attention map: attentionView"));
  EXPECT_DOUBLE_EQ(again.options().widthMm, 254.0) << "the slide preset was remembered";
  again.offerWholePanel(1);
  EXPECT_FALSE(again.wholePanel()) << "one view: nothing to offer";
}

// The window's figures (Ctrl+E's code, with OpenGL
// views) and those a new process makes from the saved session without a
// display (sinkscope-cli figure, offscreen, 3-D views drawn from their data)
// are the same files: PDF and SVG byte for byte, PNG within the render tolerance.
TEST_F(SessionGui, ANewProcessWithoutADisplayMakesTheWindowsFigures) {
  QTemporaryDir dir;
  const QString session = dir.filePath(QStringLiteral("figures.sinkscope"));
  ui::MainWindow w;
  ASSERT_TRUE(show_run(w, kModel, QStringLiteral("Precursor of the modern motion picture.")));
  w.selection()->setLayer(1);
  w.selection()->setHead(2);
  w.selection()->setQueryToken(4);
  // Every background result drawn: no job left twice in a row.
  int quiet = 0;
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        quiet = w.jobs()->activeJobCount() == 0 && topology_shown(w) ? quiet + 1 : 0;
        return quiet >= 3;
      },
      kTimeout));
  ASSERT_TRUE(w.saveSession(session));
  const render::FigureOptions options = render::figure_preset(render::FigurePreset::OneColumn, 100);
  auto dock = [&](const char* name) {
    return w.dockViews(w.findChild<QDockWidget*>(QLatin1String(name)));
  };
  ASSERT_TRUE(w.exportPanel(w.attentionView(), dir.filePath(QStringLiteral("gui-map.pdf")), options));
  ASSERT_TRUE(w.exportPanel(w.findChild<QWidget*>(QStringLiteral("graphView")),
                            dir.filePath(QStringLiteral("gui-graph.svg")), options));
  ASSERT_TRUE(w.exportFigure(dock("persistenceDock"), dir.filePath(QStringLiteral("gui-persistence.pdf")), options));
  ASSERT_TRUE(w.exportFigure(dock("valueSpaceDock"), dir.filePath(QStringLiteral("gui-value.png")), options));
  ASSERT_TRUE(w.exportFigure(dock("spectrumDock"), dir.filePath(QStringLiteral("gui-spectrum.svg")), options));
  const std::string base = "figure --session '" + session.toStdString() + "' --dpi 100 --out '" +
                           dir.path().toStdString() + "/cli-";
  for (const std::string& request :
       {base + "map.pdf' --panel attention-map", base + "graph.svg' --panel graph",
        base + "persistence.pdf' --panel persistence", base + "value.png' --panel value-space",
        base + "spectrum.svg' --panel spectrum"}) {
    const CliRun run = cli(request);
    ASSERT_EQ(run.exit, 0) << request << "\n" << run.out;
  }
  for (const char* name : {"map.pdf", "graph.svg", "persistence.pdf", "spectrum.svg"}) {
    const QByteArray gui = file_bytes(dir.filePath(QStringLiteral("gui-") + QLatin1String(name)));
    EXPECT_FALSE(gui.isEmpty()) << name;
    EXPECT_EQ(gui, file_bytes(dir.filePath(QStringLiteral("cli-") + QLatin1String(name)))) << name;
  }
  const QImage gui(dir.filePath(QStringLiteral("gui-value.png")));
  const auto compared = test::render_compare(QImage(dir.filePath(QStringLiteral("cli-value.png"))),
                                             dir.filePath(QStringLiteral("gui-value.png")),
                                             dir.filePath(QStringLiteral("candidates")));
  EXPECT_TRUE(compared.passed) << compared.message.toStdString();
  EXPECT_TRUE(test::image_has_content(gui));
}

// A comparison is part of the session: reopened in a window
// it compares again, and the figure CLI draws both runs from the session.
TEST_F(SessionGui, AComparisonIsPartOfTheSession) {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("compare.sinkscope"));
  {
    ui::MainWindow a;
    ASSERT_TRUE(show_run(a, kModel, QStringLiteral("The cat sat on the mat.")));
    QSignalSpy compared(&a, &ui::MainWindow::comparisonFinished);
    a.compareWithSentence(QStringLiteral("Birds sing at dawn."));
    ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() == 1; }, kTimeout));
    ASSERT_TRUE(a.saveSession(file));
  }
  const ui::Session s = ui::session_read(file.toStdString());
  EXPECT_EQ(s.compareSentence, "Birds sing at dawn.");
  EXPECT_EQ(s.comparison, "side_by_side");
  ui::MainWindow b;
  b.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&b));
  QSignalSpy compared(&b, &ui::MainWindow::comparisonFinished);
  b.openSession(file);
  ASSERT_TRUE(QTest::qWaitFor([&] { return compared.count() >= 1; }, kTimeout));
  ASSERT_TRUE(b.intervenedRun().has_value());
  EXPECT_EQ(b.intervenedRun()->text, "Birds sing at dawn.");
  EXPECT_EQ(b.leftRunName(), QStringLiteral("A"));
  // Without a display, from the session: the same two runs side by side.
  const QString svg = dir.filePath(QStringLiteral("map.svg"));
  const CliRun run = cli("figure --session '" + file.toStdString() + "' --panel attention-map --out '" +
                         svg.toStdString() + "'");
  ASSERT_EQ(run.exit, 0) << run.out;
  EXPECT_TRUE(file_bytes(svg).contains(">A: layer 0, head 0 | B: layer 0, head 0 | "))
      << "the side-by-side map's title";
  EXPECT_TRUE(file_bytes(svg).contains(">B</text>")) << "B's name under its half of the map";
  // A session giving both a sentence and a model to compare with is refused.
  QByteArray both = file_bytes(file);
  both.replace("\"model\": \"\"", "\"model\": \"x\"");
  EXPECT_THROW(ui::session_from_json(both.toStdString(), "both.sinkscope"), ui::SessionError);
}
