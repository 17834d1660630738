// On Qt's offscreen platform (no OpenGL) GL panels show a message instead and
// the rest of the window works.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QTest>

#include "render/gl_support.h"
#include "render/line_plot_view.h"
#include "support/render_compare.h"
#include "ui/main_window.h"

using namespace sinkscope;

TEST(Offscreen, GlPanelsBecomeMessages) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("offscreen"));
  EXPECT_FALSE(render::gl_panels_available());
  ui::MainWindow w;
  w.show();
  EXPECT_EQ(w.attentionView(), nullptr);
  auto* message = w.findChild<QLabel*>(QStringLiteral("glUnavailable"));
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(message->text().contains(QStringLiteral("OpenGL")));
  w.runSentence();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun().has_value(); }, 10000));
  EXPECT_TRUE(test::image_has_content(w.profileView()->grab().toImage()));
  w.attentionDock()->setFloating(true);
  QTest::qWait(20);
  w.close();
}
