// The linked-selection update path (issue 7, item 11): the time from a change
// of head in the selection to every panel drawn again from the run's cache,
// for a 12 x 12 model at T = 128 (goal: under 100 ms). Needs a display:
//   xvfb-run -a -s '-screen 0 1600x1000x24' build/tests/panels_benchmark
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

#include "models/model_writer.h"
#include "render/gl_support.h"
#include "render/heat_map_view.h"
#include "ui/analysis_panels.h"
#include "ui/main_window.h"
#include "ui/run_analysis.h"
#include "ui/selection_model.h"

using namespace sinkscope;

namespace {

// A 12 x 12 random model and a sentence of about 128 tokens, run once.
ui::MainWindow& window() {
  static QTemporaryDir dir;
  static ui::MainWindow* w = [] {
    const QString folder = dir.filePath(QStringLiteral("model"));
    models::RandomModelSpec spec = models::random_model_spec_for("llama");
    spec.layers = 12;
    spec.heads = 12;
    spec.hidden = 384;
    spec.intermediate = 768;
    spec.max_positions = 512;
    spec.with_tokenizer = true;
    models::model_folder_write_random(folder.toStdString(), spec);
    auto* win = new ui::MainWindow;
    win->resize(1400, 900);
    win->show();
    QString text;
    while (text.size() < 300) text += QStringLiteral("attention sinks in the model ");
    win->setSentence(text);
    win->openModelFolder(folder);
    if (!QTest::qWaitFor([&] { return win->lastRun() && win->lastRun()->analysis; }, 120000))
      std::fprintf(stderr, "panels_benchmark: the run did not finish\n");
    return win;
  }();
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
    if (!QTest::qWaitFor([&] { return w.attentionView()->data().title.contains(where); }, 5000))
      state.SkipWithError("the attention map did not follow the selection");
  }
  state.counters["tokens"] = w.lastRun() ? w.lastRun()->tokenCount() : 0;
}
BENCHMARK(BM_SelectHeadAndRedrawEveryPanel)->Unit(benchmark::kMillisecond)->Iterations(24);

}  // namespace

int main(int argc, char** argv) {
  render::gl_configure_defaults();
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
