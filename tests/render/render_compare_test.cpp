// The render-test helper itself: passes within tolerance, fails beyond it,
// and a missing baseline fails and leaves a candidate.
#include <gtest/gtest.h>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

#include "support/render_compare.h"

using namespace sinkscope::test;

namespace {
QImage gradient(int w, int h, int shift = 0) {
  QImage img(w, h, QImage::Format_RGB32);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img.setPixel(x, y, qRgb((x * 4 + shift) % 256, (y * 4) % 256, 128));
  return img;
}
}  // namespace

TEST(RenderCompare, MissingBaselineFailsAndWritesACandidate) {
  QTemporaryDir dir;
  const QString baseline = dir.filePath(QStringLiteral("baselines/panel.png"));
  const auto r = render_compare(gradient(40, 30), baseline, dir.filePath(QStringLiteral("cand")));
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.message.contains(QStringLiteral("no baseline"))) << r.message.toStdString();
  EXPECT_TRUE(QFileInfo::exists(r.candidatePath));
  EXPECT_EQ(QImage(r.candidatePath).size(), QSize(40, 30));
}

TEST(RenderCompare, SmallDifferencesPassLargeOnesFail) {
  QTemporaryDir dir;
  const QString baseline = dir.filePath(QStringLiteral("panel.png"));
  ASSERT_TRUE(gradient(50, 50).save(baseline));
  EXPECT_TRUE(render_compare(gradient(50, 50), baseline, dir.path()).passed);
  EXPECT_TRUE(render_compare(gradient(50, 50, 3), baseline, dir.path()).passed);  // within delta
  QImage spoiled = gradient(50, 50);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 10; ++x) spoiled.setPixel(x, y, qRgb(0, 0, 0));
  const auto r = render_compare(spoiled, baseline, dir.path());
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.differingShare, 0.04, 0.005);
  EXPECT_TRUE(QFileInfo::exists(r.candidatePath));
  EXPECT_FALSE(render_compare(gradient(50, 40), baseline, dir.path()).passed);
}

TEST(RenderCompare, BlankAndUniformImagesHaveNoContent) {
  QImage black(64, 64, QImage::Format_RGB32);
  black.fill(Qt::black);
  QImage white(64, 64, QImage::Format_RGB32);
  white.fill(Qt::white);
  EXPECT_FALSE(image_has_content(black));
  EXPECT_FALSE(image_has_content(white));
  EXPECT_TRUE(image_has_content(gradient(64, 64)));
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
