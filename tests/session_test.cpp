// Session files. The JSON round trip keeps every field;
// hostile or damaged files are refused with the file and the field, never a
// crash, a hang (FIFO) or a deep recursion.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "models/experiments.h"
#include "ui/intervention.h"
#include "ui/session.h"

using namespace sinkscope::ui;

namespace {

Session example() {
  Session s;
  s.model = QStringLiteral("/models/tiny-llama");
  s.modelFolder = QStringLiteral("/models/tiny-llama");
  s.configSha256 = QString(64, QLatin1Char('a'));
  s.tokenizerSha256 = QString(64, QLatin1Char('b'));
  s.text = QStringLiteral("The \"sink\", it seems,\nsinks. \u00e9\u4e2d");
  s.layer = 3;
  s.head = -1;
  s.query = 7;
  s.key = 0;
  s.threshold = 0.125;
  s.topN = 5;
  Intervention drop;
  drop.kind = Intervention::Kind::DropFirstToken;
  Intervention ablate;
  ablate.kind = Intervention::Kind::AblateHeads;
  ablate.layers = {1, 2};
  ablate.heads = {0};
  Intervention rope;
  rope.kind = Intervention::Kind::RopeScale;
  rope.parameter = 4.0;
  s.interventions = {drop, ablate, rope};
  s.compareModel = QStringLiteral("/models/deep");
  s.compareLayer = 11;
  s.compareHead = -1;  // B's head average, pinned
  s.logScale = true;
  s.overviewScore = QStringLiteral("entropy (mean over queries)");
  s.layout = QByteArray("\x00\x01layout\xff", 10);
  return s;
}

std::string refusal(const QByteArray& bytes) {
  try {
    session_from_json(bytes, QStringLiteral("s.sinkscope"));
  } catch (const SessionError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(Session, RoundTripKeepsEveryField) {
  const Session s = example();
  const Session back = session_from_json(session_to_json(s), QStringLiteral("test"));
  EXPECT_EQ(back.model, s.model);
  EXPECT_EQ(back.modelFolder, s.modelFolder);
  EXPECT_EQ(back.configSha256, s.configSha256);
  EXPECT_EQ(back.tokenizerSha256, s.tokenizerSha256);
  EXPECT_EQ(back.text, s.text);
  EXPECT_EQ(back.layer, 3);
  EXPECT_EQ(back.head, -1);
  EXPECT_EQ(back.query, 7);
  EXPECT_EQ(back.key, 0);
  EXPECT_EQ(back.threshold, 0.125);
  EXPECT_EQ(back.topN, 5);
  EXPECT_EQ(back.interventions, s.interventions);
  EXPECT_EQ(back.compareModel, s.compareModel);
  EXPECT_EQ(back.compareLayer, 11);
  EXPECT_EQ(back.compareHead, -1);
  // Not pinned: absent from the file, and automatic when read.
  Session automatic = s;
  automatic.compareLayer = automatic.compareHead = Session::kAutomatic;
  const QByteArray json = session_to_json(automatic);
  EXPECT_FALSE(json.contains("\"layer\": -2")) << json.toStdString();
  const Session autoBack = session_from_json(json, QStringLiteral("test"));
  EXPECT_EQ(autoBack.compareLayer, Session::kAutomatic);
  EXPECT_EQ(autoBack.compareHead, Session::kAutomatic);
  EXPECT_TRUE(back.logScale);
  EXPECT_EQ(back.overviewScore, s.overviewScore);
  EXPECT_EQ(back.layout, s.layout);
  EXPECT_TRUE(session_to_json(s).contains("\"format\": \"sinkscope-session\""));
}

TEST(Session, DamagedOrHostileFilesNameTheFieldAndProblem) {
  const QByteArray good = session_to_json(example());
  auto edited = [&](const char* from, const char* to) {
    QByteArray b = good;
    EXPECT_TRUE(b.contains(from)) << from;
    return b.replace(from, to);
  };
  EXPECT_EQ(refusal("[1, 2]").rfind("s.sinkscope: not a JSON object", 0), 0u);
  EXPECT_EQ(refusal(edited("\"version\": 1", "\"version\": 99")),
            "s.sinkscope: version: 99; this SinkScope reads version 1");
  EXPECT_EQ(refusal(edited("sinkscope-session", "something-else")),
            "s.sinkscope: format: not a SinkScope session");
  EXPECT_EQ(refusal(edited("\"layer\": 3", "\"layer\": -4")),
            "s.sinkscope: selection: layer: expected a whole number from 0 to 1048576");
  EXPECT_EQ(refusal(edited("\"layer\": 11", "\"layer\": -2")),
            "s.sinkscope: compare: layer: expected a whole number from 0 to 1048576");
  EXPECT_EQ(refusal(edited("\"layer\": 11", "\"layer\": \"deep\"")),
            "s.sinkscope: compare: layer: expected a whole number from 0 to 1048576");
  EXPECT_EQ(refusal(edited("\"threshold\": 0.125", "\"threshold\": \"high\"")),
            "s.sinkscope: selection: threshold: expected a number from 0 to 1");
  EXPECT_EQ(refusal(edited("\"ablate_heads\"", "\"explode\"")),
            "s.sinkscope: interventions[1]: kind: \"explode\" is not an intervention");
  EXPECT_EQ(refusal(edited("\"log_scale\": true", "\"log_scale\": 1")),
            "s.sinkscope: panels: log_scale: expected true or false");
  EXPECT_EQ(refusal(QByteArray(100000, '[')), "s.sinkscope: JSON nested deeper than a session file");
  EXPECT_EQ(refusal(QByteArray(5 << 20, ' ')), "s.sinkscope: larger than a session file can be");
}

// A small session cannot ask for millions of (layer, head) pairs: repeated
// indices collapse as the file is read, and the pairs an ablation makes are
// bounded by the model's layers x heads; indices beyond the model are refused.
TEST(Session, AnAblationListIsBoundedByTheModel) {
  QJsonArray zeros;
  for (int k = 0; k < 4096; ++k) zeros.append(0);
  QJsonObject root = QJsonDocument::fromJson(session_to_json(example())).object();
  QJsonArray list = root.value(QStringLiteral("interventions")).toArray();
  QJsonObject ablate = list.at(1).toObject();
  ASSERT_EQ(ablate.value(QStringLiteral("kind")).toString(), QStringLiteral("ablate_heads"));
  ablate.insert(QStringLiteral("layers"), zeros);
  ablate.insert(QStringLiteral("heads"), zeros);
  list.replace(1, ablate);
  root.insert(QStringLiteral("interventions"), list);
  const QByteArray b = QJsonDocument(root).toJson();
  const Session s = session_from_json(b, QStringLiteral("s.sinkscope"));
  EXPECT_EQ(s.interventions.at(1).layers, QList<int>{0});
  EXPECT_EQ(s.interventions.at(1).heads, QList<int>{0});

  Intervention all;
  all.kind = Intervention::Kind::AblateHeads;
  EXPECT_EQ(intervention_for_model({all}, 3, 4).ablateHeads.size(), 12u);
  Intervention some = all;
  some.layers = {2, 0, 2};
  some.heads = {1, 1};
  EXPECT_EQ(intervention_for_model({some}, 3, 4).ablateHeads,
            (std::vector<std::pair<int, int>>{{0, 1}, {2, 1}}));
  Intervention beyond = all;
  beyond.layers = {0, 4000};
  try {
    intervention_for_model({beyond}, 3, 4);
    ADD_FAILURE() << "layer 4000 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layer 4000 is not in this model (layers 0 to 2)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Session, OnlyRegularFilesOfBoundedSizeAreRead) {
  QTemporaryDir dir;
  const QString fifo = dir.filePath(QStringLiteral("pipe.sinkscope"));
  ASSERT_EQ(mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
  try {
    session_read(fifo);
    FAIL() << "a FIFO was read";
  } catch (const SessionError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  const QString big = dir.filePath(QStringLiteral("big.sinkscope"));
  {
    QFile f(big);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.resize(qint64{64} << 20);  // sparse
  }
  try {
    session_read(big);
    FAIL() << "a 64 MiB file was read";
  } catch (const SessionError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the limit"), std::string::npos);
  }
  const QString path = dir.filePath(QStringLiteral("ok.sinkscope"));
  session_write(example(), path);
  EXPECT_EQ(session_read(path).text, example().text);
}

TEST(Session, ModelChangesAreNamed) {
  const Session s = example();
  EXPECT_TRUE(session_model_changes(s, s.configSha256, s.tokenizerSha256).isEmpty());
  const QStringList changed = session_model_changes(s, QString(64, QLatin1Char('c')), s.tokenizerSha256);
  ASSERT_EQ(changed.size(), 1);
  EXPECT_TRUE(changed.front().startsWith(QStringLiteral("config.json"))) << changed.front().toStdString();
  EXPECT_EQ(session_model_changes(s, s.configSha256, QString()).size(), 1);
  Session written = s;  // written by hand, without hashes: nothing to compare
  written.configSha256.clear();
  written.tokenizerSha256.clear();
  EXPECT_TRUE(session_model_changes(written, s.configSha256, s.tokenizerSha256).isEmpty());
}
