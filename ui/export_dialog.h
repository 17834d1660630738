#pragma once
// The figure options of an export (Ctrl+E): which
// view is exported (named, so the user knows), the size preset, DPI, font
// size, transparent background and visible spaces. The choices are
// remembered between exports, as is the folder.
#include <QDialog>

#include "render/panel_export.h"

class QCheckBox;
class QLineEdit;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace sinkscope::ui {

// The file an export offers: the run's model, the place and the panel by its
// command-line name, with the view's own words when one view of a panel of
// several is exported: "rope-decoder-bos-first-layer2-head1-persistence-barcode.png".
// `head` < 0: the head average ("avg"); `viewWords` empty: the whole panel.
QString export_file_name(const QString& model, int layer, int head, const QString& panel,
                         const QString& viewWords);

class ExportDialog : public QDialog {
  Q_OBJECT

 public:
  // `what`: the exported view in words, e.g. "Attention map (attentionView)".
  explicit ExportDialog(const QString& what, QWidget* parent = nullptr);
  render::FigureOptions options() const;
  void setPreset(render::FigurePreset preset);
  // Saves the choices for the next export.
  void remember() const;
  // Offers to export the whole panel, its `views` sub-plots as (a), (b), ...
  void offerWholePanel(int views);
  bool wholePanel() const;

 private:
  QComboBox* preset_ = nullptr;
  QSpinBox* dpi_ = nullptr;
  QDoubleSpinBox* width_ = nullptr;
  QDoubleSpinBox* height_ = nullptr;
  QDoubleSpinBox* font_ = nullptr;
  QCheckBox* transparent_ = nullptr;
  QCheckBox* visibleSpaces_ = nullptr;
  QLineEdit* title_ = nullptr;
  QCheckBox* wholePanel_ = nullptr;
  QCheckBox* selection_ = nullptr;
};

// A folder to offer in a save dialog: `remembered` (the last one used) when it
// is a folder and not a model's own folder (one holding a config.json), else
// the home folder.
QString user_folder(const QString& remembered);
// The folder the last export went to (the home folder at first), and remembering it.
QString export_folder();
void export_folder_remember(const QString& file);

}  // namespace sinkscope::ui
