#include "ui/model_panel.h"
#include "ui/sentence_box.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

#include "models/document/sentence_run.h"
#include "models/model.h"
#include "models/model_discovery.h"
#include "models/model_identity.h"
#include "ui/example_picker.h"
#include "ui/recent_models.h"
#include "ui/workspace.h"

namespace sinkscope::ui {

ModelPanel::ModelPanel(Workspace* workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace) {
  auto* layout = new QVBoxLayout(this);
  auto* modelRow = new QHBoxLayout;
  chooser_ = new QComboBox(this);
  chooser_->setObjectName(QStringLiteral("modelChooser"));
  chooser_->setToolTip(tr("Recently opened model folders"));
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  chooser_->setMinimumContentsLength(16);
  auto* browse = new QToolButton(this);
  browse->setText(tr("Open..."));
  browse->setToolTip(tr("Open a Hugging Face model folder (or drop one onto the window)"));
  connect(browse, &QToolButton::clicked, this, &ModelPanel::chooseModelFolder);
  connect(chooser_, &QComboBox::activated, this, [this](int index) {
    const QString folder = chooser_->itemData(index).toString();
    if (!folder.isEmpty()) workspace_->openModel(folder);
  });
  modelRow->addWidget(chooser_, 1);
  modelRow->addWidget(browse);
  layout->addWidget(new QLabel(tr("<b>Model</b>"), this));
  layout->addLayout(modelRow);

  summary_ = new QLabel(tr("No model open: choose a model folder."), this);
  summary_->setObjectName(QStringLiteral("modelSummary"));
  summary_->setWordWrap(true);
  layout->addWidget(summary_);

  auto* sentenceRow = new QHBoxLayout;
  sentenceRow->addWidget(new QLabel(tr("<b>Sentence</b>"), this), 1);
  auto* examples = new QToolButton(this);
  examples->setText(tr("Examples"));
  examples->setPopupMode(QToolButton::InstantPopup);
  auto* examplesMenu = new QMenu(examples);
  // A search box and a short list, not a screen-filling menu; a pick runs.
  auto* picker = new ExamplePicker(resource_lines(QStringLiteral(":/examples/sentences.txt")),
                                   examplesMenu);
  auto* pickerAction = new QWidgetAction(examplesMenu);
  pickerAction->setDefaultWidget(picker);
  examplesMenu->addAction(pickerAction);
  connect(examplesMenu, &QMenu::aboutToShow, picker, [picker] { picker->searchBox()->setFocus(); });
  connect(picker, &ExamplePicker::picked, this, [this, examplesMenu](const QString& sentence) {
    examplesMenu->close();
    leaveCapture();  // an example picked is a sentence to run, capture or not
    workspace_->setSentence(sentence);
    workspace_->runSentence();
  });
  examples->setMenu(examplesMenu);
  sentenceRow->addWidget(examples);
  layout->addLayout(sentenceRow);

  sentenceBox_ = new SentenceBox(this);
  sentenceBox_->setObjectName(QStringLiteral("sentenceBox"));
  sentenceBox_->setPlaceholderText(tr("Type a sentence, then Ctrl+Enter"));
  sentenceBox_->setMaximumHeight(110);
  sentenceBox_->setSentence(workspace->sentence());
  layout->addWidget(sentenceBox_);
  connect(workspace, &Workspace::sentenceChanged, this, [this](const QString& text) {
    if (sentenceBox_->toPlainText() != text) sentenceBox_->setSentence(text);
  });
  connect(sentenceBox_, &QPlainTextEdit::textChanged, workspace,
          [this] { workspace_->setSentence(sentenceBox_->toPlainText()); });

  runButton_ = new QPushButton(tr("Run"), this);
  runButton_->setObjectName(QStringLiteral("runButton"));
  runButton_->setToolTip(tr("Run the sentence (Ctrl+Enter)"));
  connect(runButton_, &QPushButton::clicked, workspace, &Workspace::runSentence);
  layout->addWidget(runButton_);
  layout->addStretch(1);
  refreshRecentModels();
}

void ModelPanel::setBuiltinModelsDir(const QString& dir) {
  builtinDir_ = dir;
  refreshRecentModels();
}

std::vector<std::pair<QString, QString>> ModelPanel::knownModels() const {
  std::vector<std::pair<QString, QString>> models;
  for (int k = 0; k < chooser_->count(); ++k)
    if (!chooser_->itemData(k).toString().isEmpty())
      models.emplace_back(chooser_->itemText(k), chooser_->itemData(k).toString());
  return models;
}

void ModelPanel::chooseModelFolder() {
  const auto& model = workspace_->model();
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open a Hugging Face model folder"),
      model ? QString::fromStdString(model->model->folder().string()) : QDir::homePath());
  if (!folder.isEmpty()) workspace_->openModel(folder);
}

void ModelPanel::leaveCapture() {
  if (!sentenceBox_->isReadOnly()) return;
  sentenceBox_->setReadOnly(false);
  {
    const QSignalBlocker quiet(sentenceBox_);  // the workspace's sentence did not change
    sentenceBox_->setSentence(workspace_->sentence());
  }
  runButton_->setEnabled(true);
  runButton_->setToolTip(tr("Run the sentence (Ctrl+Enter)"));
  chooser_->setPlaceholderText(QString());
}

void ModelPanel::showModel(bool remember) {
  leaveCapture();
  const models::LoadedModel& loaded = *workspace_->model();
  const models::ModelConfig& c = loaded.model->config();
  if (remember) {
    RecentModels().remember(QString::fromStdString(loaded.name));
    refreshRecentModels();
  }
  const QString name = QString::fromStdString(models::model_display_name(loaded.model->folder()));
  summary_->setText(
      tr("%1: %2, %3 layers x %4 heads (%5 KV), hidden %6, %7 M parameters; tokenizer: %8")
          .arg(name, QString::fromStdString(c.model_type))
          .arg(c.num_layers)
          .arg(c.num_heads)
          .arg(c.num_kv_heads)
          .arg(c.hidden_size)
          .arg(static_cast<double>(loaded.model->parameterCount()) / 1e6, 0, 'f', 2)
          .arg(loaded.tokenizer ? QString::fromStdString(loaded.tokenizer->kind()) : tr("none")));
}

void ModelPanel::showCapture(const QString& path) {
  const SentenceRun& run = *workspace_->run();
  const bool values = run.hasValues;
  // The run's source names the capture's model, or its file when it names none.
  const QString file = QFileInfo(path).fileName();
  const QString runSource = QString::fromStdString(run.source);
  const QString source = runSource.startsWith(file) ? QString() : runSource + QStringLiteral(", ");
  summary_->setText(tr("Capture %1: %2%3 layers x %4 heads, %5 tokens%6. No model is open: "
                       "interventions and experiments need one.")
                        .arg(file, source)
                        .arg(run.trace->layers())
                        .arg(run.trace->heads())
                        .arg(run.tokenCount())
                        .arg(values ? tr(", with values")
                             : tr(", no values (value space and taxonomy need them: save values "
                                  "[layers, heads, T, d] with the capture)")));
  // No model and no sentence of ours: the chooser and the box say so, and Run
  // (which would replace the capture with a run of the box's old sentence) waits
  // for a model.
  chooser_->setPlaceholderText(tr("(capture %1)").arg(file));
  chooser_->setCurrentIndex(-1);
  {
    const QSignalBlocker quiet(sentenceBox_);
    QStringList tokens;
    for (const std::string& t : run.tokens.display) tokens << QString::fromStdString(t);
    sentenceBox_->setPlainText(
        tr("The capture's %1 tokens: %2").arg(tokens.size()).arg(tokens.join(QLatin1Char(' '))));
  }
  sentenceBox_->setReadOnly(true);
  runButton_->setEnabled(false);
  runButton_->setToolTip(tr("A capture holds its attention only: open a model to run a sentence"));
}

// One entry: its name (a cache snapshot's repository and revision), family and size.
void ModelPanel::addModel(const QString& name, const QString& open,
                          const std::filesystem::path& folder) {
  const models::ModelChooserEntry s = models::model_folder_summary(folder);
  chooser_->addItem(tr("%1 \u2014 %2, %3")
                        .arg(name, QString::fromStdString(s.family),
                             QString::fromStdString(models::byte_size_text(s.weightBytes))),
                    open);
  chooser_->setItemData(chooser_->count() - 1, QString::fromStdString(folder.string()),
                        Qt::ToolTipRole);
}

void ModelPanel::refreshRecentModels() {
  const QStringList recent = RecentModels().load();
  const QSignalBlocker block(chooser_);
  chooser_->clear();
  const auto cached = models::hf_cache_models();
  if (recent.isEmpty() && cached.empty()) chooser_->addItem(tr("(no recent models)"), QString());
  for (const QString& folder : recent) {
    std::error_code ec;
    std::filesystem::path path;
    try {
      path = models::model_location_resolve(folder.toStdString());
    } catch (const std::exception&) {
      path = folder.toStdString();  // gone: listed by its name, the open says why
    }
    addModel(std::filesystem::is_directory(path, ec)
                 ? QString::fromStdString(models::model_display_name(path))
                 : QFileInfo(folder).fileName(),
             folder, path);
  }
  // SinkScope's built-in models.
  if (!builtinDir_.isEmpty()) {
    const QStringList builtins =
        QDir(builtinDir_).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString& b : builtins) {
      const QString folder = QDir(builtinDir_).filePath(b);
      if (recent.contains(folder) ||
          !QFileInfo::exists(QDir(folder).filePath(QStringLiteral("config.json"))))
        continue;
      addModel(tr("%1 (built-in)").arg(b), folder, folder.toStdString());
    }
  }
  // Models in the Hugging Face cache, by their org/name.
  if (!cached.empty() && !recent.isEmpty()) chooser_->insertSeparator(chooser_->count());
  for (const auto& m : cached) {
    const QString name = QString::fromStdString(m.name);
    if (recent.contains(name)) continue;
    addModel(tr("%1 (cache)").arg(QString::fromStdString(models::model_display_name(m.folder))),
             name, m.folder);
  }
  Q_EMIT recentModelsChanged();
}

}  // namespace sinkscope::ui
