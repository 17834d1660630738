// Each panel drawn from fixed data matches its baseline image (tests/baselines).
#include <gtest/gtest.h>

#include <vtkCamera.h>
#include <vtkRenderer.h>
#include <QApplication>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "models/views/colours.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "render/qcustomplot_include.h"
#include "render/scene_view.h"
#include "support/render_compare.h"

namespace views = sinkscope::views;

// A description's text as the Qt checks below read it.
QString q(const std::string& s) { return QString::fromStdString(s); }

using namespace sinkscope;

namespace {
QString baseline(const char* name) {
  return QStringLiteral(SINKSCOPE_BASELINE_DIR "/") + QLatin1String(name) + QStringLiteral(".png");
}
const QString kCandidates = QStringLiteral(SINKSCOPE_CANDIDATE_DIR);

// A causal 8-token map: half of every row on token 0 (a sink), the rest uniform.
views::HeatMap sink_map() {
  const int T = 8;
  views::HeatMap d;
  d.rows = d.cols = T;
  d.values.assign(T * T, 0.0f);
  d.hidden.assign(T * T, false);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      if (j > i)
        d.hidden[i * T + j] = true;
      else
        d.values[i * T + j] = (i == 0) ? 1.0f : 0.5f / (i + 1) + (j == 0 ? 0.5f : 0.0f);
    }
  d.title = "test | layer 0, head 0 | sink pattern";
  d.quantity = "attention weight";
  d.fixedRange = true;
  return d;
}

// Shows `view` at `size` with `data` and waits for its first frame.
::testing::AssertionResult shown_with(render::HeatMapView& view, QSize size, views::HeatMap data) {
  view.resize(size);
  view.setData(std::move(data));
  view.show();
  if (!QTest::qWaitForWindowExposed(&view)) return ::testing::AssertionFailure() << "not exposed";
  if (!QTest::qWaitFor([&] { return view.renderedFrameCount() > 0; }, 5000))
    return ::testing::AssertionFailure() << "no frame drawn";
  return ::testing::AssertionSuccess();
}
// The same for a 3-D scene.
::testing::AssertionResult shown_with(render::SceneView& view, QSize size,
                                      const views::Scene& data) {
  view.resize(size);
  view.setData(data);
  view.show();
  if (!QTest::qWaitForWindowExposed(&view)) return ::testing::AssertionFailure() << "not exposed";
  if (!QTest::qWaitFor([&] { return view.renderedFrameCount() > 0; }, 5000))
    return ::testing::AssertionFailure() << "no frame drawn";
  return ::testing::AssertionSuccess();
}
}  // namespace

TEST(PanelsRender, HeatMapMatchesBaseline) {
  render::HeatMapView view;
  view.resize(520, 400);
  view.setData(sink_map());
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  ASSERT_TRUE(QTest::qWaitFor([&] { return view.renderedFrameCount() > 0; }, 5000));
  const QImage image = view.grabFramebuffer();
  ASSERT_TRUE(test::image_has_content(image));
  const auto r = test::render_compare(image, baseline("heat_map_sink_8"), kCandidates);
  EXPECT_TRUE(r.passed) << r.message.toStdString();
}

TEST(PanelsRender, HeatMapZoomsWithTheWheelAndPansWithADrag) {
  render::HeatMapView view;
  view.resize(520, 400);
  view.setData(sink_map());
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  vtkCamera* camera = view.renderer()->GetActiveCamera();
  const double scale = camera->GetParallelScale();
  const QPointF centre(200, 200);
  QWheelEvent wheel(centre, view.mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  EXPECT_LT(camera->GetParallelScale(), scale) << "wheel forward zooms in";

  double before[3], after[3];
  camera->GetFocalPoint(before);
  QTest::mousePress(&view, Qt::LeftButton, Qt::NoModifier, QPoint(200, 200));
  QTest::mouseMove(&view, QPoint(260, 230));
  QTest::mouseRelease(&view, Qt::LeftButton, Qt::NoModifier, QPoint(260, 230));
  camera->GetFocalPoint(after);
  EXPECT_LT(after[0], before[0]) << "dragging right moves the view's centre left";
  EXPECT_GT(after[1], before[1]) << "dragging down moves the view's centre up";

  QTest::keyClick(&view, Qt::Key_R);
  EXPECT_NEAR(camera->GetParallelScale(), scale, 1e-9) << "'r' resets the view";
}

TEST(PanelsRender, HeatMapWithTokenLabelsMatchesBaseline) {
  render::HeatMapView view;
  view.resize(520, 400);
  views::HeatMap d = sink_map();
  for (int t = 0; t < d.rows; ++t) {
    const QString label = QStringLiteral("%1 \u2423tok%1").arg(t);
    d.rowLabels.push_back(label.toStdString());
    d.colLabels.push_back(label.toStdString());
  }
  view.setData(d);
  EXPECT_TRUE(view.hasLabels());
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  ASSERT_TRUE(QTest::qWaitFor([&] { return view.renderedFrameCount() > 0; }, 5000));
  const QImage image = view.grabFramebuffer();
  const auto r = test::render_compare(image, baseline("heat_map_sink_8_labels"), kCandidates);
  EXPECT_TRUE(r.passed) << r.message.toStdString();
}

// The overview of a 28 x 28 model in a small dock: labels shrink to the cells
// and thin out instead of overlapping, and come back as the wheel zooms in.
TEST(PanelsRender, GridLabelsNeverOverlapAndReturnWhenZoomedIn) {
  const int n = 28;
  views::HeatMap d;
  d.rows = d.cols = n;
  d.values.assign(n * n, 0.25f);
  d.hidden.assign(n * n, false);
  for (int k = 0; k < n; ++k) {
    d.rowLabels.push_back("L" + std::to_string(k));
    d.colLabels.push_back("H" + std::to_string(k));
  }
  d.quantity = "sink attention";
  render::HeatMapView view;
  ASSERT_TRUE(shown_with(view, QSize(300, 220), d));
  const auto pixelsPerCell = [&] {
    return view.renderer()->GetSize()[1] /
           (2.0 * view.renderer()->GetActiveCamera()->GetParallelScale());
  };
  for (int axis : {0, 1}) {
    const std::vector<int> shown = view.shownLabels(axis);
    ASSERT_GE(shown.size(), 4u) << axis;
    EXPECT_LT(shown.size(), static_cast<std::size_t>(n)) << axis << ": " << pixelsPerCell();
    for (std::size_t k = 1; k < shown.size(); ++k)
      EXPECT_GE((shown[k] - shown[k - 1]) * pixelsPerCell(), view.shownLabelFontPx() - 1e-6)
          << "labels " << shown[k - 1] << " and " << shown[k] << " touch";
  }
  EXPECT_GE(view.shownLabelFontPx(), 7);
  view.grabFramebuffer().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/overview_28_labels.png"));
  const QPointF centre(180, 120);
  for (int k = 0; k < 8; ++k) {
    QWheelEvent wheel(centre, view.mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
  }
  const int frames = view.renderedFrameCount();
  view.update();
  ASSERT_TRUE(QTest::qWaitFor([&] { return view.renderedFrameCount() > frames; }, 5000));
  EXPECT_GT(pixelsPerCell(), 12.0);
  EXPECT_EQ(view.shownLabels(0).size(), static_cast<std::size_t>(n)) << "zoomed in, every label";
  EXPECT_EQ(view.shownLabelFontPx(), 11);
}

// A long input (414 tokens) keeps token labels: every k-th at first, each
// token's once zoomed in; only the labels shown get made.
TEST(PanelsRender, LongInputsKeepTokenLabelsAndShowEveryTokenZoomedIn) {
  const int n = 414;
  views::HeatMap d;
  d.rows = d.cols = n;
  d.values.assign(static_cast<std::size_t>(n) * n, 0.25f);
  d.hidden.assign(static_cast<std::size_t>(n) * n, false);
  for (int k = 0; k < n; ++k) {
    d.rowLabels.push_back(std::to_string(k) + " tok");
    d.colLabels.push_back(std::to_string(k) + " tok");
  }
  render::HeatMapView view;
  ASSERT_TRUE(shown_with(view, QSize(600, 500), d));
  const std::vector<int> first = view.shownLabels(0);
  ASSERT_GE(first.size(), 4u) << "labels at the whole map's zoom";
  EXPECT_LT(first.size(), static_cast<std::size_t>(n));
  const QPointF centre(200, 250);
  for (int k = 0; k < 30 && view.shownLabelFontPx() < 11; ++k) {
    QWheelEvent wheel(centre, view.mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    const int frames = view.renderedFrameCount();
    view.update();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.renderedFrameCount() > frames; }, 5000));
  }
  const std::vector<int> zoomed = view.shownLabels(0);
  ASSERT_EQ(zoomed.size(), static_cast<std::size_t>(n)) << "zoomed in, every token's label";
  EXPECT_EQ(view.shownLabelFontPx(), 11);
}

// T = 2048: 4 M cells on a few hundred pixels. Zoomed out, a coarse level of
// detail is drawn whose blocks keep their strongest cell, so a one-token
// column of weight 0.5 is still on screen; zoomed in, the full image returns.
TEST(PanelsRender, LargeMapsKeepThinColumnsVisibleAtEveryZoom) {
  const int T = 2048, column = 1337;
  views::HeatMap d;
  d.rows = d.cols = T;
  d.values.assign(static_cast<std::size_t>(T) * T, 0.0f);
  d.hidden.assign(d.values.size(), false);
  for (int i = 0; i < T; ++i)
    for (int j = i + 1; j < T; ++j) d.hidden[static_cast<std::size_t>(i) * T + j] = true;
  for (int i = column; i < T; ++i) d.values[static_cast<std::size_t>(i) * T + column] = 0.5f;
  d.fixedRange = true;
  d.quantity = "attention weight";

  render::HeatMapView view;
  ASSERT_TRUE(shown_with(view, QSize(520, 400), d));
  EXPECT_GE(view.shownPoolingFactor(), 4) << "zoomed out, a coarse level is drawn";
  view.grabFramebuffer().save(QStringLiteral(SINKSCOPE_ARTIFACT_DIR "/large_map_zoomed_out.png"));

  // The pixel over cell (1800, column) has the colour of 0.5, one a few
  // blocks to the right the colour of 0.
  auto pixelAt = [&](int row, int col) {
    vtkRenderer* r = view.renderer();
    r->SetWorldPoint(col, T - 1 - row, 0.0, 1.0);
    r->WorldToDisplay();
    const double* p = r->GetDisplayPoint();
    const QImage image = view.grabFramebuffer();
    return image.pixelColor(static_cast<int>(p[0]), image.height() - 1 - static_cast<int>(p[1]))
        .toRgb();
  };
  auto near = [](const QColor& c, double value) {
    const views::Rgb e = views::colormap_viridis(value);
    return std::abs(c.redF() - e.r) < 0.12 && std::abs(c.greenF() - e.g) < 0.12 &&
           std::abs(c.blueF() - e.b) < 0.12;
  };
  EXPECT_TRUE(near(pixelAt(1800, column), 0.5)) << "the thin column vanished when zoomed out";
  EXPECT_TRUE(near(pixelAt(1800, column + 64), 0.0));

  // Zoomed in to a few cells per pixel side: the full image.
  vtkCamera* camera = view.renderer()->GetActiveCamera();
  camera->SetFocalPoint(column, T - 1 - 1800, 0);
  double position[3];
  camera->GetPosition(position);
  camera->SetPosition(column, T - 1 - 1800, position[2]);
  camera->SetParallelScale(40);
  const int frames = view.renderedFrameCount();
  view.requestRender();
  ASSERT_TRUE(QTest::qWaitFor([&] { return view.renderedFrameCount() > frames; }, 5000));
  EXPECT_EQ(view.shownPoolingFactor(), 1);
  EXPECT_TRUE(near(pixelAt(1800, column), 0.5));
  EXPECT_TRUE(near(pixelAt(1800, column + 3), 0.0));
  // The camera looks at the cell: the viewport's centre is over it.
  const double* viewport = view.renderer()->GetViewport();
  const QPointF centre(view.width() * 0.5 * (viewport[0] + viewport[2]),
                       view.height() * (1.0 - 0.5 * (viewport[1] + viewport[3])));
  EXPECT_EQ(view.cellAt(centre), std::make_pair(1800, column))
      << "hover and clicks find cells at full resolution";
}

TEST(PanelsRender, HeatMapRejectsMismatchedData) {
  render::HeatMapView view;
  views::HeatMap d = sink_map();
  d.values.pop_back();
  EXPECT_THROW(view.setData(d), std::invalid_argument);
}

TEST(PanelsRender, LinePlotMatchesBaseline) {
  render::LinePlotView view;
  view.resize(520, 300);
  views::LinePlot d;
  d.title = "test | two series";
  d.xLabel = "key position k";
  d.yLabel = "alpha_k";
  views::PlotSeries a{"1/(k+1)", {}, {}, false};
  for (int k = 0; k < 12; ++k) {
    a.x.push_back(k);
    a.y.push_back(1.0 / (k + 1));
  }
  views::PlotSeries eps{"eps", {0, 11}, {0.3, 0.3}, true};
  d.series = {a, eps};
  view.setData(d);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const QImage image = view.grab().toImage();
  ASSERT_TRUE(test::image_has_content(image));
  const auto r = test::render_compare(image, baseline("line_plot_two_series"), kCandidates);
  EXPECT_TRUE(r.passed) << r.message.toStdString();
}

TEST(PanelsRender, SceneOfAStarGraphMatchesBaseline) {
  // Eight tokens on a circle around a sink at the centre, every token linked to it:
  // the shape a first-token sink gives the attention graph.
  views::Scene d;
  d.title = std::string("test | star graph into a sink");
  d.legend = std::string("red: sink; size: attention received");
  views::ScenePoint sink;
  sink.position = {0, 0, 0};
  sink.color = views::kSinkHighlight;
  sink.size = 2.0;
  sink.label = std::string("0 <s>");
  d.points.push_back(sink);
  for (int k = 1; k <= 8; ++k) {
    views::ScenePoint p;
    const double a = 2 * M_PI * k / 8.0;
    p.position = {std::cos(a), std::sin(a), 0.2 * (k % 2)};
    p.color = {0.23, 0.32, 0.55};
    p.label = std::to_string(k);
    d.points.push_back(p);
    d.edges.push_back({k, 0, 0.8});
  }
  d.balls.push_back({{0, 0, 0}, 0.5, views::kSelectedHighlight});
  render::SceneView view;
  ASSERT_TRUE(shown_with(view, QSize(520, 400), d));
  const QImage image = view.grabFramebuffer();
  ASSERT_TRUE(test::image_has_content(image));
  const auto r = test::render_compare(image, baseline("scene_star_8"), kCandidates);
  EXPECT_TRUE(r.passed) << r.message.toStdString();
  d.edges.push_back({0, 42, 1.0});
  EXPECT_THROW(view.setData(d), std::invalid_argument);
}

// On screen, a crowd of points gets every label beside its point (farther
// out with a leader line where crowded): none over another or off the view,
// and none left out while there is room.
TEST(PanelsRender, SceneLabelsOfACrowdEachFindAPlace) {
  views::Scene d;
  d.title = std::string("test | a crowd");
  for (int k = 0; k < 10; ++k) {
    views::ScenePoint p;
    // Nine points within a few pixels of each other and one far off.
    p.position = k < 9 ? std::array<double, 3>{0.01 * (k % 3), 0.01 * (k / 3), 0.0}
                       : std::array<double, 3>{1.0, 1.0, 0.0};
    p.color = {0.23, 0.32, 0.55};
    p.label = std::to_string(k) + " token";
    d.points.push_back(p);
  }
  render::SceneView view;
  ASSERT_TRUE(shown_with(view, QSize(520, 400), d));
  const auto& shown = view.shownLabels();
  EXPECT_EQ(shown.size(), d.points.size()) << "every label finds a place";
  const QRectF inside(0, 0, view.width(), view.height());
  int leaders = 0;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    EXPECT_TRUE(inside.contains(shown[i].box)) << shown[i].point;
    leaders += shown[i].leader ? 1 : 0;
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(shown[i].box.intersects(shown[j].box))
          << shown[i].point << ", " << shown[j].point;
  }
  EXPECT_GE(leaders, 1) << "a crowd of nine needs leader lines";
}

TEST(PanelsRender, ScatterDiagramMatchesBaseline) {
  render::LinePlotView view;
  view.resize(520, 360);
  views::LinePlot d;
  d.title = "test | persistence diagram";
  d.xLabel = "birth";
  d.yLabel = "death";
  views::PlotSeries h0{"H0", {0, 0, 0, 0}, {0.2, 0.5, 0.7, 1.0}};
  views::PlotSeries h1{"H1", {0.6, 0.75}, {0.8, 0.9}};
  h0.scatter = h1.scatter = true;
  d.series = {h0, h1, {"birth = death", {0, 1}, {0, 1}, true}};
  d.xPadding = 0.02;
  view.setData(d);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const QImage image = view.grab().toImage();
  ASSERT_TRUE(test::image_has_content(image));
  const auto r = test::render_compare(image, baseline("line_plot_scatter_diagram"), kCandidates);
  EXPECT_TRUE(r.passed) << r.message.toStdString();
}

// Points stacked on one spot (a diagram's H0 points at birth 0 dying together)
// are hovered together: every one is reported and its tip listed.
TEST(PanelsRender, StackedPointsAreHoveredTogetherWithTheirTips) {
  render::LinePlotView view;
  view.resize(520, 360);
  views::LinePlot d;
  d.xLabel = "birth";
  d.yLabel = "death";
  views::PlotSeries h0{"H0", {0, 0, 0, 0}, {0.5, 0.5, 0.5001, 0.9}};
  h0.scatter = true;
  h0.tips = {"bar a", "bar b", "bar c", "bar far"};
  d.series = {h0, {"birth = death", {0, 1}, {0, 1}, true}};
  d.xPadding = 0.04;
  view.setData(d);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  QCustomPlot* plot = view.plot();
  // The stack sits clear of the y axis.
  EXPECT_GT(plot->xAxis->coordToPixel(0.0) - plot->axisRect()->left(), 8.0);
  QList<QList<QPair<int, int>>> reports;
  QObject::connect(&view, &render::LinePlotView::pointsHovered,
                   [&](const QList<QPair<int, int>>& points) { reports << points; });
  const QPointF spot(plot->xAxis->coordToPixel(0.0), plot->yAxis->coordToPixel(0.5));
  QMouseEvent move(QEvent::MouseMove, spot, plot->mapToGlobal(spot), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QApplication::sendEvent(plot, &move);
  ASSERT_EQ(reports.size(), 1);
  QList<int> indices;
  for (const auto& [series, index] : reports.back()) {
    EXPECT_EQ(series, 0);
    indices << index;
  }
  std::sort(indices.begin(), indices.end());
  EXPECT_EQ(indices, (QList<int>{0, 1, 2})) << "the far point is not under the mouse";
  EXPECT_TRUE(QToolTip::isVisible());
  for (const char* tip : {"bar a", "bar b", "bar c"}) EXPECT_TRUE(QToolTip::text().contains(QLatin1String(tip)));
  EXPECT_FALSE(QToolTip::text().contains(QLatin1String("far")));
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(&view, &leave);
  ASSERT_EQ(reports.size(), 2);
  EXPECT_TRUE(reports.back().isEmpty());
}
