#include "ui/analysis_settings_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "models/document/analysis_setting_specs.h"
#include "models/io/table_io.h"

namespace sinkscope::ui {

namespace {

QString tooltip(const document::SettingSpec& spec) {
  QString text = QString::fromStdString(spec.help);
  if (!spec.paper.empty())
    text += QStringLiteral(" (metrics.md %1)").arg(QString::fromStdString(spec.paper));
  return text + QStringLiteral("; ") + QString::fromStdString(spec.flag) +
         QStringLiteral(" of sinkscope-cli analyze");
}

}  // namespace

AnalysisSettingsDialog::AnalysisSettingsDialog(const document::AnalysisSettings& settings,
                                               QWidget* parent)
    : QDialog(parent), settings_(settings) {
  using document::SettingType;
  setWindowTitle(tr("Analysis settings"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  auto* intro = new QLabel(
      tr("Every head of the runs is analysed with these (as sinkscope-cli analyze with the same "
         "options); theta, top-N and the query are the selection bar's."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  for (const document::SettingSpec& spec : document::analysis_setting_specs()) {
    if (!spec.python || spec.selection) continue;
    const QString name = QString::fromStdString(spec.name);
    QWidget* editor = nullptr;
    Field field;
    switch (spec.type) {
      case SettingType::Number: {
        auto* box = new QDoubleSpinBox(this);
        box->setRange(spec.lo, spec.hi);
        box->setDecimals(4);
        box->setSingleStep(spec.hi - spec.lo > 10 ? 1.0 : 0.01);
        field.show = [box, &spec](const document::AnalysisSettings& s) {
          box->setValue(spec.number(s));
        };
        field.take = [box, &spec](document::AnalysisSettings& s, QString&) {
          spec.setNumber(s, box->value());
          return true;
        };
        editor = box;
        break;
      }
      case SettingType::Whole: {
        auto* box = new QSpinBox(this);
        box->setRange(static_cast<int>(spec.lo), static_cast<int>(std::min(spec.hi, 2147483647.0)));
        field.show = [box, &spec](const document::AnalysisSettings& s) {
          box->setValue(static_cast<int>(spec.number(s)));
        };
        field.take = [box, &spec](document::AnalysisSettings& s, QString&) {
          spec.setNumber(s, box->value());
          return true;
        };
        editor = box;
        break;
      }
      case SettingType::Word: {
        auto* box = new QComboBox(this);
        for (const std::string& w : spec.words) box->addItem(QString::fromStdString(w));
        field.show = [box, &spec](const document::AnalysisSettings& s) {
          box->setCurrentText(QString::fromStdString(spec.word(s)));
        };
        field.take = [box, &spec](document::AnalysisSettings& s, QString&) {
          spec.setWord(s, box->currentText().toStdString());
          return true;
        };
        editor = box;
        break;
      }
      case SettingType::NumberList: {
        auto* line = new QLineEdit(this);
        field.show = [line, &spec](const document::AnalysisSettings& s) {
          QStringList parts;
          for (double v : spec.list(s)) parts << QString::fromStdString(io::csv_number(v));
          line->setText(parts.join(QLatin1Char(',')));
        };
        field.take = [line, &spec, name](document::AnalysisSettings& s, QString& problem) {
          std::vector<double> values;
          for (const QString& part : line->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const double v = part.trimmed().toDouble(&ok);
            if (!ok || !std::isfinite(v) || !spec.contains(v)) {
              problem = tr("%1: \"%2\" is not a number from %3 to %4")
                            .arg(name, part.trimmed())
                            .arg(spec.lo)
                            .arg(spec.hi);
              return false;
            }
            values.push_back(v);
          }
          if (values.empty() || values.size() > 32) {
            problem = tr("%1: give 1 to 32 numbers, separated by commas").arg(name);
            return false;
          }
          spec.setList(s, values);
          return true;
        };
        editor = line;
        break;
      }
      case SettingType::Flag:
        continue;
    }
    editor->setObjectName(name);
    editor->setToolTip(tooltip(spec));
    form->addRow(name, editor);
    fields_.push_back(std::move(field));
  }
  layout->addLayout(form);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("settingsProblem"));
  problem_->setStyleSheet(QStringLiteral("color: #b00020"));
  problem_->hide();
  layout->addWidget(problem_);
  auto* buttons = new QDialogButtonBox(
      QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
          [this] { restoreDefaults(); });
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    document::AnalysisSettings s;
    if (read(s)) accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  for (const Field& f : fields_) f.show(settings_);
}

bool AnalysisSettingsDialog::read(document::AnalysisSettings& out) {
  document::AnalysisSettings s = settings_;
  QString problem;
  for (const Field& f : fields_)
    if (!f.take(s, problem)) {
      problem_->setText(problem);
      problem_->show();
      return false;
    }
  problem_->hide();
  out = s;
  return true;
}

void AnalysisSettingsDialog::restoreDefaults() {
  for (const Field& f : fields_) f.show(document::AnalysisSettings{});
}

}  // namespace sinkscope::ui
