// File > Open study shows a merged corpus study in the
// Study dock; a click on a head selects it in every panel and lists the
// sentences where it sinks hardest; opening one runs it with that head
// selected. A damaged study is an error in the status bar, nothing more.
#include <gtest/gtest.h>

#include <QLabel>
#include <unistd.h>

#include <QDockWidget>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "models/io/table_io.h"
#include "models/model_writer.h"
#include "render/heat_map_view.h"
#include "render/line_plot_view.h"
#include "support/shell_run.h"
#include "ui/job_status.h"
#include "ui/main_window.h"
#include "ui/selection_model.h"
#include "ui/study_panel.h"

using namespace sinkscope;
namespace fs = std::filesystem;

namespace {

constexpr int kTimeout = 60000;  // a generous bound: the other core may be busy
const std::string kModel = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
const std::string kSentences = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/examples/sentences.txt";

class StudyGui : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(settingsDir_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    QSettings().clear();
    dir_ = fs::path(settingsDir_.path().toStdString()) / "work";
    fs::create_directories(dir_);
    std::ifstream in(kSentences);
    std::ofstream out(dir_ / "s.txt");
    std::string line;
    for (int k = 0; k < 10 && std::getline(in, line); ++k) out << line << "\n";
  }
  QTemporaryDir settingsDir_;
  fs::path dir_;
};

}  // namespace

TEST_F(StudyGui, APooledNumberLeadsToTheSentencesBehindIt) {
  const fs::path study = dir_ / "study";
  ASSERT_EQ(cli("study run '" + kModel + "' --sentences '" + (dir_ / "s.txt").string() + "' --out '" +
                study.string() + "'")
                .exit,
            0);
  ASSERT_EQ(cli("study merge '" + study.string() + "'").exit, 0);

  ui::MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openModelFolder(QString::fromStdString(kModel));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun() && w.lastRun()->analysis; }, kTimeout));
  QSignalSpy opened(&w, &ui::MainWindow::studyOpened);
  w.openStudy(QString::fromStdString(study.string()));
  ASSERT_TRUE(QTest::qWaitFor([&] { return opened.count() == 1; }, kTimeout));
  ui::StudyPanel* panel = w.studyPanel();
  EXPECT_TRUE(w.studyDock()->isVisible());
  ASSERT_TRUE(panel->study());
  // The study shares the column with the map instead of squeezing it.
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return w.attentionView()->height() >= 0.6 * w.studyDock()->height(); }, kTimeout))
      << "map " << w.attentionView()->height() << " px, study " << w.studyDock()->height() << " px";
  // A session keeps the study: a new window opens it again.
  {
    const QString file = QString::fromStdString((dir_ / "with-study.sinkscope").string());
    ASSERT_TRUE(w.saveSession(file));
    ui::MainWindow again;
    again.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&again));
    QSignalSpy reopened(&again, &ui::MainWindow::studyOpened);
    again.openSession(file);
    ASSERT_TRUE(QTest::qWaitFor([&] { return reopened.count() == 1; }, kTimeout));
    EXPECT_EQ(reopened.front().front().toString().toStdString(), study.string());
    EXPECT_TRUE(again.studyPanel()->study());
  }

  // The grid shows the pooled share of every head as specialisation.csv has it.
  const auto spec = io::csv_parse(read_text(study / "merged/specialisation.csv"));
  const views::HeatMap grid = panel->gridData();
  ASSERT_EQ(grid.rows * grid.cols, 16);
  for (const auto& row : spec.rows)
    EXPECT_FLOAT_EQ(grid.values[static_cast<std::size_t>(std::stoi(row[0]) * 4 + std::stoi(row[1]))],
                    static_cast<float>(std::stod(row[3])));
  // The layer profile carries its intervals.
  const auto& series = panel->profileView()->data().series;
  ASSERT_FALSE(series.empty());
  EXPECT_EQ(series.front().lo.size(), 4u);

  // A click on layer 2, head 1 selects that head everywhere and lists its sentences.
  ASSERT_TRUE(panel->gridView());
  Q_EMIT panel->gridView()->cellClicked(2, 1);
  EXPECT_EQ(w.selection()->layer(), 2);
  EXPECT_EQ(w.selection()->head(), 1);
  EXPECT_EQ(panel->gridData().outlineRow, 2);
  QListWidget* list = panel->sentenceList();
  ASSERT_EQ(list->count(), 5);
  const auto top = io::csv_parse(read_text(study / "merged/top_sentences.csv"));
  std::string first;
  for (const auto& row : top.rows)
    if (row[0] == "2" && row[1] == "1" && row[2] == "1") first = row[7];
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(list->item(0)->data(Qt::UserRole).toString().toStdString(), first);
  // Selecting another head in the window moves the study's grid too.
  w.selection()->setLayer(3);
  EXPECT_EQ(panel->chosenLayer(), 3);
  w.selection()->setLayer(2);

  // Another model is open (2 x 2 heads): the study's heads cannot be selected
  // in it; opening the sentence opens the study's model, runs the sentence
  // and selects layer 2, head 1.
  const fs::path other = dir_ / "other-model";
  models::RandomModelSpec small = models::random_model_spec_for("llama");
  small.layers = 2;
  small.heads = 2;
  small.hidden = 16;
  small.kv_heads = 1;
  small.with_tokenizer = true;
  models::model_folder_write_random(other, small);
  w.openModelFolder(QString::fromStdString(other.string()));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return w.selection()->layerCount() == 2 && w.lastRun() && w.lastRun()->analysis; },
      kTimeout));
  Q_EMIT panel->gridView()->cellClicked(2, 1);
  EXPECT_LT(w.selection()->layer(), 2) << "the open model has no layer 2";
  QSignalSpy ran(&w, &ui::MainWindow::runFinished);
  Q_EMIT list->itemActivated(list->item(0));
  ASSERT_TRUE(QTest::qWaitFor(
      [&] {
        return ran.count() >= 1 && w.lastRun() && w.lastRun()->text == first &&
               w.selection()->layerCount() == 4;
      },
      kTimeout));
  EXPECT_EQ(w.model()->model->folder(), fs::path(kModel));
  EXPECT_EQ(w.sentence().toStdString(), first);
  EXPECT_EQ(w.selection()->layer(), 2);
  EXPECT_EQ(w.selection()->head(), 1);
}

TEST_F(StudyGui, ADamagedStudyIsAnErrorAndNothingElse) {
  fs::create_directories(dir_ / "bad/merged");
  std::ofstream(dir_ / "bad/study.json") << "{\"format\": \"sinkscope-study\"}";
  ui::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.openStudy(QString::fromStdString((dir_ / "bad").string()));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.jobStatus()->lastError().isEmpty(); }, kTimeout));
  EXPECT_TRUE(w.jobStatus()->lastError().contains(QStringLiteral("study.json")))
      << w.jobStatus()->lastError().toStdString();
  EXPECT_FALSE(w.studyPanel()->study());
  // The Study dock says why, and keeps saying it when a model run clears the
  // status bar (as a launch with --study and a model does).
  auto summary = [&] {
    return w.studyPanel()->findChild<QLabel*>(QStringLiteral("studySummary"))->text();
  };
  EXPECT_TRUE(w.studyDock()->isVisible());
  EXPECT_TRUE(summary().contains(QStringLiteral("could not be opened"))) << summary().toStdString();
  EXPECT_TRUE(summary().contains(QStringLiteral("study.json"))) << summary().toStdString();
  w.openModelFolder(QString::fromStdString(kModel));
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.lastRun().has_value(); }, kTimeout));
  EXPECT_TRUE(w.jobStatus()->lastError().isEmpty());
  EXPECT_TRUE(summary().contains(QStringLiteral("study.json"))) << summary().toStdString();
}
