// On Qt's offscreen platform (no OpenGL) GL panels show a message instead and
// the rest of the window works.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QTest>
#include <QThread>
#include <atomic>

#include "render/gl_support.h"
#include "render/line_plot_view.h"
#include "support/render_compare.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/main_window.h"

using namespace sinkscope;

TEST(Offscreen, GlPanelsBecomeMessages) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("offscreen"));
  EXPECT_FALSE(render::gl_panels_available());
  ui::MainWindow w;
  w.show();
  EXPECT_EQ(w.attentionView(), nullptr);
  // In the map's place: a stand-in that says why and keeps the map for figures.
  auto* message = w.findChild<QLabel*>(QStringLiteral("attentionView"));
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(message->text().contains(QStringLiteral("OpenGL")));
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun().has_value(); }, 10000));
  EXPECT_TRUE(test::image_has_content(w.profileView()->grab().toImage()));
  w.attentionDock()->setFloating(true);
  QTest::qWait(20);
  w.close();
}

// The status bar shows the newest slow job still running; when it ends, the
// one before it (background results can outlive the job that started later).
TEST(Offscreen, TheStatusBarFollowsEverySlowJob) {
  ui::JobRunner runner;
  ui::JobStatus status(&runner);
  status.show();
  std::atomic<bool> releaseFirst{false}, releaseSecond{false};
  auto slow = [](std::atomic<bool>& release) {
    return [&release](const ui::JobProgress& progress) {
      while (!release) {
        ui::job_check(progress, 0.0);
        QThread::msleep(2);
      }
      return 0;
    };
  };
  runner.submit<int>(QStringLiteral("first"), slow(releaseFirst), {});
  runner.submit<int>(QStringLiteral("second"), slow(releaseSecond), {});
  auto* label = status.findChild<QLabel*>(QStringLiteral("jobLabel"));
  ASSERT_NE(label, nullptr);
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return label->text().startsWith(QStringLiteral("second")); }, 5000));
  EXPECT_TRUE(label->text().contains(QStringLiteral("+1 more")));
  releaseSecond = true;
  ASSERT_TRUE(QTest::qWaitFor([&] { return label->text() == QStringLiteral("first"); }, 5000));
  EXPECT_TRUE(status.progressVisible()) << "the first job still runs";
  releaseFirst = true;
  ASSERT_TRUE(runner.waitForIdle(5000));
  EXPECT_FALSE(status.progressVisible());
}
