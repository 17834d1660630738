#include "ui/session.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "models/document/intervention_json.h"
#include "models/input_files.h"

namespace sinkscope::ui {

namespace {

constexpr qint64 kMaxSessionBytes = qint64{4} << 20;
constexpr int kMaxIndex = 1 << 20;
constexpr qsizetype kMaxText = 1 << 20;  // characters of the sentence
constexpr qsizetype kMaxInterventions = 256;
constexpr qsizetype kMaxAblatedHeads = qsizetype{1} << 16;

QJsonArray vector_json(const std::array<double, 3>& v) { return QJsonArray{v[0], v[1], v[2]}; }

QJsonObject cameras_json(const std::vector<std::pair<QString, render::SceneCamera>>& cameras) {
  QJsonObject o;
  for (const auto& [view, camera] : cameras)
    o.insert(view, QJsonObject{{QStringLiteral("direction"), vector_json(camera.direction)},
                               {QStringLiteral("up"), vector_json(camera.up)}});
  return o;
}

// Field readers: each names the file and the field it refuses.
class Reader {
 public:
  Reader(const QJsonObject& o, QString where) : o_(o), where_(std::move(where)) {}

  [[noreturn]] void fail(const QString& field, const QString& problem) const {
    throw SessionError((where_ + QStringLiteral(": ") + field + QStringLiteral(": ") + problem)
                           .toStdString());
  }
  QString text(const char* field, qsizetype maxLength, bool required = true) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    if (v.isUndefined() && !required) return {};
    if (!v.isString()) fail(QLatin1String(field), QStringLiteral("expected text"));
    const QString s = v.toString();
    if (s.size() > maxLength)
      fail(QLatin1String(field), QStringLiteral("longer than %1 characters").arg(maxLength));
    return s;
  }
  int integer(const char* field, int lo, int hi, int otherwise) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    if (v.isUndefined()) return otherwise;
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || d != std::floor(d) || d < lo || d > hi)
      fail(QLatin1String(field), QStringLiteral("expected a whole number from %1 to %2").arg(lo).arg(hi));
    return static_cast<int>(d);
  }
  double real(const char* field, double lo, double hi, double otherwise) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    if (v.isUndefined()) return otherwise;
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || !(d >= lo && d <= hi))
      fail(QLatin1String(field), QStringLiteral("expected a number from %1 to %2").arg(lo).arg(hi));
    return d;
  }
  bool flag(const char* field, bool otherwise) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    if (v.isUndefined()) return otherwise;
    if (!v.isBool()) fail(QLatin1String(field), QStringLiteral("expected true or false"));
    return v.toBool();
  }
  QJsonObject object(const char* field) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    if (v.isUndefined()) return {};
    if (!v.isObject()) fail(QLatin1String(field), QStringLiteral("expected an object"));
    return v.toObject();
  }
  QList<int> indices(const char* field) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    QList<int> out;
    if (v.isUndefined()) return out;
    if (!v.isArray() || v.toArray().size() > 4096)
      fail(QLatin1String(field), QStringLiteral("expected a list of at most 4096 indices"));
    for (const QJsonValue& x : v.toArray()) {
      const double d = x.toDouble(std::nan(""));
      if (!x.isDouble() || d != std::floor(d) || d < 0 || d > kMaxIndex)
        fail(QLatin1String(field), QStringLiteral("expected indices from 0 to %1").arg(kMaxIndex));
      out.append(static_cast<int>(d));
    }
    // A repeated index means nothing more: thousands of zeros are one layer.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  // Three finite numbers of magnitude at most 1e6.
  std::array<double, 3> vector3(const char* field) const {
    const QJsonValue v = o_.value(QLatin1String(field));
    if (!v.isArray() || v.toArray().size() != 3)
      fail(QLatin1String(field), QStringLiteral("expected a list of 3 numbers"));
    std::array<double, 3> out{};
    for (int k = 0; k < 3; ++k) {
      const QJsonValue x = v.toArray().at(k);
      const double d = x.toDouble(std::nan(""));
      if (!x.isDouble() || !(std::abs(d) <= 1e6))
        fail(QLatin1String(field), QStringLiteral("expected 3 numbers from -1e6 to 1e6"));
      out[static_cast<std::size_t>(k)] = d;
    }
    return out;
  }
  const QJsonObject& raw() const { return o_; }

 private:
  QJsonObject o_;
  QString where_;
};

// JSON nesting deeper than any session has; checked before parsing, so a
// hostile file cannot make the parser recurse deeply.
bool nested_too_deep(const QByteArray& bytes, int maxDepth) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (const char c : bytes) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Version 2 on: the interventions in their one JSON form.
models::Intervention interventions_of(const QJsonValue& value, const QString& source) {
  const QString where = source + QStringLiteral(": interventions");
  if (!value.isObject())
    throw SessionError((where + QStringLiteral(": expected an object")).toStdString());
  try {
    return document::intervention_from_json(
        nlohmann::json::parse(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact).toStdString()),
        where.toStdString());
  } catch (const document::InterventionFormatError& e) {
    throw SessionError(e.what());
  }
}

// Version 1 wrote a list of {kind, layers, heads, parameter}; read into the
// one form. Its ablations name their layers and heads (the GUI only ever
// ablated the selected head): "all" would need the model, so it is refused.
models::Intervention interventions_of_version_1(const Reader& root, const QJsonValue& list,
                                                const QString& source) {
  if (!list.isArray() || list.toArray().size() > kMaxInterventions)
    root.fail(QStringLiteral("interventions"), QStringLiteral("expected a list of at most 256"));
  models::Intervention out;
  std::set<models::HeadId> ablated;
  for (qsizetype k = 0; k < list.toArray().size(); ++k) {
    const QJsonValue v = list.toArray().at(k);
    if (!v.isObject()) root.fail(QStringLiteral("interventions"), QStringLiteral("expected objects"));
    const Reader r(v.toObject(), source + QStringLiteral(": interventions[%1]").arg(k));
    const QString kind = r.text("kind", 64);
    const QList<int> layers = r.indices("layers"), heads = r.indices("heads");
    models::Intervention entry;
    if (kind == QLatin1String("drop_first_token")) {
      entry.dropFirstToken = true;
    } else if (kind == QLatin1String("remove_sinks") || kind == QLatin1String("mask_sinks")) {
      models::SinkRemoval removal;
      removal.layers.assign(layers.begin(), layers.end());
      removal.heads.assign(heads.begin(), heads.end());
      removal.beforeSoftmax = kind == QLatin1String("mask_sinks");
      entry.removeSinks = {removal};
    } else if (kind == QLatin1String("ablate_heads")) {
      if (layers.isEmpty() || heads.isEmpty())
        r.fail(layers.isEmpty() ? QStringLiteral("layers") : QStringLiteral("heads"),
               QStringLiteral("name the ablated heads' layers and heads"));
      if (static_cast<qsizetype>(ablated.size()) + layers.size() * heads.size() > kMaxAblatedHeads)
        r.fail(QStringLiteral("heads"), QStringLiteral("more than %1 heads to ablate").arg(kMaxAblatedHeads));
      for (int l : layers)
        for (int h : heads)
          if (ablated.insert({l, h}).second) out.ablateHeads.emplace_back(l, h);
      continue;
    } else if (kind == QLatin1String("rope_scale")) {
      entry.ntkScale = r.real("parameter", 1e-6, 1e6, 1.0);
    } else {
      r.fail(QStringLiteral("kind"), QStringLiteral("\"%1\" is not an intervention").arg(kind));
    }
    out = out.with(entry);
  }
  return out;
}

}  // namespace

QByteArray session_to_json(const Session& s) {
  // The interventions in their one JSON form (a study's), exact to the bit.
  const QJsonObject interventions =
      QJsonDocument::fromJson(QByteArray::fromStdString(document::intervention_json(s.interventions).dump()))
          .object();
  // B's layer and head only when pinned (absent: the selection's counterpart).
  QJsonObject compare{{QStringLiteral("sentence"), s.compareSentence},
                      {QStringLiteral("model"), s.compareModel}};
  if (s.compareLayer != Session::kAutomatic) compare.insert(QStringLiteral("layer"), s.compareLayer);
  if (s.compareHead != Session::kAutomatic) compare.insert(QStringLiteral("head"), s.compareHead);
  QJsonObject root{
      {QStringLiteral("format"), QStringLiteral("sinkscope-session")},
      {QStringLiteral("version"), Session::kVersion},
      {QStringLiteral("model"),
       QJsonObject{{QStringLiteral("name"), s.model},
                   {QStringLiteral("folder"), s.modelFolder},
                   {QStringLiteral("config_sha256"), s.configSha256},
                   {QStringLiteral("tokenizer_sha256"), s.tokenizerSha256}}},
      {QStringLiteral("text"), s.text},
      {QStringLiteral("selection"),
       QJsonObject{{QStringLiteral("layer"), s.layer},
                   {QStringLiteral("head"), s.head},
                   {QStringLiteral("query"), s.query},
                   {QStringLiteral("key"), s.key},
                   {QStringLiteral("threshold"), s.threshold},
                   {QStringLiteral("top_n"), s.topN}}},
      {QStringLiteral("interventions"), interventions},
      {QStringLiteral("compare"), compare},
      {QStringLiteral("checkpoints"), s.checkpoints},
      {QStringLiteral("study"), s.study},
      {QStringLiteral("panels"),
       QJsonObject{{QStringLiteral("log_scale"), s.logScale},
                   {QStringLiteral("overview_score"), s.overviewScore},
                   {QStringLiteral("comparison"), s.comparison},
                   {QStringLiteral("graph_layout"), s.graphLayout},
                   {QStringLiteral("normalised_laplacian"), s.normalisedLaplacian},
                   {QStringLiteral("cameras"), cameras_json(s.cameras)}}},
      {QStringLiteral("figure"),
       QJsonObject{{QStringLiteral("views"), QJsonArray::fromStringList(s.figureViews)},
                   {QStringLiteral("columns"), s.figureColumns}}}};
  if (!s.layout.isEmpty())
    root.insert(QStringLiteral("layout"), QString::fromLatin1(s.layout.toBase64()));
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Session session_from_json(const QByteArray& bytes, const QString& source) {
  if (bytes.size() > kMaxSessionBytes)
    throw SessionError((source + QStringLiteral(": larger than a session file can be")).toStdString());
  if (nested_too_deep(bytes, 8))
    throw SessionError((source + QStringLiteral(": JSON nested deeper than a session file")).toStdString());
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject())
    throw SessionError((source + QStringLiteral(": not a JSON object (") + error.errorString() +
                        QStringLiteral(" at byte %1)").arg(error.offset))
                           .toStdString());
  const Reader root(doc.object(), source);
  if (root.text("format", 64, false) != QLatin1String("sinkscope-session"))
    root.fail(QStringLiteral("format"), QStringLiteral("not a SinkScope session"));
  const int version = root.integer("version", 1, 1 << 20, 0);
  if (version < 1 || version > Session::kVersion)
    root.fail(QStringLiteral("version"), QStringLiteral("%1; this SinkScope reads versions 1 to %2")
                                             .arg(version)
                                             .arg(Session::kVersion));
  Session s;
  const Reader model(root.object("model"), source + QStringLiteral(": model"));
  s.model = model.text("name", 4096);
  if (s.model.isEmpty()) model.fail(QStringLiteral("name"), QStringLiteral("empty"));
  s.modelFolder = model.text("folder", 4096, false);
  s.configSha256 = model.text("config_sha256", 64, false);
  s.tokenizerSha256 = model.text("tokenizer_sha256", 64, false);
  s.text = root.text("text", kMaxText);
  const Reader selection(root.object("selection"), source + QStringLiteral(": selection"));
  s.layer = selection.integer("layer", 0, kMaxIndex, 0);
  s.head = selection.integer("head", -1, kMaxIndex, 0);
  s.query = selection.integer("query", -1, kMaxIndex, -1);
  s.key = selection.integer("key", -1, kMaxIndex, -1);
  s.threshold = selection.real("threshold", 0.0, 1.0, 0.05);
  s.topN = selection.integer("top_n", 1, kMaxIndex, 3);
  const QJsonValue interventions = root.raw().value(QStringLiteral("interventions"));
  if (!interventions.isUndefined())
    s.interventions = version == 1 ? interventions_of_version_1(root, interventions, source)
                                   : interventions_of(interventions, source);
  const Reader compare(root.object("compare"), source + QStringLiteral(": compare"));
  s.compareSentence = compare.text("sentence", kMaxText, false);
  s.compareModel = compare.text("model", 4096, false);
  if (!s.compareSentence.isEmpty() && !s.compareModel.isEmpty())
    compare.fail(QStringLiteral("model"), QStringLiteral("give a sentence or a model to compare with, not both"));
  s.compareLayer = compare.integer("layer", 0, kMaxIndex, Session::kAutomatic);
  s.compareHead = compare.integer("head", -1, kMaxIndex, Session::kAutomatic);
  s.checkpoints = root.text("checkpoints", 4096, false);
  s.study = root.text("study", 4096, false);
  const Reader panels(root.object("panels"), source + QStringLiteral(": panels"));
  s.logScale = panels.flag("log_scale", false);
  s.overviewScore = panels.text("overview_score", 200, false);
  s.comparison = panels.text("comparison", 32, false);
  if (!s.comparison.isEmpty() && !session_comparisons().contains(s.comparison))
    panels.fail(QStringLiteral("comparison"),
                QStringLiteral("expected one of %1").arg(session_comparisons().join(QStringLiteral(", "))));
  s.graphLayout = panels.integer("graph_layout", 0, 1, 0);
  s.normalisedLaplacian = panels.flag("normalised_laplacian", false);
  const QJsonObject cameras = panels.object("cameras");
  if (cameras.size() > 16)
    panels.fail(QStringLiteral("cameras"), QStringLiteral("more than 16 views"));
  for (auto it = cameras.begin(); it != cameras.end(); ++it) {
    if (it.key().size() > 100 || !it.value().isObject())
      panels.fail(QStringLiteral("cameras"), QStringLiteral("expected view names with a camera each"));
    const Reader camera(it.value().toObject(),
                        source + QStringLiteral(": panels: cameras: ") + it.key());
    render::SceneCamera c{camera.vector3("direction"), camera.vector3("up")};
    if (!render::scene_camera_valid(c))
      camera.fail(QStringLiteral("direction"), QStringLiteral("no direction (zero, or along up)"));
    s.cameras.emplace_back(it.key(), render::scene_camera_normalised(c));
  }
  const Reader figure(root.object("figure"), source + QStringLiteral(": figure"));
  s.figureColumns = figure.integer("columns", 0, 26, 0);
  const QJsonValue views = figure.raw().value(QStringLiteral("views"));
  if (!views.isUndefined()) {
    if (!views.isArray() || views.toArray().size() > 26)
      figure.fail(QStringLiteral("views"), QStringLiteral("expected a list of at most 26 names"));
    for (const QJsonValue& v : views.toArray()) {
      if (!v.isString() || v.toString().size() > 100)
        figure.fail(QStringLiteral("views"), QStringLiteral("expected view names"));
      s.figureViews << v.toString();
    }
  }
  const QString layout = root.text("layout", kMaxSessionBytes, false);
  s.layout = QByteArray::fromBase64(layout.toLatin1());
  return s;
}

Session session_read(const QString& path) {
  // A regular file of bounded size (never a FIFO or a device), as every input file.
  try {
    return session_from_json(
        QByteArray::fromStdString(models::input_file_read(path.toStdString(), kMaxSessionBytes)), path);
  } catch (const models::ModelInputError& e) {
    throw SessionError(e.what());
  }
}

void session_write(const Session& session, const QString& path) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw SessionError((path + QStringLiteral(": cannot write (") + file.errorString() +
                        QStringLiteral(")"))
                           .toStdString());
  file.write(session_to_json(session));
  if (!file.commit())
    throw SessionError((path + QStringLiteral(": cannot write (") + file.errorString() +
                        QStringLiteral(")"))
                           .toStdString());
}

QStringList session_comparisons() {
  return {QStringLiteral("after"), QStringLiteral("before"), QStringLiteral("difference"),
          QStringLiteral("side_by_side")};
}

QStringList session_places_outside(const Session& s, int layers, int heads, int tokens) {
  QStringList out;
  if (s.layer >= layers)
    out << QStringLiteral("selection.layer %1 (the model has %2 layers)").arg(s.layer).arg(layers);
  if (s.head >= heads)
    out << QStringLiteral("selection.head %1 (the model has %2 heads)").arg(s.head).arg(heads);
  if (s.query >= tokens)
    out << QStringLiteral("selection.query %1 (the sentence has %2 tokens)").arg(s.query).arg(tokens);
  if (s.key >= tokens)
    out << QStringLiteral("selection.key %1 (the sentence has %2 tokens)").arg(s.key).arg(tokens);
  return out;
}

QStringList session_model_changes(const Session& s, const QString& configSha256,
                                  const QString& tokenizerSha256) {
  QStringList changes;
  if (s.configSha256.isEmpty()) return changes;  // the session recorded no content to compare
  if (s.configSha256 != configSha256)
    changes << QStringLiteral("config.json (SHA-256 %1... now %2...)")
                   .arg(s.configSha256.left(12), configSha256.left(12));
  if (s.tokenizerSha256 != tokenizerSha256 && !(s.tokenizerSha256.isEmpty() && tokenizerSha256.isEmpty()))
    changes << QStringLiteral("tokenizer.json (SHA-256 %1... now %2...)")
                   .arg(s.tokenizerSha256.isEmpty() ? QStringLiteral("none") : s.tokenizerSha256.left(12),
                        tokenizerSha256.isEmpty() ? QStringLiteral("none") : tokenizerSha256.left(12));
  return changes;
}

}  // namespace sinkscope::ui
