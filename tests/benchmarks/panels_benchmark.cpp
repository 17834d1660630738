// The linked-selection update path: the time from a change
// of head in the selection to every panel drawn again from the run's cache,
// for a 12 x 12 model at T = 128 (goal: under 100 ms); and the attention map's
// responsiveness at T = 2048: a run shown, a head change, a hover, a
// zoom. Needs a display:
//   xvfb-run -a -s '-screen 0 1600x1000x24' build/tests/panels_benchmark
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <cstdio>

#include "models/cpu_runtime.h"
#include "models/document/trace_analysis.h"
#include "models/model_writer.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/analysis_panels.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"

using namespace sinkscope;

namespace {
// A description's text as the Qt checks read it.
QString q(const std::string& s) { return QString::fromStdString(s); }

QString write_model(const QTemporaryDir& dir, const char* name, int layers, int heads, int hidden,
                    int positions) {
  const QString folder = dir.filePath(QString::fromLatin1(name));
  models::RandomModelSpec spec = models::random_model_spec_for("llama");
  spec.layers = layers;
  spec.heads = heads;
  spec.hidden = hidden;
  spec.intermediate = 2 * hidden;
  spec.max_positions = positions;
  spec.with_tokenizer = true;
  models::model_folder_write_random(folder.toStdString(), spec);
  return folder;
}

// A window that has run `folder` on a sentence of `chars` characters.
ui::MainWindow* window_with_run(const QString& folder, int chars, double* runSeconds = nullptr,
                                double* mapSeconds = nullptr) {
  auto* win = new ui::MainWindow;
  win->resize(1400, 900);
  win->show();
  QString text;
  while (text.size() < chars) text += QStringLiteral("attention sinks in the model ");
  text.truncate(chars);
  win->setSentence(text);
  QElapsedTimer clock;
  clock.start();
  QObject::connect(win, &ui::MainWindow::runFinished, win, [&clock, mapSeconds] {
    if (mapSeconds && *mapSeconds == 0) *mapSeconds = clock.elapsed() / 1000.0;
  });
  win->openModelFolder(folder);
  if (!QTest::qWaitFor([&] { return win->lastRun() && win->lastRun()->analysis; }, 600000))
    std::fprintf(stderr, "panels_benchmark: the run did not finish\n");
  if (runSeconds) *runSeconds = clock.elapsed() / 1000.0;
  return win;
}

// A 12 x 12 random model and a sentence of 128 tokens, run once.
ui::MainWindow& window() {
  static QTemporaryDir dir;
  static ui::MainWindow* w =
      window_with_run(write_model(dir, "model", 12, 12, 384, 512), 410);  // T = 128
  return *w;
}

// A 4 x 8 random model and a sentence of about 2048 tokens.
double longRunSeconds = 0, longMapSeconds = 0;
ui::MainWindow& long_window() {
  static QTemporaryDir dir;
  static ui::MainWindow* w = window_with_run(write_model(dir, "long", 4, 8, 256, 4096), 6600,
                                             &longRunSeconds, &longMapSeconds);
  return *w;
}

void BM_SelectHeadAndRedrawEveryPanel(benchmark::State& state) {
  ui::MainWindow& w = window();
  int head = 0;
  for (auto _ : state) {
    head = (head + 1) % 12;
    w.selection()->setHead(head);  // the analysis panels redraw synchronously
    // The window's own panels redraw behind a short timer: wait for them too.
    const QString where = QStringLiteral("head %1 ").arg(head);
    if (!QTest::qWaitFor([&] { return q(w.attentionView()->data().title).contains(where); }, 5000))
      state.SkipWithError("the attention map did not follow the selection");
  }
  state.counters["tokens"] = w.lastRun() ? w.lastRun()->tokenCount() : 0;
}
BENCHMARK(BM_SelectHeadAndRedrawEveryPanel)->Unit(benchmark::kMillisecond)->Iterations(24);

// T = 2048: opening the model and running the sentence until the map is on
// screen (forward pass), and until the run's analysis (without per-head
// topology) is in; reported once.
void BM_LongInput_RunUntilShown(benchmark::State& state) {
  for (auto _ : state) long_window();
  state.counters["tokens"] = long_window().lastRun()->tokenCount();
  state.counters["map_shown_s"] = longMapSeconds;
  state.counters["analysed_s"] = longRunSeconds;
}
BENCHMARK(BM_LongInput_RunUntilShown)->Unit(benchmark::kMillisecond)->Iterations(1);

// T = 2048: a change of head until every panel has drawn (the selected
// head's topology then follows in the background).
void BM_LongInput_SelectHead(benchmark::State& state) {
  ui::MainWindow& w = long_window();
  int head = 0;
  for (auto _ : state) {
    head = (head + 1) % 8;
    w.selection()->setHead(head);
    const QString where = QStringLiteral("head %1 ").arg(head);
    if (!QTest::qWaitFor([&] { return q(w.attentionView()->data().title).contains(where); }, 5000))
      state.SkipWithError("the attention map did not follow the selection");
  }
  state.counters["tokens"] = w.lastRun()->tokenCount();
}
BENCHMARK(BM_LongInput_SelectHead)->Unit(benchmark::kMillisecond)->Iterations(8);

// T = 2048: the mouse moving over the map (hover: the cell under it and its tooltip).
void BM_LongInput_Hover(benchmark::State& state) {
  ui::MainWindow& w = long_window();
  render::HeatMapView* map = w.attentionView();
  int step = 0;
  for (auto _ : state) {
    const QPointF at(map->width() * (0.2 + 0.005 * (step % 100)), map->height() * 0.6);
    ++step;
    QMouseEvent move(QEvent::MouseMove, at, map->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(map, &move);
  }
}
BENCHMARK(BM_LongInput_Hover)->Unit(benchmark::kMillisecond)->Iterations(100);

// T = 2048: one wheel step of zoom until the next frame is drawn.
void BM_LongInput_ZoomFrame(benchmark::State& state) {
  ui::MainWindow& w = long_window();
  render::HeatMapView* map = w.attentionView();
  int step = 0;
  for (auto _ : state) {
    const QPointF at(map->width() * 0.4, map->height() * 0.5);
    const int delta = (step++ % 16) < 8 ? 120 : -120;  // in, then back out
    QWheelEvent wheel(at, map->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    const int frames = map->renderedFrameCount();
    QApplication::sendEvent(map, &wheel);
    map->requestRender();
    if (!QTest::qWaitFor([&] { return map->renderedFrameCount() > frames; }, 5000))
      state.SkipWithError("no frame after the zoom");
  }
  state.counters["pooling_at_end"] = map->shownPoolingFactor();
}
BENCHMARK(BM_LongInput_ZoomFrame)->Unit(benchmark::kMillisecond)->Iterations(32);

}  // namespace

int main(int argc, char** argv) {
  // The runtime the GUI's main() sets up (models/cpu_runtime.h).
  sinkscope::models::configure_cpu_runtime();
  render::gl_configure_defaults();
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
