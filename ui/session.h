#pragma once
// A session: what the window shows, saved as a versioned
// JSON file (.sinkscope) so that a figure can be made again a month later:
// the model (as opened, its folder, and the hashes of its config and
// tokenizer, to tell when it changed), the sentence, the selection, the
// interventions and the panel options, optionally the dock layout. Session
// files are untrusted input: bounded size and depth, every field checked,
// errors name the file and the field.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "render/scene_data.h"

#include "models/intervention.h"

namespace sinkscope::ui {

class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Session {
  // 2: the interventions in their one JSON form (a study's); 1 is still read.
  static constexpr int kVersion = 2;
  // The model: as the user opened it (folder or cache name), the folder it
  // resolved to, and what identifies its content.
  QString model;
  QString modelFolder;
  QString configSha256;
  QString tokenizerSha256;
  QString text;
  // The selection (head -1: the head average; query, key -1: none).
  int layer = 0, head = 0, query = -1, key = -1;
  double threshold = 0.05;
  int topN = 3;
  models::Intervention interventions;
  // Panel options.
  bool logScale = false;     // the attention map's colour scale
  QString overviewScore;     // the overview's score, by its name in the chooser
  QString comparison;        // an intervention's comparison: after, before, difference, side_by_side
  int graphLayout = 0;       // the attention graph's layout: 0 spectral, 1 force-directed
  bool normalisedLaplacian = false;  // the spectrum panel's Laplacian
  // A comparison: the second run's sentence, or its model (folder
  // or cache name); at most one of the two. And an open training run's folder.
  QString compareSentence, compareModel;
  // Run B's pinned layer and head (head -1: B's head average); kAutomatic
  // (-2): the selection's counterpart (SelectionModel::counterpartLayer).
  static constexpr int kAutomatic = -2;
  int compareLayer = kAutomatic, compareHead = kAutomatic;
  QString checkpoints;
  QString study;  // an open corpus study's folder (sinkscope-cli study), or empty
  // The 3-D views' cameras, by view name (graphView, spectralEmbedding, valueSpaceView).
  std::vector<std::pair<QString, render::SceneCamera>> cameras;
  QByteArray layout;         // QMainWindow::saveState, optional
  // The multi-panel figure: its views (object names, in order) and columns.
  QStringList figureViews;
  int figureColumns = 0;
};

// The file's bytes (UTF-8 JSON, "format": "sinkscope-session").
QByteArray session_to_json(const Session& session);
// Throws SessionError naming `source` (the file) and the problem.
Session session_from_json(const QByteArray& bytes, const QString& source);
// Reads a file of at most 4 MiB (a regular file, not a device or FIFO).
Session session_read(const QString& path);
// Written atomically; throws SessionError.
void session_write(const Session& session, const QString& path);

// The names of the comparisons a session may give.
QStringList session_comparisons();

// What differs between the model a session names and the one opened for it
// (config and tokenizer hashes); empty when nothing does, or when the session
// recorded no hashes (a file written by hand).
// The places of the session's selection that the model and sentence shown do
// not have (layer, head, query, key beyond layers x heads x tokens), each
// named with its value and the bound; empty when every place exists.
QStringList session_places_outside(const Session& session, int layers, int heads, int tokens);

QStringList session_model_changes(const Session& session, const QString& configSha256,
                                  const QString& tokenizerSha256);

}  // namespace sinkscope::ui
