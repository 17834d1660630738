#include "ui/figure_writer.h"
#include <QFileInfo>
#include "models/io/table_io.h"

#include <QTimer>
#include <stdexcept>

#include "render/drawn_views.h"
#include "ui/job_runner.h"
#include "ui/panel_board.h"
#include "ui/panel_registry.h"
#include "ui/selection_model.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

void figure_write_view(const render::DrawnViews& drawn, QWidget* view, const QString& path,
                       const render::FigureOptions& options, const QStringList& provenance,
                       bool overwrite) {
  const std::optional<render::FigurePart> part = drawn.part(view);
  if (!part) throw std::invalid_argument("export: this panel has nothing to export");
  render::figure_part_export(*part, path, options, provenance, overwrite);
}

FigureWriter::FigureWriter(Workspace* workspace, PanelBoard* panels, QObject* parent)
    : QObject(parent), workspace_(workspace), panels_(panels) {
  connect(workspace->jobs(), &JobRunner::idle, this, [this] {
    if (request_) QTimer::singleShot(0, this, &FigureWriter::look);
  });
}

void FigureWriter::writeWhenReady(const FigureRequest& request) {
  if (request_) {  // the one being written goes on
    Q_EMIT written(false, tr("another figure is being written"));
    return;
  }
  try {
    views_ = figure_views_of(request.names);
  } catch (const std::invalid_argument& e) {
    return finish(false, QString::fromUtf8(e.what()));
  }
  if (!workspace_->run()) return finish(false, tr("no sentence has been run"));
  for (const PanelEntry& panel : panel_registry())
    if (panel.needsCheckpoints && request.names.contains(panel.name) &&
        workspace_->checkpoints().steps.empty())
      return finish(false, tr("--panel %1 needs a training run's checkpoints (--checkpoints DIR, "
                              "or a session that names them)")
                               .arg(panel.name));
  if (const QString problem = applySelection(request); !problem.isEmpty())
    return finish(false, problem);
  request_ = request;
  quietLooks_ = 0;
  comparisonApplied_ = false;
  QTimer::singleShot(0, this, &FigureWriter::look);
}

QString FigureWriter::applySelection(const FigureRequest& request) {
  SelectionModel* selection = workspace_->selection();
  const int layers = selection->layerCount(), heads = selection->headCount(),
            tokens = selection->tokenCount();
  if (request.layer && (*request.layer < 0 || *request.layer >= layers))
    return tr("--layer %1: the model has layers 0 to %2").arg(*request.layer).arg(layers - 1);
  if (request.head && (*request.head < SelectionModel::kHeadAverage || *request.head >= heads))
    return tr("--head %1: the model has heads 0 to %2 (or avg)").arg(*request.head).arg(heads - 1);
  for (const auto& [given, what] : {std::pair{request.query, QStringLiteral("--query")},
                                    std::pair{request.key, QStringLiteral("--key")}})
    if (given && (*given < -1 || *given >= tokens))
      return tr("%1 %2: the sentence has tokens 0 to %3").arg(what).arg(*given).arg(tokens - 1);
  if (request.layer) selection->setLayer(*request.layer);
  if (request.head) selection->setHead(*request.head);
  if (request.query) selection->setQueryToken(*request.query);
  if (request.key) selection->setKeyToken(*request.key);
  if (request.threshold) selection->setThreshold(*request.threshold);
  if (request.topN) selection->setTopN(*request.topN);
  if (request.camera) {
    std::vector<std::pair<QString, views::SceneCamera>> cameras;
    for (const char* view : {"graphView", "spectralEmbedding", "valueSpaceView"})
      cameras.emplace_back(QString::fromLatin1(view), *request.camera);
    panels_->setSceneCameras(cameras);
  }
  return {};
}

QString FigureWriter::applyComparison(const FigureRequest& request) {
  const bool asked = request.compareLayer || request.compareHead || !request.comparison.isEmpty();
  if (!asked) return {};
  if (!workspace_->comparing() || !workspace_->runB())
    return tr("--compare-layer, --compare-head and --comparison need a comparison "
              "(--compare-sentence, --compare-model, or a session that compares)");
  SelectionModel* selection = workspace_->selection();
  const int layers = selection->counterpartLayerCount(), heads = selection->counterpartHeadCount();
  const QString b = workspace_->rightName();
  if (request.compareLayer && (*request.compareLayer < 0 || *request.compareLayer >= layers))
    return tr("--compare-layer %1: %2 has layers 0 to %3").arg(*request.compareLayer).arg(b).arg(layers - 1);
  if (request.compareHead &&
      (*request.compareHead < SelectionModel::kHeadAverage || *request.compareHead >= heads))
    return tr("--compare-head %1: %2 has heads 0 to %3 (or avg)").arg(*request.compareHead).arg(b).arg(heads - 1);
  if (request.compareLayer) selection->setCounterpartLayer(*request.compareLayer);
  if (request.compareHead) selection->setCounterpartHead(*request.compareHead);
  if (!request.comparison.isEmpty()) {
    const auto c = document::comparison_of(request.comparison.toStdString());
    if (!c) return tr("--comparison %1: give a, b, difference or side-by-side").arg(request.comparison);
    workspace_->setComparison(*c);
  }
  return {};
}

// A result that arrives redraws the panels, which may ask for more (the
// topology of a head, the spectrum at a threshold): quiet means no job at
// two looks in a row. A comparison's B (its model loads in the background) is
// set up once everything is quiet, then the panels get quiet again.
void FigureWriter::look() {
  if (!request_) return;
  panels_->flushDraws();
  if (workspace_->jobs()->activeJobCount() > 0) {
    quietLooks_ = 0;  // the runner's idle() brings the next look
    return;
  }
  if (++quietLooks_ < 2) {
    QTimer::singleShot(0, this, &FigureWriter::look);
    return;
  }
  quietLooks_ = 0;
  if (!comparisonApplied_) {
    comparisonApplied_ = true;
    if (const QString problem = applyComparison(*request_); !problem.isEmpty())
      return finish(false, problem);
    QTimer::singleShot(0, this, &FigureWriter::look);
    return;
  }
  write();
}

void FigureWriter::write() {
  const FigureRequest request = *request_;
  if (QFileInfo(request.out).suffix().compare(QLatin1String("html"), Qt::CaseInsensitive) == 0) {
    // The run as a web page: every panel and head, not the views named.
    const auto make = workspace_->webPageMaker();
    if (!make) return finish(false, tr("no run to share as a web page"));
    try {
      io::file_write_atomic(request.out.toStdString(), make([](double) { return true; }),
                            request.force);
    } catch (const std::exception& e) {
      return finish(false, QString::fromUtf8(e.what()));
    }
    return finish(true, request.out);
  }
  const std::vector<QWidget*> views = panels_->viewsNamed(views_);
  if (views.size() != static_cast<std::size_t>(views_.size())) {
    QStringList missing;
    for (const QString& name : views_)
      if (panels_->viewsNamed({name}).empty()) missing << name;
    return finish(false, tr("nothing to draw in %1 for this run").arg(missing.join(QStringLiteral(", "))));
  }
  note_.clear();
  try {
    if (views.size() == 1) {
      figure_write_view(panels_->drawnViews(), views.front(), request.out, request.options,
                        workspace_->provenance(), request.force);
    } else {
      const QStringList leftOut =
          render::figure_export(panels_->drawnViews().parts(views), request.out, request.options,
                                request.columns, request.force);
      if (!leftOut.isEmpty())
        note_ = tr("left out, nothing to draw: %1").arg(leftOut.join(QStringLiteral("; ")));
    }
  } catch (const std::exception& e) {
    return finish(false, QString::fromUtf8(e.what()));
  }
  finish(true, request.out);
}

void FigureWriter::finish(bool ok, const QString& pathOrReason) {
  request_.reset();
  Q_EMIT written(ok, pathOrReason);
}

}  // namespace sinkscope::ui
