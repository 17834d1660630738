#pragma once
// A session: what the GUI shows, saved as a versioned JSON file
// (.sinkscope) so that a figure can be made again a month later: the model
// (as opened, its folder, and the hashes of its config and tokenizer, to tell
// when it changed), the sentence, the selection, the interventions, a
// comparison, the panel options, optionally the dock layout. Session files
// are untrusted input: bounded size and depth, every field checked, errors
// name the file and the field. No Qt: the GUI converts at its edge.
#include <array>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/document/analysis_settings.h"
#include "models/intervention.h"

namespace sinkscope::document {

class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A 3-D view's camera: where it looks, and which way is up; as read, unit
// vectors with up orthogonal to the direction (a camera with no direction,
// zero or along up, is refused).
struct SessionCamera {
  std::array<double, 3> direction{0.0, 0.0, 1.0};
  std::array<double, 3> up{0.0, 1.0, 0.0};
  bool operator==(const SessionCamera&) const = default;
};

struct Session {
  // 2: the interventions in their one JSON form (a study's); 1 is still read.
  static constexpr int kVersion = 2;
  // The model: as the user opened it (folder or cache name), the folder it
  // resolved to, and what identifies its content.
  std::string model, modelFolder, configSha256, tokenizerSha256;
  // Of the weight files' contents (models::weight_files_sha256); empty when
  // the model was too large to hash when the session was saved.
  std::string weightsSha256;
  // Where else the model may be on another machine: its folder relative to
  // the session file's folder (session_write fills it in), and, for a
  // Hugging Face cache snapshot, the repository and revision it is.
  std::string modelRelative, hubName, hubRevision;
  // The run's capture (attention and values as NPZ), saved with the session
  // when asked: its file name beside the session; the session opens from it
  // when its model is found nowhere.
  std::string capture;
  std::string text;
  // The selection (head -1: the head average; query, key -1: none).
  int layer = 0, head = 0, query = -1, key = -1;
  double threshold = 0.05;
  int topN = 3;
  models::Intervention interventions;
  // What every head is analysed with (the settings analyze and Python take;
  // absent from a file: analyze's defaults).
  AnalysisSettings analysis;
  // Panel options.
  bool logScale = false;      // the attention map's colour scale
  std::string overviewScore;  // the overview's score, by its name in the chooser
  std::string comparison;     // what two runs show: after, before, difference, side_by_side
  int graphLayout = 0;        // the attention graph's layout: 0 spectral, 1 force-directed
  bool normalisedLaplacian = false;  // the spectrum panel's Laplacian
  // A comparison: the second run's sentence, or its model (folder or cache
  // name); at most one of the two.
  std::string compareSentence, compareModel;
  // Run B's pinned layer and head (head -1: B's head average); kAutomatic:
  // the selection's counterpart (the same relative depth).
  static constexpr int kAutomatic = -2;
  int compareLayer = kAutomatic, compareHead = kAutomatic;
  std::string checkpoints;  // an open training run's folder, or empty
  std::string study;        // an open corpus study's folder, or empty
  // The 3-D views' cameras, by view name (graphView, spectralEmbedding, valueSpaceView).
  std::vector<std::pair<std::string, SessionCamera>> cameras;
  std::string layout;  // the window's dock layout (its bytes), optional
  // The multi-panel figure: its views (object names, in order) and columns.
  std::vector<std::string> figureViews;
  int figureColumns = 0;
};

// The file's bytes (UTF-8 JSON, "format": "sinkscope-session").
std::string session_to_json(const Session& session);
// Throws SessionError naming `source` (the file) and the problem.
Session session_from_json(const std::string& bytes, const std::string& source);
// Reads a file of at most 4 MiB (a regular file, not a device or FIFO).
Session session_read(const std::filesystem::path& path);
// Written atomically; throws SessionError.
void session_write(const Session& session, const std::filesystem::path& path);

// A Hugging Face cache snapshot folder (.../models--ORG--NAME/snapshots/REV)
// as ("ORG/NAME", "REV"); empty strings for any other folder.
std::pair<std::string, std::string> hub_snapshot_of(const std::filesystem::path& folder);

// Where a session's model is on this machine, in order: the folder it
// recorded, its folder relative to the session file (`sessionFile`: where
// the session was read from; empty: none), the Hugging Face cache's snapshot
// of its repository at its revision, then that repository's current
// snapshot (or the name as opened, when it is a cache name). The first such
// folder with a config.json whose SHA-256 is the session's (any, when the
// session recorded none) is returned; else the first folder found (its
// changes are then the session's warning, session_model_changes); empty when
// none exists (the caller asks for the folder).
std::filesystem::path session_model_folder(const Session& session,
                                           const std::filesystem::path& sessionFile,
                                           const std::filesystem::path& cacheRoot);

// session_read, with the model's folder replaced by where
// session_model_folder finds it on this machine (the Hugging Face cache the
// environment names); `found` says whether it was found anywhere.
Session session_read_here(const std::filesystem::path& path, bool* found = nullptr);

// The names of the comparisons a session may give.
const std::vector<std::string>& session_comparisons();

// The places of the session's selection that the model and sentence shown do
// not have (layer, head, query, key beyond layers x heads x tokens), each
// named with its value and the bound; empty when every place exists.
std::vector<std::string> session_places_outside(const Session& session, int layers, int heads,
                                                int tokens);
// What differs between the model a session names and the one opened for it
// (config and tokenizer hashes); empty when nothing does, or when the session
// recorded no hashes (a file written by hand).
std::vector<std::string> session_model_changes(const Session& session,
                                               const std::string& configSha256,
                                               const std::string& tokenizerSha256,
                                               const std::string& weightsSha256 = {});

}  // namespace sinkscope::document
