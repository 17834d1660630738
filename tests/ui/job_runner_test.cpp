// The job runner: results and errors come back on the GUI thread, progress is
// announced only for slow jobs, cancel stops work and delivers nothing.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QSignalSpy>
#include <QThread>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "ui/deferred_results.h"
#include "ui/job_runner.h"

using sinkscope::ui::job_check;
using sinkscope::ui::JobProgress;
using sinkscope::ui::JobRunner;

TEST(JobRunner, ResultArrivesOnTheGuiThread) {
  JobRunner runner;
  QSignalSpy finished(&runner, &JobRunner::jobFinished);
  QSignalSpy shown(&runner, &JobRunner::jobProgressShown);
  QThread* workerThread = nullptr;
  QThread* deliveryThread = nullptr;
  int value = 0;
  runner.submit<int>(
      "quick",
      [&](const JobProgress&) {
        workerThread = QThread::currentThread();
        return 42;
      },
      [&](int v) {
        deliveryThread = QThread::currentThread();
        value = v;
      });
  ASSERT_TRUE(runner.waitForIdle(5000));
  EXPECT_EQ(value, 42);
  EXPECT_EQ(deliveryThread, QCoreApplication::instance()->thread());
  EXPECT_NE(workerThread, deliveryThread);
  EXPECT_EQ(finished.count(), 1);
  EXPECT_EQ(shown.count(), 0) << "a quick job must not flash a progress bar";
}

TEST(JobRunner, SlowJobShowsProgressAfterTheDelay) {
  JobRunner runner;
  QSignalSpy shown(&runner, &JobRunner::jobProgressShown);
  QSignalSpy progress(&runner, &JobRunner::jobProgress);
  runner.submit<int>("slow",
                     [](const JobProgress& p) {
                       for (int i = 0; i <= 10; ++i) {
                         job_check(p, i / 10.0);
                         QThread::msleep(40);
                       }
                       return 1;
                     },
                     {});
  ASSERT_TRUE(runner.waitForIdle(10000));
  EXPECT_EQ(shown.count(), 1);
  ASSERT_GE(progress.count(), 1);
  double last = -1.0;
  for (const auto& args : progress) {
    const double f = args.at(1).toDouble();
    EXPECT_GE(f, last);
    EXPECT_LE(f, 1.0);
    last = f;
  }
  EXPECT_GT(last, 0.0);
}

TEST(JobRunner, CancelStopsTheWorkAndDeliversNothing) {
  JobRunner runner;
  QSignalSpy cancelled(&runner, &JobRunner::jobCancelled);
  QSignalSpy finished(&runner, &JobRunner::jobFinished);
  std::atomic<int> steps{0};
  bool delivered = false;
  const auto id = runner.submit<int>(
      "long",
      [&](const JobProgress& p) {
        for (int i = 0; i < 1000; ++i) {
          job_check(p, i / 1000.0);
          ++steps;
          QThread::msleep(5);
        }
        return 0;
      },
      [&](int) { delivered = true; });
  while (steps < 3) QThread::msleep(1);
  runner.cancel(id);
  ASSERT_TRUE(runner.waitForIdle(5000));
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_EQ(finished.count(), 0);
  EXPECT_FALSE(delivered);
  EXPECT_LT(steps.load(), 1000);
}

TEST(JobRunner, ExceptionsBecomeErrorsWithDetails) {
  JobRunner runner;
  QSignalSpy failed(&runner, &JobRunner::jobFailed);
  runner.submit<int>(
      "Open model",
      [](const JobProgress&) -> int {
        throw std::runtime_error("config.json: field \"model_type\" is missing\nsecond line");
      },
      {});
  ASSERT_TRUE(runner.waitForIdle(5000));
  ASSERT_EQ(failed.count(), 1);
  EXPECT_EQ(failed.at(0).at(2).toString(),
            QStringLiteral("config.json: field \"model_type\" is missing"));
  EXPECT_TRUE(failed.at(0).at(3).toString().contains(QStringLiteral("second line")));
  EXPECT_TRUE(failed.at(0).at(3).toString().startsWith(QStringLiteral("Open model: ")));
}

TEST(JobRunner, ANewJobInAGroupSupersedesTheOldOne) {
  JobRunner runner;
  QSignalSpy cancelled(&runner, &JobRunner::jobCancelled);
  std::atomic<bool> firstStarted{false};
  int result = 0;
  runner.submit<int>(
      "first",
      [&](const JobProgress& p) {
        firstStarted = true;
        for (int i = 0; i < 2000; ++i) {
          job_check(p, 0.0);
          QThread::msleep(2);
        }
        return 1;
      },
      [&](int v) { result = v; }, "run");
  while (!firstStarted) QThread::msleep(1);
  runner.submit<int>(
      "second", [](const JobProgress&) { return 2; }, [&](int v) { result = v; }, "run");
  ASSERT_TRUE(runner.waitForIdle(5000));
  EXPECT_EQ(result, 2);
  EXPECT_EQ(cancelled.count(), 1);
}

// DeferredResults on top of the runner: a result is computed once per key; a
// long job that no drawing pass wants any more stops at its next report.
TEST(DeferredResults, ALongJobNoLongerWantedStopsAtItsNextReport) {
  using sinkscope::analysis::AnalysisProgress;
  using sinkscope::analysis::AnalysisStopped;
  JobRunner runner;
  sinkscope::ui::DeferredResults results(&runner);
  std::atomic<bool> started{false}, sawStop{false};
  results.beginPass();
  auto slow = results.get<int>("slow", false, [&](const AnalysisProgress& progress) -> int {
    started = true;
    while (progress(0.5)) QThread::msleep(1);
    sawStop = true;
    throw AnalysisStopped();
  });
  EXPECT_EQ(slow, nullptr) << "computed in the background";
  results.endPass();  // still wanted: keeps running
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!started && std::chrono::steady_clock::now() < deadline)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  ASSERT_TRUE(started);
  EXPECT_EQ(results.pendingCount(), 1);
  results.beginPass();
  results.endPass();  // nobody asked for it in this pass: cancelled
  EXPECT_EQ(results.pendingCount(), 0);
  ASSERT_TRUE(runner.waitForIdle(5000)) << "the job did not stop";
  EXPECT_TRUE(sawStop);
  EXPECT_EQ(results.peek<int>("slow"), nullptr) << "a stopped job leaves no result";

  int computed = 0;
  results.beginPass();
  EXPECT_EQ(results.get<int>("quick", false, [](const AnalysisProgress&) { return 42; }), nullptr);
  QSignalSpy arrived(&results, &sinkscope::ui::DeferredResults::arrived);
  ASSERT_TRUE(arrived.wait(5000));
  auto cheap = [&](const AnalysisProgress&) { return ++computed; };
  ASSERT_NE(results.peek<int>("quick"), nullptr);
  EXPECT_EQ(*results.peek<int>("quick"), 42);
  EXPECT_EQ(*results.get<int>("now", true, cheap), 1);
  EXPECT_EQ(*results.get<int>("now", true, cheap), 1) << "kept, not computed again";
  results.clear();
  EXPECT_EQ(*results.get<int>("now", true, cheap), 2) << "a new run starts afresh";
}
