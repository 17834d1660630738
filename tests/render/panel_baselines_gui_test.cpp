// Every panel of the main window, drawn for a fixed model, sentence and
// selection, matches its baseline image (tests/baselines/dock_*.png) within
// the render tolerance. The model is the built-in default (a trained
// checkpoint in resources/), so the images show real sinks.
//
// A missing or differing baseline writes a candidate to
// build/tests/render-candidates/; after looking at it, copy it into
// tests/baselines/ to accept it.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDockWidget>
#include <QImage>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "render/vtk_view_widget.h"
#include "support/render_compare.h"
#include "ui/job_runner.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"

using namespace sinkscope;

namespace {
constexpr int kTimeout = 60000;
const char* const kModel = SINKSCOPE_SOURCE_DIR "/resources/models/rope-decoder-bos-first";
const char* const kSentence = "The quiet river carried the old boat past the mill at dawn.";

struct DockCase;
void PrintTo(const DockCase& c, std::ostream* os);

struct DockCase {
  const char* objectName;          // the dock
  const char* baseline;            // tests/baselines/<baseline>.png
  int width = 1100, height = 380;  // of the floated dock
};

void PrintTo(const DockCase& c, std::ostream* os) { *os << c.objectName; }

class PanelBaselines : public ::testing::TestWithParam<DockCase> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(settingsDir_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
    QSettings().clear();  // the default layout
  }
  QTemporaryDir settingsDir_;
};

// Waits until every visible VTK view inside `root` has drawn a frame after now.
bool wait_for_vtk_frames(QWidget* root) {
  for (auto* view : root->findChildren<render::VtkViewWidget*>()) {
    if (!view->isVisible()) continue;
    const int before = view->renderedFrameCount();
    view->requestRender();
    if (!QTest::qWaitFor([&] { return view->renderedFrameCount() > before; }, kTimeout))
      return false;
  }
  return true;
}
}  // namespace

TEST_P(PanelBaselines, DockMatchesItsBaseline) {
  const DockCase dockCase = GetParam();
  ui::MainWindow w;
  w.resize(1500, 940);
  w.setSentence(QString::fromUtf8(kSentence));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(QString::fromUtf8(kModel));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.lastRun() && w.lastRun()->analysis && w.jobs()->activeJobCount() == 0; },
      kTimeout))
      << "the default model did not run";
  w.selection()->setLayer(2);
  w.selection()->setHead(1);
  w.selection()->setQueryToken(8);

  auto* dock = w.findChild<QDockWidget*>(QString::fromLatin1(dockCase.objectName));
  ASSERT_NE(dock, nullptr) << dockCase.objectName;
  // Floated at a fixed size, so the image does not depend on how the window's
  // status bar and other docks happen to share the space at that moment.
  dock->show();
  dock->setFloating(true);
  dock->resize(dockCase.width, dockCase.height);
  dock->raise();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(dock));
  // The floated dock lays itself out (on a busy machine the window manager
  // may take its time): until its content keeps its size for 200 ms.
  for (int k = 0; k < 100; ++k) {
    const QSize before = dock->widget()->size();
    QTest::qWait(200);
    if (dock->widget()->size() == before) break;
  }
  ASSERT_TRUE(wait_for_vtk_frames(dock));
  const QImage image = dock->widget()->grab().toImage();
  ASSERT_TRUE(test::image_has_content(image)) << dockCase.objectName << " drew nothing";
  image.save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/") + QLatin1String(dockCase.baseline) +
             QStringLiteral(".png"));
  const auto r = test::render_compare(image,
                                      QStringLiteral(SINKSCOPE_BASELINE_DIR "/") +
                                          QLatin1String(dockCase.baseline) + QStringLiteral(".png"),
                                      QStringLiteral(SINKSCOPE_CANDIDATE_DIR));
  EXPECT_TRUE(r.passed) << r.message.toStdString();
}

INSTANTIATE_TEST_SUITE_P(EveryPanel, PanelBaselines,
                         ::testing::Values(DockCase{"attentionDock", "dock_attention"},
                                           DockCase{"overviewDock", "dock_overview", 420, 480},
                                           DockCase{"graphDock", "dock_graph"},
                                           DockCase{"persistenceDock", "dock_persistence"},
                                           DockCase{"spectrumDock", "dock_spectrum"},
                                           DockCase{"valueSpaceDock", "dock_value_space"},
                                           DockCase{"taxonomyDock", "dock_taxonomy"},
                                           DockCase{"layerProfileDock", "dock_layer_profiles"},
                                           DockCase{"profileDock", "dock_sink_profile"},
                                           DockCase{"interventionsDock", "dock_interventions", 340,
                                                    480}),
                         [](const ::testing::TestParamInfo<DockCase>& info) {
                           return std::string(info.param.baseline);
                         });
