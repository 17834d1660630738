// Issue 16, item 1: a PNG export is the PDF's drawing at the chosen DPI: the
// figure is w x h points, the PNG w x h x dpi / 72 pixels, and a PNG at 72 DPI
// matches the PDF rasterised by poppler (pdftoppm) at 72 DPI, text included.
// Before, text in PNGs was drawn dpi / 72 times too large and clipped.
#include <gtest/gtest.h>

#include <QImage>
#include <QTest>
#include <QTemporaryDir>
#include <cmath>
#include <cstdlib>
#include <algorithm>

#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/panel_export.h"
#include "render/qcustomplot_include.h"
#include "support/shell_run.h"

using namespace sinkscope::render;

namespace {

LinePlotData plot_data() {
  LinePlotData d;
  d.title = QStringLiteral("Persistence diagram | layer 0, head 0");
  d.xLabel = QStringLiteral("birth (distance e)");
  d.yLabel = QStringLiteral("death");
  LineSeries s;
  s.name = QStringLiteral("H0 (12 bars)");
  for (int k = 0; k < 12; ++k) {
    s.x.push_back(0.0);
    s.y.push_back(0.5 + 0.04 * k);
  }
  s.scatter = true;
  LineSeries diagonal;
  diagonal.name = QStringLiteral("birth = death");
  diagonal.x = {0, 1};
  diagonal.y = {0, 1};
  diagonal.reference = true;
  d.series = {s, diagonal};
  return d;
}

// Share of pixels whose grey levels differ by more than 96 (of 255).
double differing_share(const QImage& a, const QImage& b) {
  const QImage x = a.convertToFormat(QImage::Format_Grayscale8);
  const QImage y = b.convertToFormat(QImage::Format_Grayscale8);
  long differing = 0;
  for (int r = 0; r < x.height(); ++r)
    for (int c = 0; c < x.width(); ++c)
      differing += std::abs(x.pixelColor(c, r).value() - y.pixelColor(c, r).value()) > 96 ? 1 : 0;
  return static_cast<double>(differing) / (x.width() * x.height());
}

bool have_pdftoppm() { return shell("command -v pdftoppm >/dev/null 2>&1").exit == 0; }

}  // namespace

TEST(FigureExport, PngIsThePdfsDrawingAtTheChosenDpi) {
  QTemporaryDir dir;
  LinePlotView view;
  view.resize(560, 420);
  view.setData(plot_data());
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  // The figure is the plot's size in points (at least 400 x 300).
  const int w = std::max(view.plot()->width(), 400), h = std::max(view.plot()->height(), 300);
  const QString pdf = dir.filePath(QStringLiteral("plot.pdf"));
  line_plot_export(view, pdf, 300, {}, true);
  for (int dpi : {72, 150, 300}) {
    const QString png = dir.filePath(QStringLiteral("plot-%1.png").arg(dpi));
    line_plot_export(view, png, dpi, {}, true);
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    // w x h points at `dpi`.
    EXPECT_EQ(image.width(), static_cast<int>(std::lround(w * dpi / 72.0)));
    EXPECT_EQ(image.height(), static_cast<int>(std::lround(h * dpi / 72.0)));
    EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, dpi, 1.0);
  }
  if (!have_pdftoppm()) GTEST_SKIP() << "pdftoppm (poppler-utils) is not installed";
  const std::string prefix = dir.filePath(QStringLiteral("poppler")).toStdString();
  ASSERT_EQ(shell("pdftoppm -r 72 -png -singlefile '" + pdf.toStdString() + "' '" + prefix + "'").exit, 0);
  const QImage reference(QString::fromStdString(prefix + ".png"));
  const QImage ours(dir.filePath(QStringLiteral("plot-72.png")));
  ASSERT_EQ(reference.size(), ours.size());
  // Anti-aliasing and font hinting differ between the two rasterisers; the
  // drawing (text size and place included) must not.
  EXPECT_LT(differing_share(ours, reference), 0.01);
}

TEST(FigureExport, HeatMapPngMatchesItsPdf) {
  if (!have_pdftoppm()) GTEST_SKIP() << "pdftoppm (poppler-utils) is not installed";
  QTemporaryDir dir;
  HeatMapView view;
  view.resize(500, 450);
  HeatMapData d;
  d.rows = d.cols = 8;
  for (int r = 0; r < 8; ++r) {
    d.rowLabels.push_back(QStringLiteral("%1 tok").arg(r));
    d.colLabels.push_back(QStringLiteral("%1 tok").arg(r));
    for (int c = 0; c < 8; ++c) d.values.push_back(c == 0 ? 0.8f : (c <= r ? 0.2f / (r + 1) : 0.0f));
  }
  d.title = QStringLiteral("model | layer 0, head 0 | 8 tokens");
  d.quantity = QStringLiteral("attention weight");
  view.setData(d);
  const QString pdf = dir.filePath(QStringLiteral("map.pdf"));
  const QString png = dir.filePath(QStringLiteral("map.png"));
  heat_map_export(view, pdf, 72, {}, true);
  heat_map_export(view, png, 72, {}, true);
  const std::string prefix = dir.filePath(QStringLiteral("poppler")).toStdString();
  ASSERT_EQ(shell("pdftoppm -r 72 -png -singlefile '" + pdf.toStdString() + "' '" + prefix + "'").exit, 0);
  const QImage reference(QString::fromStdString(prefix + ".png"));
  const QImage ours(png);
  ASSERT_EQ(reference.size(), ours.size());
  EXPECT_LT(differing_share(ours, reference), 0.01);
}
