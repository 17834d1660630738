#include "app/figure_set.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/command_line.h"
#include "app/command_options.h"
#include "app/gui_support.h"
#include "models/corpus.h"
#include "models/document/figure_comparison.h"
#include "models/document/figure_set_data.h"
#include "models/document/report_parts.h"
#include "models/document/study.h"
#include "models/input_files.h"
#include "models/io/table_io.h"
#include "models/loaded_model.h"
#include "models/model_identity.h"
#include "render/figure_part.h"
#include "render/figure_report.h"
#include "render/line_plot_view.h"
#include "render/panel_export.h"

namespace sinkscope::app {

using document::FigureSetParams;
using document::SetFigure;
using document::StudyRecords;

namespace {

// The command's name in its messages: figure-set or paper.
const char* command_name = "figure-set";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "sinkscope %s: %s\n", command_name, message.c_str());
  return 2;
}

// The command line of figure-set, declared once.
struct FigureSetOptions {
  std::string sentencesFile, outDir, preset = "one-column";
  std::vector<std::string> studyDirs, modelSpecs, labels;
  int maxSentences = 200, layersShown = 8, sparsify = 2, pngDpi = 0;
  std::vector<int> contextLengths;
  bool force = false;
  CLI::Option *study = nullptr, *sentences = nullptr, *model = nullptr;

  void declare(CLI::App& command) {
    study = command
                .add_option("--study", studyDirs,
                            "a finished corpus study (study run --curves); repeat it to compare "
                            "studies side by side")
                ->type_name("DIR")
                ->allow_extra_args(false);
    sentences = command.add_option("--sentences", sentencesFile,
                                   "one sentence per line, or JSONL with \"text\"")
                    ->type_name("FILE");
    model = command
                .add_option("MODEL", modelSpecs,
                            "a model folder or cache name (default: the built-in model); "
                            "several: drawn side by side")
                ->type_name("[MODEL ...]");
    command
        .add_option("--labels", labels,
                    "the models' (or studies') names in the figures and the folders of their "
                    "own sets, in the order given (default: their folders' names)")
        ->type_name("NAME,...")
        ->delimiter(',');
    command.add_option("--out", outDir, "the folder to write")->type_name("DIR")->required();
    command.add_option("--max-sentences", maxSentences, range_text("use the first N sentences", 1, 1000000))
        ->type_name("N")->check(whole_in(1, 1000000))->capture_default_str();
    command.add_option("--layers-shown", layersShown,
                       range_text("curves per plot (layers, evenly spread)", 1, 64))
        ->type_name("N")->check(whole_in(1, 64))->capture_default_str();
    command
        .add_option(
            "--sparsification-sentences", sparsify,
            range_text(
                "sentences whose head ablation and Fisher information give the sparsification "
                "curves, Table 2 and the Fisher figure",
                0, 1000))
        ->type_name("N")
        ->check(whole_in(0, 1000))
        ->capture_default_str();
    command
        .add_option("--context-lengths", contextLengths,
                    "precision and recall of the top N at these context lengths too (a "
                    "sentence file's sentences of at least L tokens; Figs. 10-11)")
        ->type_name("L,...")
        ->delimiter(',');
    command.add_option("--preset", preset, "one-column, two-columns, slide or screen")
        ->type_name("PRESET")->check(CLI::IsMember(preset_names()))->capture_default_str();
    command.add_option("--png", pngDpi, range_text("also a PNG of every figure at DPI", 10, 2400))
        ->type_name("DPI")->check(whole_in(10, 2400));
    command.add_flag("--force", force, "replace existing files");
  }
};

CommandLine figure_set_command_line() {
  return CommandLine(
      "sinkscope figure-set",
      "The figure kinds of the seed papers for a sentence file, pooled over its sentences, each "
      "as PDF (and PNG with --png) with the CSV of its numbers.\n"
      "sinkscope figure-set [MODEL] --sentences FILE --out DIR\n"
      "sinkscope figure-set --study DIR --out DIR   (a finished corpus study run with `study "
      "run --curves`: its records, no model run except for sparsification)\n"
      "Several models (MODEL MODEL ...) or studies (--study A --study B ...) are drawn side by "
      "side: each one's set in a folder named by its label (--labels), and at the top every "
      "kind with one panel per model on one y range and one CSV with a column model.",
      "Figures:\n"
      "  key_importance_by_layer  alpha_k by position per layer, uniform baseline (Barbero et al., "
      "Gu et al.)\n"
      "  sink_rate                (a table) % of heads with alpha_0 > eps and the mean boost, "
      "with 95% intervals\n"
      "                           (Barbero et al.; several models: one plot, against the labels "
      "where they are numbers,\n"
      "                           e.g. --labels 256,512,1024 for models trained at those context "
      "lengths)\n"
      "  betti0_by_layer, betti1_by_layer  Betti curves per layer (Ruscio et al.)\n"
      "  reference_frame          (a table) the frame with its evidence, the share of "
      "specialised heads and the\n"
      "                           Betti numbers with 95% intervals (Ruscio et al., Table 1)\n"
      "  fiedler_by_layer, centralisation_by_layer  the head-averaged graph's Fiedler value "
      "and degree\n"
      "                           centralisation per layer at each threshold (Ruscio et al.)\n"
      "  sink_removal_kl_by_layer KL of the output distribution when one layer's sinks (or "
      "every layer's)\n"
      "                           are removed (Ruscio et al.; needs an output head)\n"
      "  fisher_by_layer          the empirical Fisher information per parameter of each layer "
      "(Ruscio et al.;\n"
      "                           needs an output head; the first --sparsification-sentences)\n"
      "  fn_against_n_by_layer    F_N against N per layer with the random baseline (Mudarisov et "
      "al., Fig. 2)\n"
      "  precision_against_n_by_layer, recall_against_n_by_layer\n"
      "                           P(r_max, N) and R(r_min, N) of the top N with the random "
      "baseline (Fig. 2)\n"
      "  loo_alignment_margin_against_n_by_layer, positive_loo_share_against_n_by_layer\n"
      "                           the leave-one-out alignment margin M_N^loo and the share of "
      "selected keys\n"
      "                           with positive leave-one-out alignment against N (Fig. 8)\n"
      "  loo_margin_against_n_by_layer  the leave-one-out distance margin against N (Fig. 9)\n"
      "  sink_selection_rate_against_n_by_layer  how often the top N holds the sink (Fig. 13)\n"
      "  fn_by_sink_selection_against_n_by_layer  F_N of heads with and without the sink "
      "selected (Fig. 14)\n"
      "  sink_share_of_aggregate_against_n_by_layer, sink_direction_change_against_n_by_layer\n"
      "                           the selected sink's size in s_N and the turn it gives it "
      "(Figs. 15-16)\n"
      "  sink_intrusion_rate_against_n_by_layer, sink_inverted_share_against_n_by_layer\n"
      "                           the unselected sink inside the selected ball, and the "
      "inversions it causes (Figs. 17-18)\n"
      "  sink_alignment_against_n_by_layer  cos(y_0, s_N+) against N (Fig. 19)\n"
      "                           (the curves against N from sentence files, and from studies "
      "recorded with them;\n"
      "                           each CSV names its paper figure in its paper_figure line)\n"
      "  sink_value_norm_ratio_by_layer, value_norm_cv_by_layer, value_coherence_by_layer\n"
      "                           lambda, the non-sink norms' CV, mu_N and nu per layer: median "
      "and quartiles over heads (Figs. 3a, 6, 7)\n"
      "  value_cosine_distribution  cosines of the sink's value direction against the others' "
      "and of the others'\n"
      "                           pairs, every head pooled, with their medians (Fig. 3b)\n"
      "  head_class_distribution  (a table) each class's share of every head, with its 95% "
      "interval over resampled sentences (Table 3)\n"
      "  taxonomy_by_layer        Retriever / Mixer / Reset shares per layer (Mudarisov et al., "
      "Fig. 4a)\n"
      "  class_value_alignment_against_n, class_loo_norm_against_n\n"
      "                           each head class's cos(s_N, v_0) and cos(s_N, v_cur), and "
      "||s_N - y_k|| / ||s_N||\n"
      "                           without the sink or the current token, against N (Fig. 4b)\n"
      "  sparsification           dNLL against the share of heads kept, per ranking (Mudarisov et "
      "al., Fig. 5)\n"
      "  ablation_correlation     (a table) each head diagnostic's Spearman and Pearson "
      "correlation with the\n"
      "                           dNLL of ablating the head, across heads, with 95% intervals "
      "(Mudarisov et al., Table 2)\n"
      "  perturbation_by_layer    how far a perturbation of token 1 spreads, per layer, with and "
      "without the first\n"
      "                           token (Barbero et al.; on the first --sparsification-sentences)\n"
      "  bos_removal              NLL change of removing the BOS token, per sentence (Barbero et "
      "al.)\n"
      "The last five need a model with an output head.");
}

// A set's figures and what every CSV records of how they were made: the
// command, every parameter, the model's and the sentences' hashes.
struct FigureSetDrawn {
  std::vector<SetFigure> figures;
  std::string modelName, sentencesName;
  std::size_t sentenceCount = 0;
  std::vector<std::pair<std::string, std::string>> provenance;
  int layers = 0, heads = 0;
  document::AnalysisSettings analysis;  // what the records were made with
};

std::string params_line(const document::AnalysisSettings& analysis, const FigureSetParams& params) {
  nlohmann::json j = document::settings_json(analysis);
  j["layers_shown"] = params.shownLayers;
  j["position_share"] = params.shownPositionShare;
  j["sparsification_sentences"] = params.sparsificationSentences;
  j["sparsification_retained"] = params.sparsification.retained;
  j["sparsification_random_seeds"] = params.sparsification.randomSeeds;
  j["sparsification_seed"] = params.sparsification.seed;
  return j.dump();
}

// The set of a finished study's records (run with --curves); sparsification
// runs the study's model when it can be opened.
void draw_set_of_study(const FigureSetOptions& o, const std::string& studyDir,
                       const FigureSetParams& params, FigureSetDrawn& set) {
  const StudyRecords study = document::study_records(studyDir);
  if (!study.params.curves)
    throw UsageError(studyDir +
                     ": the study has no curves (run its shards with study run --curves)");
  set.figures = document::figure_set_of_records(study.records, study.layers, study.heads,
                                                study.encoder, study.params, params);
  // Kinds an older study's records cannot give: said, not silently missing.
  for (const auto& [what, why] : document::atlas_left_out(set.figures))
    if (why == document::kCurveAbsent || why == document::kGeometryAbsent ||
        why == document::kClassesAbsent)
      std::fprintf(stderr, "sinkscope %s: left out %s: %s\n", command_name, what.c_str(),
                   why.c_str());
  set.modelName = study.model;
  set.sentencesName = study.sentencesFile;
  set.sentenceCount = study.records.size();
  set.layers = study.layers;
  set.heads = study.heads;
  set.analysis = study.params;
  set.provenance.emplace_back("params", params_line(study.params, params));
  for (const char* key : {"model_config_sha256", "tokenizer_sha256", "sentences_sha256"})
    set.provenance.emplace_back(key, study.hashes.count(key) ? study.hashes.at(key) : "");
  if (o.sparsify <= 0 || !study.params.functional) return;
  std::vector<std::string> texts;
  for (std::size_t k = 0; k < study.records.size() && k < static_cast<std::size_t>(o.sparsify); ++k)
    texts.push_back(study.records[k].text);
  try {
    const std::string spec =
        std::filesystem::is_directory(study.modelFolder) ? study.modelFolder : study.model;
    for (SetFigure& f : document::ablation_figures(models::loaded_model_open(spec), texts, params))
      set.figures.push_back(std::move(f));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sinkscope %s: no sparsification figure or ablation table: %s\n",
                 command_name, e.what());
  }
}

// The set of a sentence file's first --max-sentences sentences on MODEL.
void draw_set_of_sentences(const FigureSetOptions& o, const std::string& modelSpec,
                           const FigureSetParams& params, FigureSetDrawn& set) {
  std::vector<std::string> sentences = models::corpus_read_sentences(o.sentencesFile);
  if (sentences.empty()) throw UsageError(o.sentencesFile + ": no sentences (every line is empty)");
  if (sentences.size() > static_cast<std::size_t>(o.maxSentences))
    sentences.resize(static_cast<std::size_t>(o.maxSentences));
  const QString modelArg = modelSpec.empty() ? default_model_folder(builtin_models_dir())
                                             : QString::fromStdString(modelSpec);
  if (modelArg.isEmpty()) throw UsageError("no MODEL given and no built-in model found");
  const models::LoadedModel model = models::loaded_model_open(modelArg.toStdString());
  std::fprintf(stderr, "sinkscope %s: %zu sentences on %s\n", command_name, sentences.size(),
               model.name.c_str());
  set.figures = document::figure_set(model, sentences, params, [&](std::size_t done) {
    std::fprintf(stderr, "  %zu / %zu sentences analysed\n", done, sentences.size());
  });
  set.modelName = model.name;
  set.sentencesName = o.sentencesFile;
  set.sentenceCount = sentences.size();
  set.layers = model.model->config().num_layers;
  set.heads = model.model->config().num_heads;
  set.analysis = params.analysis;
  set.provenance.emplace_back("params", params_line(params.analysis, params));
  for (const auto& line : models::model_identity_header(models::model_identity(model.model->folder())))
    set.provenance.push_back(line);
  set.provenance.emplace_back(
      "sentences_sha256",
      models::sha256_hex(models::input_file_read(set.sentencesName, models::kTextFileMaxBytes)));
}

// Every file of the set, drawn: each figure's CSV, its PDF, and its PNG with --png.
std::vector<std::pair<std::filesystem::path, std::string>> set_files(
    const FigureSetDrawn& set, const FigureSetOptions& o, const std::filesystem::path& out) {
  const render::FigureOptions options = preset_named(o.preset, 300);
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  auto add = [&](const std::filesystem::path& path, const QByteArray& bytes) {
    files.emplace_back(path, bytes.toStdString());
  };
  for (const SetFigure& f : set.figures) {
    io::CsvTable table = f.table;
    table.comments.insert(
        table.comments.begin(),
        {{"tool", "sinkscope figure-set " SINKSCOPE_VERSION},
         {"model", set.modelName},
         {"sentences", set.sentencesName + " (first " + std::to_string(set.sentenceCount) + ")"},
         {"figure", f.plot.title.empty() ? f.file : f.plot.title}});
    if (!f.paperFigure.empty())
      table.comments.insert(table.comments.begin() + 4, {"paper_figure", f.paperFigure});
    table.comments.insert(table.comments.end(), set.provenance.begin(), set.provenance.end());
    const std::filesystem::path csv = out / (f.file + ".csv");
    io::output_check_replaceable(csv, o.force);
    files.emplace_back(csv, io::csv_render(table));
    if (f.plot.series.empty() && f.plot.title.empty()) continue;  // a table only
    const render::FigurePart part =
        render::figure_part(f.plot, QString::fromStdString(f.file), QSize(640, 480));
    add(out / (f.file + ".pdf"), render::figure_part_bytes(part, render::ExportFormat::Pdf, options, {}));
    if (o.pngDpi > 0) {
      render::FigureOptions png = options;
      png.dpi = o.pngDpi;
      add(out / (f.file + ".png"), render::figure_part_bytes(part, render::ExportFormat::Png, png, {}));
    }
  }
  return files;
}

// A table-only kind as the report draws it: numbers to 3 significant
// digits, a value and its 95% interval in one cell, its own comment lines
// beneath.
render::ReportTable report_table(const SetFigure& f) {
  render::ReportTable t;
  t.heading = QString::fromStdString((f.paperFigure.empty() ? f.file : f.paperFigure) + " (" +
                                     f.file + ".csv)");
  auto shown = [](const std::string& c) {
    QString cell = QString::fromStdString(c);
    bool number = false;
    const double v = cell.toDouble(&number);
    return number && cell.contains('.') ? QString::number(v, 'g', 3) : cell;
  };
  // A value and its interval (columns X, X_low / X_lo, X_high / X_hi) read as one cell.
  const std::vector<std::string>& columns = f.table.columns;
  auto column_of = [&](const std::string& name) {
    const auto at = std::find(columns.begin(), columns.end(), name);
    return at == columns.end() ? -1 : static_cast<int>(at - columns.begin());
  };
  std::vector<std::array<int, 3>> cells;  // (value, low, high); -1: none
  std::vector<bool> merged(columns.size(), false);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    int lo = column_of(columns[c] + "_low"), hi = column_of(columns[c] + "_high");
    if (lo < 0 || hi < 0) lo = column_of(columns[c] + "_lo"), hi = column_of(columns[c] + "_hi");
    if (lo >= 0 && hi >= 0)
      merged[static_cast<std::size_t>(lo)] = merged[static_cast<std::size_t>(hi)] = true;
    else
      lo = hi = -1;
    cells.push_back({static_cast<int>(c), lo, hi});
  }
  for (const auto& [c, lo, hi] : cells)
    if (!merged[static_cast<std::size_t>(c)])
      t.columns << QString::fromStdString(columns[static_cast<std::size_t>(c)]) +
                       (lo >= 0 ? QStringLiteral(" [95%]") : QString());
  for (const auto& row : f.table.rows) {
    QStringList line;
    for (const auto& [c, lo, hi] : cells) {
      if (merged[static_cast<std::size_t>(c)] || static_cast<std::size_t>(c) >= row.size())
        continue;
      QString cell = shown(row[static_cast<std::size_t>(c)]);
      if (lo >= 0 && static_cast<std::size_t>(std::max(lo, hi)) < row.size() &&
          !row[static_cast<std::size_t>(lo)].empty())
        cell += QStringLiteral(" [%1, %2]")
                    .arg(shown(row[static_cast<std::size_t>(lo)]),
                         shown(row[static_cast<std::size_t>(hi)]));
      line << cell;
    }
    t.rows.push_back(line);
  }
  QStringList notes;
  for (const auto& [key, value] : f.table.comments)
    notes << QString::fromStdString(key + ": " + value);
  t.note = notes.join(QStringLiteral(". "));
  return t;
}

// A report as report.pdf and report.html (the same document).
std::vector<std::pair<std::filesystem::path, std::string>> report_files(
    const render::ReportDocument& doc, const FigureSetOptions& o) {
  const std::filesystem::path pdf = std::filesystem::path(o.outDir) / "report.pdf";
  const std::filesystem::path html = std::filesystem::path(o.outDir) / "report.html";
  io::output_check_replaceable(pdf, o.force);
  io::output_check_replaceable(html, o.force);
  const render::FigureOptions options = preset_named(o.preset, 300);
  return {{pdf, render::report_pdf(doc, options).toStdString()},
          {html, render::report_html(doc, options).toStdString()}};
}

// The atlas's report: the set's figures in the papers' order, each with its
// caption, after a first page that says what was pooled and what is missing.
std::vector<std::pair<std::filesystem::path, std::string>> atlas_report(const FigureSetDrawn& set,
                                                                        const FigureSetOptions& o) {
  // A model by its folder's name (the CSVs keep the whole path).
  const std::string model = std::filesystem::path(set.modelName).filename().empty()
                                ? set.modelName
                                : std::filesystem::path(set.modelName).filename().string();
  const document::AtlasScope scope{
      model,
      set.sentencesName,
      std::string(set.analysis.symmetriseByMax ? "1 - max(A_ij, A_ji)" : "1 - (A_ij + A_ji) / 2") +
          ", each head's map",
      set.sentenceCount,
      set.layers,
      set.heads,
      set.analysis.randomSubsets,
      set.analysis.seed};
  render::ReportDocument doc;
  doc.title = QStringLiteral("Attention sinks: the seed papers' figures on %1")
                  .arg(QString::fromStdString(model));
  doc.front << QStringLiteral(
                   "SinkScope %1 drew each figure below from %2 sentences of %3 (%4 layers of %5 "
                   "heads each), pooled as the figure's caption says. Every figure's numbers are "
                   "in the CSV of the same name beside this report, with the command, every "
                   "parameter and the hashes of the model and the sentences.")
                   .arg(QStringLiteral(SINKSCOPE_VERSION))
                   .arg(set.sentenceCount)
                   .arg(QString::fromStdString(set.sentencesName))
                   .arg(set.layers)
                   .arg(set.heads);
  doc.front << QStringLiteral("Model: %1. Sentences: %2.")
                   .arg(QString::fromStdString(set.modelName))
                   .arg(QString::fromStdString(set.sentencesName));
  doc.front << QStringLiteral(
      "Papers: Ruscio et al., \"What are you sinking? A geometric approach on attention sink\"; "
      "Barbero et al., \"Why do LLMs attend to the first token?\"; Mudarisov et al., "
      "\"Geometric analysis of token selection\". Definitions and readings: docs/metrics.md.");
  for (const SetFigure& f : document::in_papers_order(set.figures)) {
    if (f.plot.series.empty() && f.plot.title.empty()) continue;  // a table only
    const std::string name = f.paperFigure.empty() ? f.file : f.paperFigure + " (" + f.file + ")";
    render::ReportFigure r{
        QString::fromStdString(name),
        {render::figure_part(f.plot, QString::fromStdString(name), QSize(640, 480))},
        QString::fromStdString(document::figure_caption(f, scope))};
    doc.figures.push_back(std::move(r));
  }
  // Tables as tables (the CSV keeps every digit).
  for (const SetFigure& f : document::in_papers_order(set.figures))
    if (f.plot.series.empty() && f.plot.title.empty()) doc.tables.push_back(report_table(f));
  std::vector<std::pair<QString, QString>> missing, pending;
  for (const auto& [what, why] : document::atlas_left_out(set.figures))
    missing.emplace_back(QString::fromStdString(what), QString::fromStdString(why));
  for (const auto& [what, why] : document::atlas_not_yet_drawn())
    pending.emplace_back(QString::fromStdString(what), QString::fromStdString(why));
  doc.lists.emplace_back(QStringLiteral("Left out of this report"), missing);
  doc.lists.emplace_back(QStringLiteral("Not yet drawn by SinkScope"), pending);
  return report_files(doc, o);
}

// atlas.csv: every kind of the papers, whether this set drew it, and why not.
std::pair<std::filesystem::path, std::string> atlas_index(const FigureSetDrawn& set,
                                                          const FigureSetOptions& o,
                                                          const std::filesystem::path& out) {
  io::CsvTable index;
  index.comments = {{"tool", "sinkscope paper " SINKSCOPE_VERSION}, {"model", set.modelName}};
  index.comments.insert(index.comments.end(), set.provenance.begin(), set.provenance.end());
  index.columns = {"paper_figure", "file", "status", "reason"};
  const auto missing = document::atlas_left_out(set.figures);
  for (const document::AtlasKind& kind : document::atlas_kinds()) {
    std::string why;
    bool drawn = false;
    for (const SetFigure& f : set.figures) drawn = drawn || f.file == kind.file;
    if (!drawn) why = kind.whyAbsent;
    index.rows.push_back(
        {kind.paperFigure, std::string(kind.file) + ".csv", drawn ? "drawn" : "left out", why});
  }
  for (const auto& [what, why] : document::atlas_not_yet_drawn())
    index.rows.push_back({what, "", "not yet in SinkScope", why});
  const std::filesystem::path path = out / "atlas.csv";
  io::output_check_replaceable(path, o.force);
  return {path, io::csv_render(index)};
}

// Several models side by side: each model's own set in a folder named by
// its label, and at the top every kind with a panel per model and the joined
// CSV (and, for paper, atlas.csv and one report of the comparisons).
struct ComparedSets {
  std::vector<FigureSetDrawn> sets;
  std::vector<std::string> labels;
  std::vector<document::ComparedKind> kinds;
};

std::string reason_absent(const std::string& file) {
  for (const document::AtlasKind& kind : document::atlas_kinds())
    if (file == kind.file) return kind.whyAbsent;
  return "";
}

// What every joined CSV says of how it was made: each model's name,
// sentences and hashes (keys named by the model's label).
io::CsvTable compared_table(const ComparedSets& c, const document::ComparedKind& kind) {
  io::CsvTable table = kind.table;
  std::vector<std::pair<std::string, std::string>> head{
      {"tool", std::string("sinkscope ") + command_name + " " SINKSCOPE_VERSION},
      {"figure", kind.title.empty() ? kind.file : kind.title}};
  if (!kind.paperFigure.empty()) head.emplace_back("paper_figure", kind.paperFigure);
  head.emplace_back("models", [&] {
    std::string all;
    for (const std::string& l : c.labels) all += (all.empty() ? "" : ", ") + l;
    return all;
  }());
  if (!kind.without.empty()) {
    std::string missing;
    for (const std::string& l : kind.without) missing += (missing.empty() ? "" : ", ") + l;
    head.emplace_back("left_out", missing + ": " + reason_absent(kind.file));
  }
  table.comments.insert(table.comments.begin(), head.begin(), head.end());
  for (std::size_t k = 0; k < c.sets.size(); ++k) {
    const FigureSetDrawn& set = c.sets[k];
    const std::string& label = c.labels[k];
    table.comments.emplace_back("model (" + label + ")", set.modelName);
    table.comments.emplace_back(
        "sentences (" + label + ")",
        set.sentencesName + " (first " + std::to_string(set.sentenceCount) + ")");
    for (const auto& [key, value] : set.provenance)
      if (key != "command" || k == 0)
        table.comments.emplace_back(key == "command" ? key : key + " (" + label + ")", value);
  }
  return table;
}

std::vector<render::FigurePart> compared_parts(const document::ComparedKind& kind) {
  std::vector<render::FigurePart> parts;
  for (const views::LinePlot& panel : kind.panels) {
    parts.push_back(render::figure_part(
        panel, QString::fromStdString(kind.file + " " + panel.title), QSize(640, 480)));
    if (kind.panels.size() > 1) parts.back().letterNote = QString::fromStdString(panel.title);
  }
  return parts;
}

std::vector<std::pair<std::filesystem::path, std::string>> compared_files(
    const ComparedSets& c, const FigureSetOptions& o) {
  const std::filesystem::path out = o.outDir;
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  for (std::size_t k = 0; k < c.sets.size(); ++k) {
    auto own = set_files(c.sets[k], o, out / c.labels[k]);
    files.insert(files.end(), own.begin(), own.end());
  }
  const render::FigureOptions options = preset_named(o.preset, 300);
  for (const document::ComparedKind& kind : c.kinds) {
    const std::filesystem::path csv = out / (kind.file + ".csv");
    io::output_check_replaceable(csv, o.force);
    files.emplace_back(csv, io::csv_render(compared_table(c, kind)));
    if (kind.panels.empty()) continue;
    // One plot (the sink rate of every model) is drawn as a view alone, unlettered.
    auto drawn = [&](render::ExportFormat format, const render::FigureOptions& how) {
      const std::vector<render::FigurePart> parts = compared_parts(kind);
      return (parts.size() == 1 ? render::figure_part_bytes(parts.front(), format, how, {})
                                : render::figure_parts_bytes(parts, format, how, 0))
          .toStdString();
    };
    files.emplace_back(out / (kind.file + ".pdf"), drawn(render::ExportFormat::Pdf, options));
    if (o.pngDpi > 0) {
      render::FigureOptions png = options;
      png.dpi = o.pngDpi;
      files.emplace_back(out / (kind.file + ".png"), drawn(render::ExportFormat::Png, png));
    }
  }
  return files;
}

// atlas.csv of a comparison: every kind of the papers, the models that drew it and why not the
// others.
std::pair<std::filesystem::path, std::string> compared_index(const ComparedSets& c,
                                                             const FigureSetOptions& o) {
  io::CsvTable index;
  index.comments = {{"tool", "sinkscope paper " SINKSCOPE_VERSION}};
  for (std::size_t k = 0; k < c.sets.size(); ++k)
    index.comments.emplace_back("model (" + c.labels[k] + ")", c.sets[k].modelName);
  index.columns = {"paper_figure", "file", "drawn_for", "left_out_for", "reason"};
  auto joined = [](const std::vector<std::string>& labels) {
    std::string all;
    for (const std::string& l : labels) all += (all.empty() ? "" : ";") + l;
    return all;
  };
  for (const document::AtlasKind& kind : document::atlas_kinds()) {
    const auto drawn =
        std::find_if(c.kinds.begin(), c.kinds.end(),
                     [&](const document::ComparedKind& k) { return k.file == kind.file; });
    const std::vector<std::string> none;
    const std::vector<std::string>& missing = drawn == c.kinds.end() ? c.labels : drawn->without;
    index.rows.push_back({kind.paperFigure, std::string(kind.file) + ".csv",
                          joined(drawn == c.kinds.end() ? none : drawn->labels), joined(missing),
                          missing.empty() ? "" : kind.whyAbsent});
  }
  for (const auto& [what, why] : document::atlas_not_yet_drawn())
    index.rows.push_back({what, "", "", joined(c.labels), "not yet in SinkScope: " + why});
  const std::filesystem::path path = std::filesystem::path(o.outDir) / "atlas.csv";
  io::output_check_replaceable(path, o.force);
  return {path, io::csv_render(index)};
}

// The comparison's report: each kind's panels (a), (b), ... one per model, in the papers' order.
std::vector<std::pair<std::filesystem::path, std::string>> compared_report(
    const ComparedSets& c, const FigureSetOptions& o) {
  render::ReportDocument doc;
  doc.title = QStringLiteral("Attention sinks: the seed papers' figures on %1 models side by side")
                  .arg(c.sets.size());
  doc.front << QStringLiteral(
                   "SinkScope %1 drew each figure below once per model, its panels (a), (b), ... "
                   "in the order the models were given and on one y range, each pooled over that "
                   "model's sentences as its own set's caption says. Each model's own set (every "
                   "figure with its CSV) is in the folder named by its label; every figure's "
                   "numbers for all models are in the CSV of the same name beside this report, "
                   "with a first column naming the model.")
                   .arg(QStringLiteral(SINKSCOPE_VERSION));
  for (std::size_t k = 0; k < c.sets.size(); ++k) {
    const FigureSetDrawn& set = c.sets[k];
    doc.front << QStringLiteral("%1: %2, %3 layers of %4 heads; %5 sentences of %6.")
                     .arg(QString::fromStdString(c.labels[k]),
                          QString::fromStdString(set.modelName))
                     .arg(set.layers)
                     .arg(set.heads)
                     .arg(set.sentenceCount)
                     .arg(QString::fromStdString(set.sentencesName));
  }
  doc.front << QStringLiteral(
      "Papers: Ruscio et al., \"What are you sinking? A geometric approach on attention sink\"; "
      "Barbero et al., \"Why do LLMs attend to the first token?\"; Mudarisov et al., "
      "\"Geometric analysis of token selection\". Definitions and readings: docs/metrics.md.");
  for (const document::ComparedKind& kind : c.kinds) {
    if (kind.panels.empty()) continue;
    std::string caption = (kind.paperFigure.empty() ? "" : "(" + kind.paperFigure + ") ") +
                          (kind.title.empty() ? kind.file : kind.title);
    if (!caption.empty() && caption.back() != '.') caption += '.';
    if (kind.panels.size() > 1) {
      caption += kind.sharedY ? " One panel per model, on one y range:"
                              : " One panel per model, each on its own y range (one range would "
                                "leave a panel's data under a tenth of it):";
      for (std::size_t k = 0; k < kind.labels.size(); ++k) {
        std::string note = k < kind.notes.size() ? kind.notes[k] : "";
        for (std::size_t at = note.find(" | "); at != std::string::npos; at = note.find(" | ", at))
          note.replace(at, 3, "; ");
        caption += std::string(k ? ";" : "") + " (" +
                   static_cast<char>('a' + std::min<std::size_t>(k, 25)) + ") " + kind.labels[k] +
                   (note.empty() ? "" : ", " + note);
      }
      caption += ".";
    }
    if (!kind.without.empty()) {
      caption += " Not drawn for";
      for (std::size_t k = 0; k < kind.without.size(); ++k)
        caption += std::string(k ? ", " : " ") + kind.without[k];
      const std::string why = reason_absent(kind.file);
      caption += why.empty() ? "." : ": " + why + ".";
    }
    caption += " Numbers: " + kind.file + ".csv.";
    doc.figures.push_back({QString::fromStdString(kind.paperFigure.empty()
                                                      ? kind.file
                                                      : kind.paperFigure + " (" + kind.file + ")"),
                           compared_parts(kind), QString::fromStdString(caption)});
  }
  for (const document::ComparedKind& kind : c.kinds)
    if (kind.panels.empty() || kind.file == "sink_rate") {
      SetFigure f;
      f.file = kind.file;
      f.paperFigure = kind.paperFigure;
      f.table = kind.table;
      doc.tables.push_back(report_table(f));
    }
  std::vector<std::pair<QString, QString>> missing, pending;
  for (const document::ComparedKind& kind : c.kinds)
    for (const std::string& label : kind.without)
      missing.emplace_back(
          QString::fromStdString(kind.paperFigure + ": " + kind.file + " (" + label + ")"),
          QString::fromStdString(reason_absent(kind.file)));
  for (const document::AtlasKind& kind : document::atlas_kinds())
    if (std::none_of(c.kinds.begin(), c.kinds.end(),
                     [&](const document::ComparedKind& k) { return k.file == kind.file; }))
      missing.emplace_back(QString::fromStdString(std::string(kind.paperFigure) + ": " + kind.file),
                           QString::fromStdString(kind.whyAbsent));
  for (const auto& [what, why] : document::atlas_not_yet_drawn())
    pending.emplace_back(QString::fromStdString(what), QString::fromStdString(why));
  doc.lists.emplace_back(QStringLiteral("Left out of this report"), missing);
  doc.lists.emplace_back(QStringLiteral("Not yet drawn by SinkScope"), pending);
  return report_files(doc, o);
}

CommandLine paper_command_line() {
  return CommandLine(
      "sinkscope paper",
      "The seed papers' atlas for a sentence file or a finished study: every figure kind the model "
      "allows (as figure-set draws them: each PDF with its CSV), report.pdf (and the same as one "
      "self-contained page, report.html) with the figures in "
      "the "
      "papers' order and a caption for each, and atlas.csv, which lists every figure of the papers "
      "with whether it was drawn and why not.\n"
      "sinkscope paper [MODEL ...] --sentences FILE --out DIR\n"
      "sinkscope paper --study DIR [--study DIR ...] --out DIR   (a finished corpus study run "
      "with `study run --curves --functional`, for example sharded on Slurm and merged)\n"
      "Several models or studies: each one's set and atlas.csv in a folder named by its label "
      "(--labels), and at the top every kind side by side (one panel per model, one CSV with a "
      "column model), atlas.csv and one report of the comparisons.",
      "The figure kinds: sinkscope figure-set --help.");
}

int run_figure_set(int argc, char** argv, bool paper);

}  // namespace

int figure_set_command(int argc, char** argv) { return run_figure_set(argc, argv, false); }

int paper_command(int argc, char** argv) { return run_figure_set(argc, argv, true); }

namespace {

int run_figure_set(int argc, char** argv, bool paper) {
  command_name = paper ? "paper" : "figure-set";
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QTemporaryDir runtime;
  if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) qputenv("XDG_RUNTIME_DIR", runtime.path().toLocal8Bit());
  CommandLine line = paper ? paper_command_line() : figure_set_command_line();
  FigureSetOptions o;
  o.declare(line.app());
  try {
    if (!line.parse(argc, argv, 1)) return 0;  // --help
    if (o.study->count() && (o.sentences->count() || o.model->count()))
      throw UsageError("--study names the model and the sentences: give no MODEL or --sentences");
    if (!o.study->count() && !o.sentences->count())
      throw UsageError("give --sentences FILE (or --study DIR) and --out DIR");
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  FigureSetDrawn set;
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  set.provenance.emplace_back("command", command);
  QApplication app(argc, argv);
  name_application();
  try {
    FigureSetParams params;
    params.shownLayers = o.layersShown;
    params.sparsificationSentences = o.sparsify;
    try {
      params.analysis.contextLengths = document::context_lengths_checked(o.contextLengths);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (o.study->count() && !params.analysis.contextLengths.empty())
      throw UsageError("--context-lengths: a study's lengths are those it was run with");
    const std::vector<std::string>& sources = o.study->count() ? o.studyDirs : o.modelSpecs;
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    if (sources.size() <= 1) {
      if (o.labels.size() > 1)
        throw UsageError("--labels: one model, " + std::to_string(o.labels.size()) + " labels");
      if (o.study->count())
        draw_set_of_study(o, o.studyDirs.front(), params, set);
      else
        draw_set_of_sentences(o, o.modelSpecs.empty() ? std::string() : o.modelSpecs.front(),
                              params, set);
      // Every file drawn first, then written all or none: a refused target, a
      // full disk or a failed drawing leaves no partial set.
      files = set_files(set, o, o.outDir);
      if (paper) {
        files.push_back(atlas_index(set, o, o.outDir));
        for (auto& file : atlas_report(set, o)) files.push_back(std::move(file));
      }
    } else {
      ComparedSets compared;
      try {
        compared.labels = document::model_labels(sources, o.labels);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
      std::vector<document::ModelSet> numbers;
      for (std::size_t k = 0; k < sources.size(); ++k) {
        FigureSetDrawn one;
        one.provenance = set.provenance;
        std::fprintf(stderr, "sinkscope %s: model %zu of %zu (%s)\n", command_name, k + 1,
                     sources.size(), compared.labels[k].c_str());
        if (o.study->count())
          draw_set_of_study(o, sources[k], params, one);
        else
          draw_set_of_sentences(o, sources[k], params, one);
        numbers.push_back({compared.labels[k], one.figures});
        compared.sets.push_back(std::move(one));
      }
      compared.kinds = document::compare_sets(numbers);
      files = compared_files(compared, o);
      if (paper) {
        for (std::size_t k = 0; k < compared.sets.size(); ++k)
          files.push_back(atlas_index(compared.sets[k], o,
                                      std::filesystem::path(o.outDir) / compared.labels[k]));
        files.push_back(compared_index(compared, o));
        for (auto& file : compared_report(compared, o)) files.push_back(std::move(file));
      }
    }
    io::files_write_atomic(files, o.force);
    for (const auto& [path, bytes] : files) std::printf("%s\n", path.string().c_str());
  } catch (const UsageError& e) {
    return usage_error(e.what());
  } catch (const models::ModelInputError& e) {
    return usage_error(e.what());
  } catch (const document::StudyError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sinkscope %s: %s\n", command_name, e.what());
    return 1;
  }
  return 0;
}

}  // namespace

}  // namespace sinkscope::app
