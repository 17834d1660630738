// sinkscope-cli info, baseline, inspect, tokens, attention, tensors, random-model.
#include "app/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/sink_metric.h"
#include "app/cli/command_line.h"
#include "models/cpu_runtime.h"
#include "models/document/panel_views.h"
#include "models/input_files.h"
#include "models/io/table_io.h"
#include "models/json_bounded.h"
#include "models/loaded_model.h"
#include "models/model_discovery.h"
#include "models/model_folder.h"
#include "models/model_writer.h"
#include "models/real_model_shapes.h"
#include "models/runtime_info.h"
#include "models/safetensors.h"
#include "models/trace_export.h"

namespace sinkscope::cli {

int command_info(int argc, char** argv) {
  std::string folder;
  CommandLine command("info",
                      "Prints the device a forward pass would use and the libtorch version. With\n"
                      "MODEL (a Hugging Face model folder), also its architecture, layer and head\n"
                      "counts and weight files.");
  CLI::Option* model = command.app().add_option("MODEL", folder, "a model folder")->type_name("");
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  const auto runtime = sinkscope::models::runtime_info_query();
  std::cout << "device: " << sinkscope::models::runtime_device_label(runtime) << "\n"
            << "libtorch: " << runtime.torch_version << "\n";
  // The kernel decides the last digits of every float result (README: the
  // same numbers on every machine), so a report of numbers can name it.
  if (const std::string core = sinkscope::models::blas_core_name(); !core.empty())
    std::cout << "OpenBLAS core: " << core << "\n"
              << "OpenBLAS core chosen by: " << sinkscope::models::blas_core_chooser() << "\n";
  if (model->count() == 0) return kOk;
  try {
    const auto s = sinkscope::models::model_folder_inspect(folder);
    std::cout << "model: " << s.folder.string() << "\n"
              << "model_type: " << s.model_type << "\n"
              << "layers: " << s.num_layers << "\n"
              << "heads: " << s.num_heads << "\n"
              << "hidden_size: " << s.hidden_size << "\n"
              << "tokenizer: " << (s.has_tokenizer ? "tokenizer.json" : "missing") << "\n";
    for (const auto& f : s.weight_files) std::cout << "weights: " << f << "\n";
  } catch (const sinkscope::models::ModelInputError& e) {
    throw UsageError(e.what());
  }
  return kOk;
}

int command_baseline(int argc, char** argv) {
  int T = 0;
  bool bidirectional = false, force = false;
  std::string out;
  CommandLine command(
      "baseline",
      "Writes, for every key position k of a T-token input, the value the sink metric\n"
      "alpha_k (mean attention received from the queries that see k; metrics.md s. 1) takes\n"
      "when every query spreads its attention evenly over the keys it sees. Causal by default.");
  CLI::App& app = command.app();
  app.add_option("--length", T, range_text("the number of tokens", 1, 1000000))
      ->type_name("T")
      ->required()
      ->check(whole_in(1, 1000000));
  app.add_flag("--bidirectional", bidirectional, "an encoder: every query sees every key");
  CLI::Option* file =
      app.add_option("--out", out, "write the CSV there (atomically), not to stdout")
          ->type_name("FILE");
  app.add_flag("--force", force, "replace FILE when it exists");
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  const bool causal = !bidirectional;

  sinkscope::io::CsvTable table;
  table.comments = {
      {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
      {"command", "baseline"},
      {"definition", "alpha_k of a uniform head (metrics.md s. 1, Gu et al. sink metric)"},
      {"length", std::to_string(T)},
      {"causal", causal ? "true" : "false"}};
  table.columns = {"key", "alpha_uniform"};
  const std::vector<double> uniform = sinkscope::analysis::sink_uniform_baselines(T, causal);
  for (int k = 0; k < T; ++k)
    table.rows.push_back(
        {std::to_string(k), sinkscope::io::csv_number(uniform[static_cast<std::size_t>(k)])});
  const std::string csv = sinkscope::io::csv_render(table);
  if (file->count() == 0) {
    std::cout << csv;
    return kOk;
  }
  sinkscope::io::file_write_atomic(out, csv, force);
  return kOk;
}

int command_inspect(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string spec;
  CommandLine command("inspect",
                      "Summarises a model folder (or cache name org/name) without running it:\n"
                      "family, layers, heads, sizes, weight dtypes, parameter count, tokenizer\n"
                      "kind, special tokens, and the memory loading it would take.");
  add_model_argument(command.app(), spec);
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  return on_model([&] {
    const std::filesystem::path folder = resolve_model(spec);
    const auto summary = m::model_folder_inspect(folder);  // config present, weights confined
    const m::ModelConfig c = m::model_config_read(m::input_file_confine(folder, "config.json"));
    std::map<std::string, std::uint64_t> dtypes;
    std::uint64_t parameters = 0;
    for (const auto& f : summary.weight_paths) {
      const auto file = m::SafetensorsFile::open(f);
      for (const auto& [name, t] : file.tensors()) {
        dtypes[m::dtype_name(t.dtype)] += static_cast<std::uint64_t>(t.numel());
        parameters += static_cast<std::uint64_t>(t.numel());
      }
    }
    std::cout << "model: " << folder.string() << "\n"
              << "family: " << c.model_type << (c.causal ? " (decoder)" : " (encoder)") << "\n"
              << "layers: " << c.num_layers << "\n"
              << "heads: " << c.num_heads << "\n"
              << "kv_heads: " << c.num_kv_heads << "\n"
              << "head_dim: " << c.head_dim << "\n"
              << "hidden_size: " << c.hidden_size << "\n"
              << "intermediate_size: " << c.intermediate_size << "\n"
              << "vocab_size: " << c.vocab_size << "\n"
              << "max_positions: " << c.max_positions << "\n"
              << "positions: "
              << (c.positions == m::PositionKind::Rope      ? "rope"
                  : c.positions == m::PositionKind::Learned ? "learned"
                  : c.positions == m::PositionKind::Alibi   ? "alibi"
                                                            : "none")
              << "\n"
              << "parameters: " << parameters << "\n";
    std::cout << "dtypes:";
    for (const auto& [d, n] : dtypes) std::cout << " " << d << "=" << n;
    std::cout << "\n";
    for (const auto& f : summary.weight_files) std::cout << "weights: " << f << "\n";
    if (m::input_file_present(folder, "tokenizer.json")) {
      const auto tok = m::Tokenizer::load(folder);
      std::cout << "tokenizer: " << tok->kind() << ", " << tok->vocabSize() << " tokens\n";
      const auto& sp = tok->specialTokens();
      auto show = [](const char* k, const std::optional<std::string>& v) {
        if (v) std::cout << "special_" << k << ": " << *v << "\n";
      };
      show("bos", sp.bos);
      show("eos", sp.eos);
      show("unk", sp.unk);
      show("pad", sp.pad);
      show("cls", sp.cls);
      show("sep", sp.sep);
      show("mask", sp.mask);
      const auto probe = tok->encode("a", true);
      std::cout << "adds_special_tokens:";
      for (std::size_t i = 0; i < probe.ids.size(); ++i)
        if (probe.special[i]) std::cout << " " << probe.tokens[i];
      std::cout << "\n";
    } else {
      std::cout << "tokenizer: none (no tokenizer.json)\n";
    }
    const double need = static_cast<double>(m::model_memory_estimate(folder));
    const double available = static_cast<double>(m::system_available_memory());
    std::cout << "memory_estimate: " << gib(need) << " (available " << gib(available) << ")\n";
    return kOk;
  });
}

int command_tokens(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string spec, textGiven, file;
  bool noSpecial = false;
  CommandLine command("tokens", "Prints the tokens MODEL's tokenizer makes of a text.");
  CLI::App& app = command.app();
  add_model_argument(app, spec);
  CLI::Option* text = app.add_option("--text", textGiven,
                                     "one line per token: index, id, display string (-: stdin)");
  app.add_option("--batch", file,
                 "one JSON-encoded string per line; one JSON array of ids per line")
      ->type_name("FILE")
      ->excludes(text);
  app.add_flag("--no-special", noSpecial,
               "without the tokenizer's special tokens (BOS, [CLS], ...)");
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  if (text->count() == 0 && file.empty()) throw UsageError("tokens: give either --text or --batch");
  const bool special = !noSpecial;
  return on_model([&] {
    const std::filesystem::path folder = resolve_model(spec);
    const auto tok = m::Tokenizer::load(folder);
    if (text->count() > 0) {
      const auto e = tok->encode(text_checked(textGiven), special);
      for (std::size_t i = 0; i < e.ids.size(); ++i)
        std::cout << i << "\t" << e.ids[i] << "\t" << e.display[i] << "\n";
      return kOk;
    }
    std::string content;
    try {
      content = m::input_file_read(file, m::kTextFileMaxBytes);
    } catch (const m::ModelInputError& e) {
      throw UsageError(std::string("--batch ") + e.what());
    }
    std::istringstream in(content);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      nlohmann::json text;
      try {
        text = sinkscope::models::json_parse_bounded(line, "--batch " + file, 4);
      } catch (const sinkscope::models::ModelInputError&) {
        throw UsageError("--batch " + file + ": line " + std::to_string(number) +
                         " is not a JSON string");
      }
      if (!text.is_string())
        throw UsageError("--batch " + file + ": line " + std::to_string(number) +
                         " is not a JSON string");
      try {
        m::input_text_check(text.get<std::string>(),
                            "--batch " + file + ": line " + std::to_string(number));
      } catch (const m::ModelInputError& e) {
        throw UsageError(e.what());
      }
      std::cout << nlohmann::json(tok->encode(text.get<std::string>(), special).ids).dump() << "\n";
    }
    return kOk;
  });
}

int command_attention(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string spec, textGiven, layerText, headText, out;
  bool force = false;
  m::LoadOptions load;
  CommandLine command(
      "attention",
      "Runs MODEL on TEXT and writes the attention map of layer L, head H (or --head average,\n"
      "the mean over the layer's heads) as CSV in long format: layer, head, query, key,\n"
      "query_token, key_token, weight. --layer all and --head all write every layer's and\n"
      "head's map of the one run.");
  CLI::App& app = command.app();
  add_model_argument(app, spec);
  app.add_option("--text", textGiven, "the sentence (-: standard input)")->required();
  app.add_option("--layer", layerText, "a layer, or all")->type_name("L")->required();
  app.add_option("--head", headText, "a head, average, or all")->type_name("H")->required();
  app.add_option("--csv", out, "where the CSV goes (-: standard output)")
      ->type_name("FILE")
      ->required();
  app.add_flag("--force", force, "replace FILE when it exists");
  add_load_options(app, load);
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  const std::string text = text_checked(textGiven);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec, load);
    const m::ModelConfig& c = loaded.model->config();
    const bool allLayers = layerText == "all";
    const int firstLayer = allLayers ? 0 : parse_int("layer", layerText, 0, c.num_layers - 1);
    const int lastLayer = allLayers ? c.num_layers - 1 : firstLayer;
    const bool average = headText == "average" || headText == "avg" || headText == "mean";
    const bool allHeads = headText == "all";
    const int head = average || allHeads ? -1 : parse_int("head", headText, 0, c.num_heads - 1);
    // On one BLAS thread, as analyze and the window: the same weights for every --threads.
    std::optional<m::SingleThreadedBlas> exactProducts(std::in_place);
    const m::SentenceTrace run = m::loaded_model_run(loaded, text, m::RunOptions::attention_only());
    exactProducts.reset();

    sinkscope::io::CsvTable table;
    table.comments = {{"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
                      {"command", "attention"},
                      {"model", loaded.model->folder().string()},
                      {"model_type", c.model_type},
                      {"text", text},
                      {"layer", layerText},
                      {"head", average    ? "average"
                               : allHeads ? "all"
                                          : std::to_string(head)},
                      {"tokens", std::to_string(run.trace.tokens())},
                      {"device", loaded.model->device()},
                      {"compute_dtype", loaded.model->computeDtype()}};
    for (auto& line : provenance(loaded, argc, argv)) table.comments.push_back(line);
    table.columns = sinkscope::document::attention_columns();
    // One run, every map asked for (--layer all --head all: the whole model).
    for (int layer = firstLayer; layer <= lastLayer; ++layer) {
      const m::LayerCapture capture = run.trace.layer(layer);
      const sinkscope::analysis::AttentionMatrix averaged = capture.headAverage();
      std::vector<int> heads;
      if (allHeads)
        for (int h = 0; h < c.num_heads; ++h) heads.push_back(h);
      else
        heads.push_back(head);
      for (int h : heads) {
        const sinkscope::analysis::AttentionView map =
            h < 0 ? averaged.view() : capture.attentionOf(h);
        sinkscope::document::append_attention_rows(table, map, layer, h, run.encoding.display);
      }
    }
    const std::string csv = sinkscope::io::csv_render(table);
    if (out == "-")
      std::cout << csv;
    else
      sinkscope::io::file_write_atomic(out, csv, force);
    return kOk;
  });
}

int command_tensors(int argc, char** argv) {
  namespace m = sinkscope::models;
  std::string spec, textGiven, out;
  bool force = false, logits = false;
  m::LoadOptions load;
  CommandLine command(
      "tensors",
      "Runs MODEL on TEXT once and writes its tensors as NPZ (numpy.load(FILE) gives a dict):\n"
      "attention [L, H, T, T], queries, keys, values [L, H, T, d] (after RoPE; keys and values\n"
      "of the KV group each head reads), residual [L+1, T, D] (entering each layer, then the\n"
      "last layer's output), ids [T], tokens [T], model (its name), params (a JSON string:\n"
      "model, text, tool, shapes), and with --logits the output logits [T, vocab]. Written a\n"
      "layer at a time; analyze --capture FILE gives analyze --text's tables from it.");
  CLI::App& app = command.app();
  add_model_argument(app, spec);
  app.add_option("--text", textGiven, "the sentence (-: standard input)")->required();
  app.add_option("--out", out, "the NPZ file")->type_name("FILE.npz")->required();
  app.add_flag("--logits", logits, "the output logits [T, vocab] as well");
  app.add_flag("--force", force, "replace FILE when it exists");
  add_load_options(app, load);
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  const std::string text = text_checked(textGiven);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec, load);
    const m::ModelConfig& c = loaded.model->config();
    // Products on one BLAS thread, as analyze runs them: a capture of this
    // file analysed (analyze --capture) gives analyze --text's numbers exactly.
    std::optional<m::SingleThreadedBlas> exactProducts(std::in_place);
    const m::SentenceTrace run = m::loaded_model_run(loaded, text);
    exactProducts.reset();
    nlohmann::json params = {
        {"schema_version", 1},
        {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
        {"command", "tensors"},
        {"model", loaded.model->folder().string()},
        {"model_type", c.model_type},
        {"text", text},
        {"tokens", run.trace.tokens()},
        {"layers", c.num_layers},
        {"heads", c.num_heads},
        {"kv_heads", c.num_kv_heads},
        {"head_dim", c.head_dim},
        {"hidden_size", c.hidden_size},
        {"causal", c.causal},
        {"device", loaded.model->device()},
        {"compute_dtype", loaded.model->computeDtype()},
        {"arrays",
         {{"attention", "[L, H, T, T] probabilities, row = query"},
          {"queries", "[L, H, T, d] after RoPE"},
          {"keys", "[L, H, T, d] after RoPE, of the KV group each head reads"},
          {"values", "[L, H, T, d] of the KV group each head reads"},
          {"residual", "[L+1, T, D] entering each layer; the last is the final layer's output"},
          {"ids", "[T] token ids"},
          {"tokens", "[T] display strings"},
          {"logits", "[T, vocab] when written (--logits)"}}}};
    for (const auto& [k, v] : provenance(loaded, argc, argv)) params[k] = v;
    m::TraceExportOptions o;
    o.logits = logits;
    o.overwrite = force;
    o.paramsJson = params.dump();
    o.modelName = m::model_display_name(loaded.model->folder());
    m::trace_write_npz(run.trace, run.encoding.display, out, o);
    std::cout << out << "\n";
    return kOk;
  });
}

namespace {

const char* kRandomModelAbout =
    "Writes a tiny random-weight model folder of model_type TYPE in the exact Hugging Face\n"
    "layout (config.json, model.safetensors, and a small byte-level tokenizer.json): a\n"
    "fixture for trying SinkScope or testing it. DIR must not exist yet.\n"
    "  sinkscope-cli random-model TYPE DIR [options]\n"
    "  sinkscope-cli random-model --like NAME DIR [--layers N] [--dtype BF16|F16|F32] [--seed S]\n"
    "  sinkscope-cli random-model --like      (lists the names)";

const char* kRandomModelDetails =
    "--like NAME writes a folder of a real model's shape with random weights: its published\n"
    "config.json verbatim, the weights in BF16 (or --dtype) sharded and indexed as its\n"
    "repository is (model-00001-of-00004.safetensors + model.safetensors.index.json), and\n"
    "the small tokenizer (embedding rows beyond its ids stay unused). Written a block at a\n"
    "time: a 7B folder (15 GB) needs disk, not memory. --layers N keeps the real per-layer\n"
    "shapes with fewer layers (num_hidden_layers then says N).\n"
    "--heads N keeps 8 dimensions per head; --hidden, --intermediate, --vocab and\n"
    "--weight-std give other shapes: tests/benchmarks/pipeline_compare.py writes GPT-2\n"
    "small's (12 x 12, 768, 3072, 50257, 0.02); the tokenizer stays the small one.\n";

// What random-model's command line gave.
struct RandomModelRequest {
  std::string first, second;  // TYPE DIR, or DIR with --like
  std::string like, dtype;
  CLI::Option *likeOption = nullptr, *dtypeOption = nullptr, *layersOption = nullptr,
              *seedOption = nullptr;
  std::vector<CLI::Option*> ownShape;  // options of a tiny model's own shape
  int layers = 0, heads = 0, hidden = 0, intermediate = 0, vocab = 0, positions = 0, seed = 1;
  double weightStd = 0;
  bool noTokenizer = false;
  bool given(const CLI::Option* o) const { return o->count() > 0; }
};

}  // namespace

namespace {

std::string real_model_names() {
  std::string names;
  for (const auto& s : sinkscope::models::real_model_shapes())
    names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

// random-model --like NAME DIR: a real model's shape.
int random_model_like(const RandomModelRequest& r) {
  namespace m = sinkscope::models;
  if (r.like.empty()) {
    for (const auto& s : m::real_model_shapes())
      std::cout << s.name << "\t" << s.repository << "\t"
                << (s.shards == 1 ? std::string("model.safetensors")
                                  : std::to_string(s.shards) + " shards")
                << "\n";
    return kOk;
  }
  const m::RealModelShape* shape = m::real_model_shape(r.like);
  if (!shape)
    throw UsageError("option --like: no model shape \"" + r.like + "\" (one of " +
                     real_model_names() + ")");
  if (r.first.empty() || !r.second.empty()) throw UsageError("random-model --like NAME: give DIR");
  for (const CLI::Option* other : r.ownShape)
    if (r.given(other))
      throw UsageError("option " + other->get_name() +
                       ": not with --like (the shape is the real one)");
  const std::filesystem::path dir = r.first;
  if (std::filesystem::exists(dir))
    throw UsageError("random-model: " + dir.string() + " already exists");
  const m::DType dtype =
      r.given(r.dtypeOption) ? parse_weight_dtype("dtype", r.dtype) : m::DType::BF16;
  const int layers = r.given(r.layersOption) ? r.layers : 0;
  const auto seed = static_cast<std::uint64_t>(r.seed);
  // Written beside DIR, then renamed: a cancelled write leaves no half folder.
  const std::filesystem::path temp = dir.string() + ".partial";
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(temp, ec)))
    throw UsageError("random-model: " + temp.string() +
                     " exists (a write that was stopped?); remove it first");
  try {
    m::model_folder_write_random(temp, m::real_model_spec(*shape, dtype, layers, seed));
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(temp, ignored);
    throw;
  }
  std::filesystem::rename(temp, dir);
  std::cout << dir.string() << "\n";
  return kOk;
}

}  // namespace

int command_random_model(int argc, char** argv) {
  namespace m = sinkscope::models;
  RandomModelRequest r;
  CommandLine command("random-model", kRandomModelAbout, kRandomModelDetails);
  CLI::App& app = command.app();
  app.add_option("TYPE", r.first, "a model_type (with --like: DIR)")->type_name("");
  app.add_option("DIR", r.second, "the folder to write")->type_name("");
  // A bare --like (nothing after it, or another option) lists the names.
  r.likeOption = app.add_option("--like", r.like, "a real model's shape, by name")
                     ->type_name("NAME")
                     ->expected(0, 1);
  r.dtypeOption = app.add_option("--dtype", r.dtype, "--like's weights: BF16 (default), F16 or F32")
                      ->type_name("DTYPE");
  r.layersOption =
      app.add_option("--layers", r.layers, range_text("layers (--like: up to 256)", 1, 256))
          ->type_name("N")
          ->check(whole_in(1, 256));
  r.seedOption = app.add_option("--seed", r.seed, range_text("the weights' seed", 0, 1 << 30))
                     ->type_name("S")
                     ->check(whole_in(0, 1 << 30))
                     ->capture_default_str();
  const char* own = "A tiny model's own shape (not with --like)";
  r.ownShape = {
      app.add_option("--heads", r.heads, range_text("heads, 8 dimensions each", 1, 64))
          ->type_name("N")
          ->check(whole_in(1, 64))
          ->group(own),
      app.add_option("--positions", r.positions, range_text("max_position_embeddings", 2, 8192))
          ->type_name("N")
          ->check(whole_in(2, 8192))
          ->group(own),
      app.add_option("--hidden", r.hidden,
                     range_text("hidden size, a multiple of the heads", 1, 16384))
          ->type_name("D")
          ->check(whole_in(1, 16384))
          ->group(own),
      app.add_option("--intermediate", r.intermediate, range_text("MLP size", 1, 65536))
          ->type_name("I")
          ->check(whole_in(1, 65536))
          ->group(own),
      app.add_option("--vocab", r.vocab, range_text("vocabulary size", 1, 1 << 20))
          ->type_name("V")
          ->check(whole_in(1, 1 << 20))
          ->group(own),
      app.add_option("--weight-std", r.weightStd,
                     range_text("the weights' standard deviation", 1e-6, 10))
          ->type_name("X")
          ->check(number_in(1e-6, 10))
          ->group(own),
      app.add_flag("--no-tokenizer", r.noTokenizer, "write no tokenizer.json")->group(own)};
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  if (r.given(r.likeOption)) return random_model_like(r);
  if (r.given(r.dtypeOption)) throw UsageError("option --dtype: only with --like");
  if (r.first.empty() || r.second.empty()) throw UsageError("random-model: give TYPE and DIR");
  const std::string& type = r.first;
  const auto& supported = m::model_types_supported();
  if (std::find(supported.begin(), supported.end(), type) == supported.end())
    throw UsageError("random-model: model_type \"" + type + "\" is not supported");
  const std::filesystem::path dir = r.second;
  if (std::filesystem::exists(dir))
    throw UsageError("random-model: " + dir.string() + " already exists");
  m::RandomModelSpec spec = m::random_model_spec_for(type);
  spec.with_tokenizer = !r.noTokenizer;
  if (r.given(r.layersOption)) {
    if (r.layers > 64) throw UsageError("option --layers: at most 64 without --like");
    spec.layers = r.layers;
  }
  if (r.given(r.ownShape[0])) {
    spec.heads = r.heads;
    spec.hidden = 8 * spec.heads;
    spec.kv_heads = 0;  // as many as heads: divides any head count
  }
  if (r.given(r.ownShape[2])) {
    spec.hidden = r.hidden;
    if (spec.hidden % spec.heads != 0)
      throw UsageError("option --hidden: must be a multiple of the number of heads");
  }
  if (r.given(r.ownShape[3])) spec.intermediate = r.intermediate;
  if (r.given(r.ownShape[4])) spec.vocab = r.vocab;
  if (r.given(r.ownShape[5])) spec.weight_std = r.weightStd;
  if (r.given(r.ownShape[1])) spec.max_positions = r.positions;
  if (r.given(r.seedOption)) spec.seed = static_cast<std::uint64_t>(r.seed);
  m::model_folder_write_random(dir, spec);
  std::cout << dir.string() << "\n";
  return kOk;
}

}  // namespace sinkscope::cli
