// Session files (models/document/session_format.h). The JSON round trip keeps every field;
// hostile or damaged files are refused with the file and the field, never a
// crash, a hang (FIFO) or a deep recursion.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/document/session_format.h"
#include "models/intervention.h"
#include "models/model_identity.h"

using namespace sinkscope::document;
namespace fs = std::filesystem;

namespace {

Session example() {
  Session s;
  s.model = "/models/tiny-llama";
  s.modelFolder = "/models/tiny-llama";
  s.configSha256 = std::string(64, 'a');
  s.tokenizerSha256 = std::string(64, 'b');
  s.text = "The \"sink\", it seems,\nsinks. \u00e9\u4e2d";
  s.layer = 3;
  s.head = -1;
  s.query = 7;
  s.key = 0;
  s.threshold = 0.125;
  s.topN = 5;
  s.interventions.dropFirstToken = true;
  sinkscope::models::SinkRemoval masked;
  masked.layers = {1};
  masked.percentile = 87.5;
  masked.gamma = 0.1 + 0.2;  // not a short decimal: kept to the bit
  masked.beforeSoftmax = true;
  s.interventions.removeSinks = {masked};
  s.interventions.ablateHeads = {{1, 0}, {2, 0}};
  s.interventions.ropeTheta = 500000.0;
  s.interventions.ntkScale = 4.0;
  s.analysis.percentile = 75.5;
  s.analysis.seed = 11;
  s.analysis.symmetriseByMax = true;
  s.analysis.thresholds = {0.02, 0.3};
  s.compareModel = "/models/deep";
  s.compareLayer = 11;
  s.compareHead = -1;  // B's head average, pinned
  s.logScale = true;
  s.overviewScore = "entropy (mean over queries)";
  s.layout = std::string("\x00\x01layout\xff", 10);
  return s;
}

std::string refusal(const std::string& bytes) {
  try {
    session_from_json(bytes, "s.sinkscope");
  } catch (const SessionError& e) {
    return e.what();
  }
  return "(accepted)";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Session, RoundTripKeepsEveryField) {
  const Session s = example();
  const Session back = session_from_json(session_to_json(s), "test");
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
  EXPECT_EQ(back.analysis.percentile, 75.5);
  EXPECT_EQ(back.analysis.seed, 11u);
  EXPECT_TRUE(back.analysis.symmetriseByMax);
  EXPECT_EQ(back.analysis.thresholds, (std::vector<double>{0.02, 0.3}));
  EXPECT_EQ(back.analysis.gamma, AnalysisSettings{}.gamma);
  // A session from before the settings were saved: analyze's defaults.
  nlohmann::json old = nlohmann::json::parse(session_to_json(s));
  old.erase("analysis");
  EXPECT_EQ(session_from_json(old.dump(), "old").analysis.percentile,
            AnalysisSettings{}.percentile);
  EXPECT_EQ(back.compareModel, s.compareModel);
  EXPECT_EQ(back.compareLayer, 11);
  EXPECT_EQ(back.compareHead, -1);
  // Not pinned: absent from the file, and automatic when read.
  Session automatic = s;
  automatic.compareLayer = automatic.compareHead = Session::kAutomatic;
  const std::string json = session_to_json(automatic);
  EXPECT_FALSE(has(json, "\"layer\": -2")) << json;
  const Session autoBack = session_from_json(json, "test");
  EXPECT_EQ(autoBack.compareLayer, Session::kAutomatic);
  EXPECT_EQ(autoBack.compareHead, Session::kAutomatic);
  EXPECT_TRUE(back.logScale);
  EXPECT_EQ(back.overviewScore, s.overviewScore);
  EXPECT_EQ(back.layout, s.layout);
  EXPECT_TRUE(has(session_to_json(s), "\"format\": \"sinkscope-session\""));
}

TEST(Session, DamagedOrHostileFilesNameTheFieldAndProblem) {
  const std::string good = session_to_json(example());
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string b = good;
    const std::size_t at = b.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? b : b.replace(at, from.size(), to);
  };
  EXPECT_EQ(refusal("[1, 2]").rfind("s.sinkscope: not a JSON object", 0), 0u);
  EXPECT_EQ(refusal(edited("\"version\": 2", "\"version\": 99")),
            "s.sinkscope: version: 99; this SinkScope reads versions 1 to 2");
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
  EXPECT_EQ(refusal(edited("\"symmetrise\": \"max\"", "\"symmetrise\": \"min\"")),
            "s.sinkscope: analysis.symmetrise: expected one of mean, max");
  EXPECT_EQ(refusal(edited("\"percentile\": 75.5", "\"percentile\": 750")),
            "s.sinkscope: analysis.percentile: 750 is outside 0 to 100");
  EXPECT_EQ(refusal(edited("\"percentile\": 75.5", "\"percentile\": 75.5, \"frob\": 1"))
                .rfind("s.sinkscope: analysis.frob: not an analysis setting", 0),
            0u);
  EXPECT_EQ(refusal(edited("\"drop_first\": true", "\"drop_first\": 1")),
            "s.sinkscope: interventions: drop_first: expected true or false");
  EXPECT_EQ(refusal(edited("\"ablate\": [", "\"ablate\": [[1.5, 0], ")),
            "s.sinkscope: interventions: ablate[0]: expected a whole number from 0 to 4095");
  EXPECT_EQ(refusal(edited("\"ablate\": [", "\"ablate\": [[7], ")),
            "s.sinkscope: interventions: ablate[0]: expected [layer, head]");
  // One head ablated twice (a 4 MB list of one pair made a 23 MB CSV header).
  EXPECT_EQ(refusal(edited("\"ablate\": [", "\"ablate\": [[9, 1], [9, 1], ")),
            "s.sinkscope: interventions: ablate[1]: [9, 1] is ablate[0] again; name each head "
            "once");
  EXPECT_EQ(refusal(edited("\"percentile\": \"", "\"percentile\": 200, \"was\": \"")),
            "s.sinkscope: interventions: remove_sinks[0]: percentile: expected a finite number from "
            "0x0p+0 to 0x1.9p+6 (0.000000 to 100.000000)");
  EXPECT_EQ(refusal(edited("\"ntk_scale\"", "\"ntk\"")),
            "s.sinkscope: interventions: ntk_scale: missing");
  EXPECT_EQ(refusal(edited("\"rope_theta\": \"", "\"rope_theta\": \"nan")).rfind(
                "s.sinkscope: interventions: rope_theta: ", 0),
            0u);
  EXPECT_EQ(refusal(edited("\"log_scale\": true", "\"log_scale\": 1")),
            "s.sinkscope: panels: log_scale: expected true or false");
  EXPECT_EQ(refusal(std::string(100000, '[')), "s.sinkscope: JSON nested deeper than a session file");
  EXPECT_EQ(refusal(std::string(5 << 20, ' ')), "s.sinkscope: larger than a session file can be");
}

// A version 1 session (a list of {kind, layers, heads, parameter}) is read
// into the one form. A small file cannot ask for millions of (layer, head)
// pairs: repeated indices collapse, an ablation names its heads, and indices
// beyond the model are refused when it runs.
TEST(Session, AVersion1SessionIsReadIntoTheOneForm) {
  auto version1 = [](const std::string& interventions) {
    return std::string(R"({"format": "sinkscope-session", "version": 1, "model": {"name": "m"},
      "text": "A cat.", "selection": {}, "interventions": )") + interventions + "}";
  };
  std::string zeros = "[0";
  for (int k = 1; k < 4096; ++k) zeros += ", 0";
  zeros += "]";
  const Session s = session_from_json(
      version1(std::string(R"([{"kind": "drop_first_token"},
        {"kind": "mask_sinks", "layers": [2, 1, 2], "heads": []},
        {"kind": "ablate_heads", "layers": )") + zeros + R"(, "heads": )" + zeros + R"(},
        {"kind": "ablate_heads", "layers": [0, 3], "heads": [1]},
        {"kind": "rope_scale", "parameter": 8}])"),
      "old.sinkscope");
  EXPECT_TRUE(s.interventions.dropFirstToken);
  ASSERT_EQ(s.interventions.removeSinks.size(), 1u);
  EXPECT_EQ(s.interventions.removeSinks[0].layers, (std::vector<int>{1, 2}));
  EXPECT_TRUE(s.interventions.removeSinks[0].beforeSoftmax);
  EXPECT_EQ(s.interventions.ablateHeads,
            (std::vector<sinkscope::models::HeadId>{{0, 0}, {0, 1}, {3, 1}}));
  EXPECT_EQ(s.interventions.ntkScale, 8.0);
  // Saved again, it is version 2 and the same.
  const std::string again = session_to_json(s);
  EXPECT_TRUE(has(again, "\"version\": 2"));
  EXPECT_EQ(session_from_json(again, "new").interventions, s.interventions);

  EXPECT_EQ(refusal(version1(R"([{"kind": "ablate_heads", "layers": [1]}])")),
            "s.sinkscope: interventions[0]: heads: name the ablated heads' layers and heads");
  EXPECT_EQ(refusal(version1(R"([{"kind": "explode"}])")),
            "s.sinkscope: interventions[0]: kind: \"explode\" is not an intervention");
  EXPECT_EQ(refusal(version1(R"([{"kind": "rope_scale", "parameter": -1}])")).rfind(
                "s.sinkscope: interventions[0]: parameter: ", 0),
            0u);

  // Indices beyond the model: refused, naming the entry, before anything runs.
  sinkscope::models::Intervention beyond;
  beyond.dropFirstToken = true;
  beyond.ablateHeads = {{0, 1}, {4000, 0}};
  EXPECT_NO_THROW(beyond.without(2).check_fits(3, 4));
  try {
    beyond.check_fits(3, 4);
    ADD_FAILURE() << "layer 4000 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "ablate heads (layer 4000; head 0): layer 4000 is not in this model (layers 0 to 2)");
  }
}

TEST(Session, OnlyRegularFilesOfBoundedSizeAreRead) {
  const fs::path dir = fs::temp_directory_path() / ("sinkscope-session-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "pipe.sinkscope";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  try {
    session_read(fifo);
    FAIL() << "a FIFO was read";
  } catch (const SessionError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  const fs::path big = dir / "big.sinkscope";
  std::ofstream(big).close();
  fs::resize_file(big, std::uintmax_t{64} << 20);  // sparse
  try {
    session_read(big);
    FAIL() << "a 64 MiB file was read";
  } catch (const SessionError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the limit"), std::string::npos);
  }
  const fs::path path = dir / "ok.sinkscope";
  session_write(example(), path);
  EXPECT_EQ(session_read(path).text, example().text);
  fs::remove_all(dir);
}

TEST(Session, ModelChangesAreNamed) {
  const Session s = example();
  EXPECT_TRUE(session_model_changes(s, s.configSha256, s.tokenizerSha256).empty());
  const std::vector<std::string> changed = session_model_changes(s, std::string(64, 'c'), s.tokenizerSha256);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed.front().rfind("config.json", 0), 0u) << changed.front();
  EXPECT_EQ(session_model_changes(s, s.configSha256, std::string()).size(), 1u);
  Session written = s;  // written by hand, without hashes: nothing to compare
  written.configSha256.clear();
  written.tokenizerSha256.clear();
  EXPECT_TRUE(session_model_changes(written, s.configSha256, s.tokenizerSha256).empty());
}

namespace {

// A model folder of the test's own: a config.json of `text` (what its hash is
// taken of) and nothing else the search looks at.
void make_model(const fs::path& folder, const std::string& config) {
  fs::create_directories(folder);
  std::ofstream(folder / "config.json") << config;
}

}  // namespace

// A session written beside its model is found again when both move to
// another machine (another folder), and a Hugging Face cache snapshot is
// found by its repository and revision in this machine's cache; a folder
// whose config differs gives way to one whose config is the session's.
TEST(Session, ItsModelIsFoundWhereverItWasMovedOrCached) {
  const fs::path root =
      fs::temp_directory_path() / ("sinkscope-session-" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path here = root / "mine";
  make_model(here / "models" / "tiny", "{\"model_type\": \"llama\"}");
  Session s = example();
  s.modelFolder = (here / "models" / "tiny").string();
  s.model = s.modelFolder;
  s.configSha256 = sinkscope::models::sha256_hex("{\"model_type\": \"llama\"}");
  session_write(s, here / "run.sinkscope");
  EXPECT_EQ(session_read(here / "run.sinkscope").modelRelative, "models/tiny");
  // Sent to a colleague: the whole folder elsewhere, the old path gone.
  fs::rename(here, root / "theirs");
  bool found = false;
  const Session moved = session_read_here(root / "theirs" / "run.sinkscope", &found);
  EXPECT_TRUE(found);
  EXPECT_EQ(fs::path(moved.modelFolder), root / "theirs" / "models" / "tiny");

  // A cache snapshot: written with its repository and revision; on another
  // machine, its cache holds it at another place.
  const fs::path cacheA = root / "cacheA", cacheB = root / "cacheB";
  const fs::path snapshot = cacheA / "models--org--tiny" / "snapshots" / "0123abcd";
  make_model(snapshot, "{\"model_type\": \"llama\"}");
  EXPECT_EQ(hub_snapshot_of(snapshot),
            (std::pair<std::string, std::string>{"org/tiny", "0123abcd"}));
  EXPECT_EQ(hub_snapshot_of(here / "models" / "tiny"), (std::pair<std::string, std::string>{}));
  Session cached = s;
  cached.modelFolder = snapshot.string();
  cached.model = "org/tiny";
  session_write(cached, root / "cached.sinkscope");
  const Session read = session_read(root / "cached.sinkscope");
  EXPECT_EQ(read.hubName, "org/tiny");
  EXPECT_EQ(read.hubRevision, "0123abcd");
  fs::rename(cacheA, cacheB);
  Session away = read;
  away.modelRelative.clear();  // not beside the session: the cache must find it
  EXPECT_EQ(session_model_folder(away, root / "cached.sinkscope", cacheB),
            cacheB / "models--org--tiny" / "snapshots" / "0123abcd");
  EXPECT_TRUE(session_model_folder(away, root / "cached.sinkscope", root / "no-cache").empty());

  // Two candidates: the one whose config is the session's wins; with none
  // matching, the first found is returned (its changes are then said).
  make_model(root / "other", "{\"model_type\": \"gpt2\"}");
  Session two = s;
  two.modelFolder = (root / "other").string();
  two.modelRelative = "theirs/models/tiny";
  EXPECT_EQ(session_model_folder(two, root / "two.sinkscope", root / "no-cache"),
            root / "theirs" / "models" / "tiny");
  two.configSha256 = std::string(64, 'f');
  EXPECT_EQ(session_model_folder(two, root / "two.sinkscope", root / "no-cache"), root / "other");
  fs::remove_all(root);
}

// The new fields are untrusted input too.
TEST(Session, HostileModelPlacesAreRefusedByName) {
  const std::string good = session_to_json(example());
  const auto refused = [&](const char* field, const nlohmann::json& value, const char* words) {
    nlohmann::json doc = nlohmann::json::parse(good);
    doc["model"][field] = value;
    try {
      session_from_json(doc.dump(), "bad.sinkscope");
      ADD_FAILURE() << field << " accepted";
    } catch (const SessionError& e) {
      EXPECT_TRUE(has(e.what(), field) && has(e.what(), words)) << e.what();
    }
  };
  refused("folder_relative", "/etc", "absolute");
  refused("hub_name", "../../etc", "ORG/NAME");
  refused("hub_name", "a/b/c", "ORG/NAME");
  refused("hub_revision", "../x", "not a revision");
  refused("hub_revision", "..", "not a revision");
  for (const char* capture : {"../run.npz", "/etc/passwd", "..", "sub/run.npz"}) {
    nlohmann::json doc = nlohmann::json::parse(good);
    doc["capture"] = capture;
    try {
      session_from_json(doc.dump(), "bad.sinkscope");
      ADD_FAILURE() << capture << " accepted";
    } catch (const SessionError& e) {
      EXPECT_TRUE(has(e.what(), "capture") && has(e.what(), "beside the session")) << e.what();
    }
  }
  nlohmann::json doc = nlohmann::json::parse(good);
  doc["capture"] = "run.capture.npz";
  EXPECT_EQ(session_from_json(doc.dump(), "good.sinkscope").capture, "run.capture.npz");
}

// The weights' content hash: SHA-256 of each weight file's name, size and
// bytes (recomputed here from the bytes, in one piece), kept in the user's
// cache so a second call reads no weights; a rewritten file is hashed anew;
// a folder over the size limit and not cached gives none. A session names a
// change of weights, and none where either side was not hashed.
TEST(Session, ItsModelsWeightsAreHashedOnceAndAChangeIsNamed) {
  const fs::path root =
      fs::temp_directory_path() / ("sinkscope-weights-" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path model = root / "model";
  fs::create_directories(model);
  const fs::path source =
      fs::path(SINKSCOPE_SOURCE_DIR) / "resources/models/rope-decoder-bos-first";
  for (const char* file : {"config.json", "tokenizer.json", "model.safetensors"})
    fs::copy_file(source / file, model / file);
  const char* saved = std::getenv("XDG_CACHE_HOME");
  const std::string before = saved ? saved : "";
  setenv("XDG_CACHE_HOME", (root / "cache").c_str(), 1);
  const auto bytes = [](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string weights = bytes(model / "model.safetensors");
  const std::string expected = sinkscope::models::sha256_hex(
      std::string("model.safetensors") + '\0' + std::to_string(weights.size()) + '\0' + weights);
  EXPECT_TRUE(sinkscope::models::weight_files_sha256(model, 1000).empty()) << "over the limit";
  EXPECT_EQ(sinkscope::models::weight_files_sha256(model), expected);
  ASSERT_TRUE(fs::exists(root / "cache" / "sinkscope" / "weights-sha256"));
  EXPECT_EQ(sinkscope::models::weight_files_sha256(model, 1000), expected) << "cached: not read";
  // Rewritten (one byte changed): a new stamp, a new hash.
  std::string changed = weights;
  changed.back() = static_cast<char>(changed.back() ^ 1);
  std::ofstream(model / "model.safetensors", std::ios::binary | std::ios::trunc) << changed;
  const std::string now = sinkscope::models::weight_files_sha256(model);
  EXPECT_NE(now, expected);
  Session s = example();
  s.configSha256 = sinkscope::models::sha256_hex(bytes(model / "config.json"));
  s.tokenizerSha256 = sinkscope::models::sha256_hex(bytes(model / "tokenizer.json"));
  s.weightsSha256 = expected;
  const auto changes = session_model_changes(s, s.configSha256, s.tokenizerSha256, now);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_TRUE(has(changes[0], "the weights")) << changes[0];
  EXPECT_TRUE(session_model_changes(s, s.configSha256, s.tokenizerSha256, "").empty());
  EXPECT_EQ(session_from_json(session_to_json(s), "t").weightsSha256, expected);
  if (saved)
    setenv("XDG_CACHE_HOME", before.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
  fs::remove_all(root);
}
