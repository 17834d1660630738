// On Qt's offscreen platform (no OpenGL) GL panels show a message instead and
// the rest of the window works.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QMimeData>
#include <QTest>
#include <QThread>
#include <atomic>

#include "render/gl_support.h"
#include "render/line_plot_view.h"
#include "render/qcustomplot_include.h"
#include "render/token_label.h"
#include "support/render_compare.h"
#include "ui/job_runner.h"
#include "ui/job_status.h"
#include "ui/main_window.h"
#include "ui/sentence_box.h"

namespace views = sinkscope::views;

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

// A line with no place to break lays out in time quadratic in its length
// (two minutes for a million characters): such text wraps anywhere, set
// before Qt lays it out, whether it is set (a session) or pasted.
namespace {
class PastingBox : public ui::SentenceBox {
 public:
  void pasteText(const QString& text) {
    QMimeData data;
    data.setText(text);
    insertFromMimeData(&data);
  }
};
}  // namespace

TEST(Offscreen, TheSentenceBoxWrapsAnUnbreakableLineAnywhere) {
  const QString run(ui::kWordWrapLongestRun, QLatin1Char('a'));
  EXPECT_FALSE(ui::text_has_unbreakable_run(run + QStringLiteral(" ") + run));
  EXPECT_TRUE(ui::text_has_unbreakable_run(QStringLiteral("x ") + run + QStringLiteral("a")));
  EXPECT_FALSE(ui::text_has_unbreakable_run(run + QStringLiteral("\n") + run));
  PastingBox box;
  box.resize(300, 110);
  box.show();
  box.setSentence(QStringLiteral("A cat sat on the mat."));
  EXPECT_EQ(box.wordWrapMode(), QTextOption::WrapAtWordBoundaryOrAnywhere);
  const QString million(1000000, QLatin1Char('a'));
  box.setSentence(million);
  EXPECT_EQ(box.wordWrapMode(), QTextOption::WrapAnywhere);
  EXPECT_EQ(box.toPlainText().size(), million.size()) << "nothing cut";
  box.setSentence(QStringLiteral("A cat."));
  EXPECT_EQ(box.wordWrapMode(), QTextOption::WrapAtWordBoundaryOrAnywhere);
  // Pasted at the end: the run continues across the seam.
  box.moveCursor(QTextCursor::End);
  box.pasteText(run);
  EXPECT_EQ(box.wordWrapMode(), QTextOption::WrapAnywhere);
  EXPECT_EQ(box.toPlainText(), QStringLiteral("A cat.") + run);
}

// Views draw a token of at most kShownTokenCharacters code points whole, a
// longer one as its ends around "…", never splitting a surrogate pair.
TEST(Offscreen, ViewsDrawALongTokenByItsEnds) {
  using render::kShownTokenCharacters;
  using render::token_shown;
  const QString fits(kShownTokenCharacters, QLatin1Char('x'));
  EXPECT_EQ(token_shown(fits), fits);
  EXPECT_EQ(token_shown(QString()), QString());
  const QString longer =
      QStringLiteral("BEGIN") + QString(1000000, QLatin1Char('m')) + QStringLiteral("END");
  const QString shown = token_shown(longer);
  EXPECT_EQ(shown.toUcs4().size(), kShownTokenCharacters);
  EXPECT_TRUE(shown.startsWith(QStringLiteral("BEGINmm")));
  EXPECT_TRUE(shown.endsWith(QStringLiteral("mmEND")));
  EXPECT_EQ(shown.count(QChar(0x2026)), 1);
  // Emoji are two UTF-16 units: kShownTokenCharacters of them still fit whole.
  QString emoji;
  for (int i = 0; i < kShownTokenCharacters; ++i) emoji += QString::fromUcs4(U"\U0001F600", 1);
  EXPECT_EQ(token_shown(emoji), emoji);
  const QString more = emoji + emoji;
  const QString cut = token_shown(more);
  EXPECT_EQ(cut.toUcs4().size(), kShownTokenCharacters);
  for (const char32_t c : cut.toUcs4())
    EXPECT_TRUE(c == 0x1F600 || c == 0x2026) << static_cast<unsigned>(c);
}

// Before its first data a plot shows no axes (QCustomPlot's default 0..5
// axes crowded their ticks in a narrow dock when a run failed); with data it
// shows them.
TEST(Offscreen, APlotWithoutDataShowsNoAxes) {
  render::LinePlotView view;
  view.resize(200, 150);
  EXPECT_FALSE(view.plot()->xAxis->visible());
  EXPECT_FALSE(view.plot()->yAxis->visible());
  EXPECT_FALSE(view.plot()->legend->visible());
  views::LinePlot data;
  data.series = {views::PlotSeries{"s", {0, 1}, {0.5, 0.25}}};
  view.setData(data);
  EXPECT_TRUE(view.plot()->xAxis->visible());
  EXPECT_TRUE(view.plot()->legend->visible());
}
