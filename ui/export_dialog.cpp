#include "ui/export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace sinkscope::ui {

namespace {
const render::FigurePreset kPresets[] = {render::FigurePreset::Screen, render::FigurePreset::OneColumn,
                                         render::FigurePreset::TwoColumns, render::FigurePreset::Slide};
}  // namespace

QString export_file_name(const QString& model, int layer, int head, const QString& panel,
                         const QString& viewWords) {
  // Names as a shell and every file system take them: letters, digits, '.', '_', '-'.
  auto kebab = [](const QString& text) {
    QString out;
    for (QChar c : text.toLower()) {
      const bool plain = (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'.' ||
                         c == u'_' || c == u'-';
      if (plain)
        out += c;
      else if (!out.endsWith(QLatin1Char('-')))
        out += QLatin1Char('-');
    }
    while (out.endsWith(QLatin1Char('-'))) out.chop(1);
    while (out.startsWith(QLatin1Char('-')) || out.startsWith(QLatin1Char('.'))) out.remove(0, 1);
    return out;
  };
  QString what = kebab(panel);
  const QString view = kebab(viewWords);
  if (!view.isEmpty() && view != what)
    what = view.startsWith(what + QLatin1Char('-')) || what.isEmpty()
               ? view
               : what + QLatin1Char('-') + view;
  QString stem = kebab(model);
  if (stem.isEmpty()) stem = QStringLiteral("sinkscope");
  return QStringLiteral("%1-layer%2-head%3-%4.png")
      .arg(stem)
      .arg(layer)
      .arg(head < 0 ? QStringLiteral("avg") : QString::number(head))
      .arg(what.isEmpty() ? QStringLiteral("figure") : what);
}

ExportDialog::ExportDialog(const QString& what, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export %1").arg(what));
  auto* layout = new QVBoxLayout(this);
  auto* heading = new QLabel(tr("Exports <b>%1</b>. PNG, PDF and SVG are the same drawing; CSV "
                                "holds the numbers it draws.")
                                 .arg(what.toHtmlEscaped()),
                             this);
  heading->setWordWrap(true);
  layout->addWidget(heading);
  auto* form = new QFormLayout;
  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("exportPreset"));
  preset_->addItems({tr("The panel's size on screen"), tr("One column (85 mm)"),
                     tr("Two columns (178 mm)"), tr("Slide (16:9)"), tr("Custom size")});
  width_ = new QDoubleSpinBox(this);
  height_ = new QDoubleSpinBox(this);
  for (QDoubleSpinBox* box : {width_, height_}) {
    box->setRange(20.0, 1000.0);
    box->setSuffix(tr(" mm"));
    box->setDecimals(1);
  }
  dpi_ = new QSpinBox(this);
  dpi_->setObjectName(QStringLiteral("exportDpi"));
  dpi_->setRange(72, 1200);
  dpi_->setSuffix(tr(" DPI (PNG)"));
  font_ = new QDoubleSpinBox(this);
  font_->setObjectName(QStringLiteral("exportFont"));
  font_->setRange(0.0, 48.0);
  font_->setSingleStep(0.5);
  font_->setSuffix(tr(" pt"));
  font_->setSpecialValueText(tr("as on screen"));
  transparent_ = new QCheckBox(tr("Transparent background"), this);
  visibleSpaces_ = new QCheckBox(tr("Show spaces in tokens as \u2423"), this);
  title_ = new QLineEdit(this);
  title_->setObjectName(QStringLiteral("exportTitle"));
  title_->setMaxLength(300);
  title_->setPlaceholderText(tr("none (a paper's caption says what a figure is)"));
  title_->setToolTip(tr("Drawn above a paper-sized figure. Without one the figure has no title; "
                        "the view's own title (model, layer, head) is always in the file's metadata."));
  form->addRow(tr("Size"), preset_);
  form->addRow(tr("Width"), width_);
  form->addRow(tr("Height"), height_);
  form->addRow(tr("Resolution"), dpi_);
  form->addRow(tr("Text"), font_);
  form->addRow(tr("Title"), title_);
  form->addRow(QString(), transparent_);
  form->addRow(QString(), visibleSpaces_);
  selection_ = new QCheckBox(tr("Draw the selection (framed cell or head, selected layer)"), this);
  selection_->setObjectName(QStringLiteral("exportSelection"));
  selection_->setToolTip(
      tr("Paper sizes leave the window's selection out unless asked; the "
         "screen's size draws what the screen shows"));
  form->addRow(QString(), selection_);
  wholePanel_ = new QCheckBox(this);
  wholePanel_->setObjectName(QStringLiteral("exportWholePanel"));
  wholePanel_->hide();
  form->addRow(QString(), wholePanel_);
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);

  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    const bool custom = index == 4;
    width_->setEnabled(custom || index > 0);
    height_->setEnabled(custom || index > 0);
    if (index >= 0 && index < 4) {
      const render::FigureOptions o = render::figure_preset(kPresets[index], dpi_->value());
      width_->setValue(o.widthMm > 0 ? o.widthMm : 141.1);
      height_->setValue(o.heightMm > 0 ? o.heightMm : 105.8);
      width_->setEnabled(false);
      height_->setEnabled(false);
      font_->setValue(o.fontPt);
    }
  });
  const QSettings settings;
  dpi_->setValue(settings.value(QStringLiteral("export/dpi"), 300).toInt());
  preset_->setCurrentIndex(-1);
  // A paper's column until the user picks another size (then the last one chosen).
  preset_->setCurrentIndex(
      std::clamp(settings.value(QStringLiteral("export/preset"), 1).toInt(), 0, 4));
  if (preset_->currentIndex() == 4) {
    width_->setValue(settings.value(QStringLiteral("export/widthMm"), 120.0).toDouble());
    height_->setValue(settings.value(QStringLiteral("export/heightMm"), 90.0).toDouble());
    font_->setValue(settings.value(QStringLiteral("export/fontPt"), 8.0).toDouble());
  }
  transparent_->setChecked(settings.value(QStringLiteral("export/transparent"), false).toBool());
  visibleSpaces_->setChecked(settings.value(QStringLiteral("export/visibleSpaces"), false).toBool());
  selection_->setChecked(settings.value(QStringLiteral("export/selection"), false).toBool());
}

void ExportDialog::offerWholePanel(int views) {
  wholePanel_->setText(tr("The whole panel: its %1 views as (a), (b), ... (PNG, PDF, SVG)").arg(views));
  wholePanel_->setVisible(views > 1);
}

bool ExportDialog::wholePanel() const { return wholePanel_->isVisible() && wholePanel_->isChecked(); }

void ExportDialog::setPreset(render::FigurePreset preset) {
  for (int k = 0; k < 4; ++k)
    if (kPresets[k] == preset) preset_->setCurrentIndex(k);
}

render::FigureOptions ExportDialog::options() const {
  render::FigureOptions o;
  o.dpi = dpi_->value();
  if (preset_->currentIndex() > 0) {
    o.widthMm = width_->value();
    o.heightMm = height_->value();
  }
  o.fontPt = font_->value();
  o.transparent = transparent_->isChecked();
  o.visibleSpaces = visibleSpaces_->isChecked();
  o.drawSelection = selection_->isChecked();
  o.title = title_->text().simplified();
  return o;
}

void ExportDialog::remember() const {
  QSettings settings;
  settings.setValue(QStringLiteral("export/preset"), preset_->currentIndex());
  settings.setValue(QStringLiteral("export/dpi"), dpi_->value());
  settings.setValue(QStringLiteral("export/widthMm"), width_->value());
  settings.setValue(QStringLiteral("export/heightMm"), height_->value());
  settings.setValue(QStringLiteral("export/fontPt"), font_->value());
  settings.setValue(QStringLiteral("export/transparent"), transparent_->isChecked());
  settings.setValue(QStringLiteral("export/selection"), selection_->isChecked());
  settings.setValue(QStringLiteral("export/visibleSpaces"), visibleSpaces_->isChecked());
}

QString user_folder(const QString& remembered) {
  // Never a model's own folder (the built-in models, a checkpoint): a figure
  // or session saved there would sit among the weights.
  const bool usable = !remembered.isEmpty() && QFileInfo(remembered).isDir() &&
                      !QFileInfo::exists(QDir(remembered).filePath(QStringLiteral("config.json")));
  return usable ? remembered : QDir::homePath();
}

QString export_folder() {
  return user_folder(QSettings().value(QStringLiteral("export/folder")).toString());
}

void export_folder_remember(const QString& file) {
  QSettings().setValue(QStringLiteral("export/folder"), QFileInfo(file).absolutePath());
}

}  // namespace sinkscope::ui
