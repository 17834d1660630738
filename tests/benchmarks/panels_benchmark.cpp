// The linked-selection update path: the time from a change
// of head in the selection to every panel drawn again from the run's cache,
// for a 12 x 12 model at T = 128 (goal: under 100 ms); and the attention map's
// responsiveness at T = 2048: a run shown, a head change, a hover, a
// zoom, a cancel. Needs a display:
//   xvfb-run -a -s '-screen 0 1600x1000x24' build/tests/panels_benchmark
// The long input runs on a 4 x 8 random model unless given a model folder and
// a text (the 1B shape at 2048 tokens: docs/performance.md):
//   ... panels_benchmark --long-model DIR --long-text FILE --benchmark_filter=LongInput
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QWheelEvent>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "models/cpu_runtime.h"
#include "models/document/trace_analysis.h"
#include "models/model_writer.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/analysis_panels.h"
#include "ui/job_runner.h"
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

// The longest the window's thread went without serving its event loop, in
// ms: a timer due every 10 ms notes how late each of its ticks comes.
class StallMonitor {
 public:
  StallMonitor() {
    timer_.setInterval(10);
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      const qint64 now = clock_.elapsed();
      if (last_ >= 0) worst_ = std::max(worst_, now - last_);
      last_ = now;
    });
    clock_.start();
    timer_.start();
  }
  double worstMs() const { return static_cast<double>(worst_); }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ = -1, worst_ = 0;
};

struct RunTimes {
  double mapShown = 0, analysed = 0, worstStallMs = 0;
};

// A window that has run `folder` on `text`.
ui::MainWindow* window_with_run(const QString& folder, const QString& text,
                                RunTimes* times = nullptr) {
  auto* win = new ui::MainWindow;
  win->resize(1400, 900);
  win->show();
  win->setSentence(text);
  QElapsedTimer clock;
  clock.start();
  double mapShown = 0;
  QObject::connect(win, &ui::MainWindow::runFinished, win, [&clock, &mapShown] {
    if (mapShown == 0) mapShown = clock.elapsed() / 1000.0;
  });
  const StallMonitor stalls;
  win->openModelFolder(folder);
  if (!QTest::qWaitFor([&] { return win->lastRun() && win->lastRun()->analysis; }, 3600000))
    std::fprintf(stderr, "panels_benchmark: the run did not finish\n");
  if (times) *times = {mapShown, clock.elapsed() / 1000.0, stalls.worstMs()};
  return win;
}

QString repeated_text(int chars) {
  QString text;
  while (text.size() < chars) text += QStringLiteral("attention sinks in the model ");
  text.truncate(chars);
  return text;
}

// --long-model DIR --long-text FILE (both or neither), taken out of argv.
QString longModel, longText;
bool take_long_input_options(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const bool model = std::strcmp(argv[i], "--long-model") == 0,
               text = std::strcmp(argv[i], "--long-text") == 0;
    if (!model && !text) {
      argv[kept++] = argv[i];
      continue;
    }
    if (i + 1 >= argc) return false;
    if (model) {
      longModel = QString::fromLocal8Bit(argv[++i]);
    } else {
      std::ifstream in(argv[++i]);
      std::stringstream content;
      content << in.rdbuf();
      if (!in) return false;
      longText = QString::fromStdString(content.str()).trimmed();
    }
  }
  argc = kept;
  return longModel.isEmpty() == longText.isEmpty();
}

// A 12 x 12 random model and a sentence of 128 tokens, run once.
ui::MainWindow& window() {
  static QTemporaryDir dir;
  static ui::MainWindow* w =
      window_with_run(write_model(dir, "model", 12, 12, 384, 512), repeated_text(410));  // T = 128
  return *w;
}

// A 4 x 8 random model and a sentence of about 2048 tokens, or the model and
// text given on the command line.
RunTimes longRun;
ui::MainWindow& long_window() {
  static QTemporaryDir dir;
  static ui::MainWindow* w = longModel.isEmpty()
                                 ? window_with_run(write_model(dir, "long", 4, 8, 256, 4096),
                                                   repeated_text(6600), &longRun)
                                 : window_with_run(longModel, longText, &longRun);
  return *w;
}
int long_heads() { return long_window().lastRun()->trace->heads(); }

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
// topology) is in, with the window thread's longest stall meanwhile; once.
void BM_LongInput_RunUntilShown(benchmark::State& state) {
  for (auto _ : state) long_window();
  state.counters["tokens"] = long_window().lastRun()->tokenCount();
  state.counters["map_shown_s"] = longRun.mapShown;
  state.counters["analysed_s"] = longRun.analysed;
  state.counters["gui_stall_max_ms"] = longRun.worstStallMs;
}
BENCHMARK(BM_LongInput_RunUntilShown)->Unit(benchmark::kMillisecond)->Iterations(1);

// T = 2048: a change of head until every panel has drawn (the selected
// head's topology then follows in the background).
void BM_LongInput_SelectHead(benchmark::State& state) {
  ui::MainWindow& w = long_window();
  int head = 0;
  for (auto _ : state) {
    head = (head + 1) % long_heads();
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

// T = 2048: the sentence run again, and the status bar's Cancel clicked once
// its progress shows; timed from the click until the run's job has stopped
// (a selected head's topology may go on in the background).
void BM_LongInput_CancelRun(benchmark::State& state) {
  ui::MainWindow& w = long_window();
  for (auto _ : state) {
    state.PauseTiming();
    // The status bar shows the newest slow job: with the selected head's
    // topology still computing, its Cancel would be that job's.
    w.jobs()->cancelAll();
    if (!w.jobs()->waitForIdle(600000)) {
      state.SkipWithError("background jobs did not stop within 600 s");
      break;
    }
    bool stopped = false;
    const QMetaObject::Connection onCancel = QObject::connect(
        w.jobs(), &ui::JobRunner::jobCancelled, &w, [&](quint64, const QString& name) {
          if (name.contains(QStringLiteral("Run sentence"))) stopped = true;
        });
    w.runSentence();
    QToolButton* cancel = nullptr;
    const bool shown = QTest::qWaitFor(
        [&] {
          cancel = w.findChild<QToolButton*>(QStringLiteral("jobCancel"));
          return cancel && cancel->isVisible();
        },
        60000);
    state.ResumeTiming();
    if (!shown) {
      state.SkipWithError("no progress with a Cancel button within 60 s");
      break;
    }
    QTest::mouseClick(cancel, Qt::LeftButton);
    if (!QTest::qWaitFor([&] { return stopped; }, 600000))
      state.SkipWithError("the run still going 600 s after Cancel");
    QObject::disconnect(onCancel);
  }
}
BENCHMARK(BM_LongInput_CancelRun)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  // The runtime the GUI's main() sets up (models/cpu_runtime.h).
  sinkscope::models::configure_cpu_runtime();
  render::gl_configure_defaults();
  if (!take_long_input_options(argc, argv)) {
    std::fprintf(stderr, "panels_benchmark: give --long-model DIR and --long-text FILE together\n");
    return 2;
  }
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
