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
#include "analysis/table_io.h"
#include "models/input_files.h"
#include "models/json_bounded.h"
#include "models/loaded_model.h"
#include "models/model_folder.h"
#include "models/model_writer.h"
#include "models/real_model_shapes.h"
#include "models/cpu_runtime.h"
#include "models/runtime_info.h"
#include "models/safetensors.h"
#include "models/trace_export.h"

namespace sinkscope::cli {

const char* kInfoHelp =
    "usage: sinkscope-cli info [MODEL]\n"
    "\n"
    "Prints the device a forward pass would use and the libtorch version. With MODEL (a\n"
    "Hugging Face model folder), also its architecture, layer and head counts and weight files.\n";

const char* kBaselineHelp =
    "usage: sinkscope-cli baseline --length T [--bidirectional] [--out FILE] [--force]\n"
    "\n"
    "Writes, for every key position k of a T-token input, the value the sink metric\n"
    "alpha_k (mean attention received from the queries that see k; metrics.md s. 1) takes\n"
    "when every query spreads its attention evenly over the keys it sees. Causal by default.\n"
    "\n"
    "  --length T        number of tokens (1..1000000)\n"
    "  --bidirectional   an encoder: every query sees every key\n"
    "  --out FILE        write the CSV to FILE (atomically) instead of stdout\n"
    "  --force           replace FILE when it exists\n";

int command_info(int argc, char** argv) {
  const auto parsed = parse_command(argc, argv, {"help"}, {}, kInfoHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (args.positional.size() > 1) throw UsageError("info: give at most one model folder");
  const auto runtime = sinkscope::models::runtime_info_query();
  std::cout << "device: " << sinkscope::models::runtime_device_label(runtime) << "\n"
            << "libtorch: " << runtime.torch_version << "\n";
  if (const std::string core = sinkscope::models::blas_core_name(); !core.empty())
    std::cout << "OpenBLAS core: " << core << "\n";
  if (args.positional.empty()) return kOk;
  try {
    const auto s = sinkscope::models::model_folder_inspect(args.positional.front());
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
  const auto parsed = parse_command(argc, argv, {"help", "bidirectional", "force"},
                                    {"length", "out"}, kBaselineHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (!args.positional.empty())
    throw UsageError("baseline: unexpected argument " + args.positional[0]);
  if (!args.options.count("length")) throw UsageError("baseline: option --length is required");
  const int T = parse_int("length", args.options.at("length"), 1, 1000000);
  const bool causal = !args.options.count("bidirectional");

  sinkscope::analysis::CsvTable table;
  table.comments = {
      {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
      {"command", "baseline"},
      {"definition", "alpha_k of a uniform head (metrics.md s. 1, Gu et al. sink metric)"},
      {"length", std::to_string(T)},
      {"causal", causal ? "true" : "false"}};
  table.columns = {"key", "alpha_uniform"};
  for (int k = 0; k < T; ++k)
    table.rows.push_back(
        {std::to_string(k), sinkscope::analysis::csv_number(
                                sinkscope::analysis::sink_uniform_baseline(T, k, causal))});
  const std::string csv = sinkscope::analysis::csv_render(table);
  if (!args.options.count("out")) {
    std::cout << csv;
    return kOk;
  }
  sinkscope::analysis::file_write_atomic(args.options.at("out"), csv,
                                         args.options.count("force") > 0);
  return kOk;
}

const char* kInspectHelp =
    "usage: sinkscope-cli inspect MODEL\n"
    "\n"
    "Summarises a model folder (or cache name org/name) without running it: family, layers,\n"
    "heads, sizes, weight dtypes, parameter count, tokenizer kind, special tokens, and the\n"
    "memory loading it would take.\n";

const char* kTokensHelp =
    "usage: sinkscope-cli tokens MODEL (--text TEXT | --batch FILE) [--no-special]\n"
    "\n"
    "  --text TEXT     print one line per token: index, id, display string (--text=- reads stdin)\n"
    "  --batch FILE    FILE holds one JSON-encoded string per line; print one JSON array of ids\n"
    "                  per line\n"
    "  --no-special    do not add the tokenizer's special tokens (BOS, [CLS], ...)\n";

const char* kAttentionHelp =
    "usage: sinkscope-cli attention MODEL --text TEXT --layer L --head H --csv FILE\n"
    "                                [--device cpu|cuda] [--precision float32|stored] [--force]\n"
    "\n"
    "Runs MODEL on TEXT and writes the attention map of layer L, head H (or --head average,\n"
    "the mean over the layer's heads) as CSV in long format: layer, head, query, key,\n"
    "query_token, key_token, weight. --layer all and --head all write every layer's and\n"
    "head's map of the one run. --csv - writes to stdout.\n"
    "--precision: float32 (default) widens BF16/F16 weights before use; stored computes\n"
    "in the folder's dtype as Hugging Face's eager attention does (norms and softmax in\n"
    "float32).\n";

int command_inspect(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help"}, {}, kInspectHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "inspect");
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
  const auto parsed =
      parse_command(argc, argv, {"help", "no-special"}, {"text", "batch"}, kTokensHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "tokens");
  if (args.options.count("text") == args.options.count("batch"))
    throw UsageError("tokens: give either --text or --batch");
  const bool special = !args.options.count("no-special");
  return on_model([&] {
    const std::filesystem::path folder = resolve_model(spec);
    const auto tok = m::Tokenizer::load(folder);
    if (args.options.count("text")) {
      const auto e = tok->encode(text_option(args), special);
      for (std::size_t i = 0; i < e.ids.size(); ++i)
        std::cout << i << "\t" << e.ids[i] << "\t" << e.display[i] << "\n";
      return kOk;
    }
    const std::string file = args.options.at("batch");
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
  const auto parsed = parse_command(argc, argv, {"help", "force"},
                                    {"text", "layer", "head", "csv", "device", "precision"},
                                    kAttentionHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "attention");
  require_options(args, "attention", {"text", "layer", "head", "csv"});
  const m::LoadOptions load = load_options(args);
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec, load);
    const m::ModelConfig& c = loaded.model->config();
    const std::string layerText = args.options.at("layer");
    const bool allLayers = layerText == "all";
    const int firstLayer =
        allLayers ? 0 : parse_int("layer", layerText, 0, c.num_layers - 1);
    const int lastLayer = allLayers ? c.num_layers - 1 : firstLayer;
    const std::string headText = args.options.at("head");
    const bool average = headText == "average" || headText == "avg" || headText == "mean";
    const bool allHeads = headText == "all";
    const int head =
        average || allHeads ? -1 : parse_int("head", headText, 0, c.num_heads - 1);
    const m::SentenceTrace run =
        m::loaded_model_run(loaded, text, m::RunOptions::attention_only());

    sinkscope::analysis::CsvTable table;
    table.comments = {{"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
                      {"command", "attention"},
                      {"model", loaded.model->folder().string()},
                      {"model_type", c.model_type},
                      {"text", text},
                      {"layer", layerText},
                      {"head", average ? "average" : allHeads ? "all" : std::to_string(head)},
                      {"tokens", std::to_string(run.trace.tokens())},
                      {"device", loaded.model->device()},
                      {"compute_dtype", loaded.model->computeDtype()}};
    for (auto& line : provenance(loaded, argc, argv)) table.comments.push_back(line);
    table.columns = {"layer", "head", "query", "key", "query_token", "key_token", "weight"};
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
        const std::string headName = h < 0 ? "average" : std::to_string(h);
        for (int i = 0; i < map.size; ++i)
          for (int j = 0; j < map.size; ++j) {
            if (!map.visible(i, j)) continue;
            table.rows.push_back({std::to_string(layer), headName, std::to_string(i),
                                  std::to_string(j),
                                  run.encoding.display[static_cast<std::size_t>(i)],
                                  run.encoding.display[static_cast<std::size_t>(j)],
                                  sinkscope::analysis::csv_number(map.at(i, j))});
          }
      }
    }
    const std::string csv = sinkscope::analysis::csv_render(table);
    const std::string out = args.options.at("csv");
    if (out == "-")
      std::cout << csv;
    else
      sinkscope::analysis::file_write_atomic(out, csv, args.options.count("force") > 0);
    return kOk;
  });
}

const char* kTensorsHelp =
    "usage: sinkscope-cli tensors MODEL --text TEXT --out FILE.npz [--logits] [--force]\n"
    "                              [--device cpu|cuda] [--precision float32|stored]\n"
    "\n"
    "Runs MODEL on TEXT once and writes its tensors as NPZ (numpy.load(FILE) gives a dict):\n"
    "attention [L, H, T, T], queries, keys, values [L, H, T, d] (after RoPE; keys and values\n"
    "of the KV group each head reads), residual [L+1, T, D] (entering each layer, then the\n"
    "last layer's output), ids [T], tokens [T], params (a JSON string: model, text, tool,\n"
    "shapes), and with --logits the output logits [T, vocab]. Written a layer at a time.\n";

int command_tensors(int argc, char** argv) {
  namespace m = sinkscope::models;
  const auto parsed = parse_command(argc, argv, {"help", "force", "logits"},
                                    {"text", "out", "device", "precision"},
                                    kTensorsHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  const std::string spec = model_argument(args, "tensors");
  require_options(args, "tensors", {"text", "out"});
  const m::LoadOptions load = load_options(args);
  const std::string text = text_option(args);
  return on_model([&] {
    const m::LoadedModel loaded = m::loaded_model_open(spec, load);
    const m::ModelConfig& c = loaded.model->config();
    const m::SentenceTrace run = m::loaded_model_run(loaded, text);
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
    o.logits = args.options.count("logits") > 0;
    o.overwrite = args.options.count("force") > 0;
    o.paramsJson = params.dump();
    m::trace_write_npz(run.trace, run.encoding.display, args.options.at("out"), o);
    std::cout << args.options.at("out") << "\n";
    return kOk;
  });
}

const char* kRandomModelHelp =
    "usage: sinkscope-cli random-model TYPE DIR [--layers N] [--heads N] [--positions N]\n"
    "                                   [--hidden D] [--intermediate I] [--vocab V]\n"
    "                                   [--weight-std X] [--seed S] [--no-tokenizer]\n"
    "       sinkscope-cli random-model --like NAME DIR [--layers N] [--dtype BF16|F16|F32]\n"
    "                                   [--seed S]\n"
    "       sinkscope-cli random-model --like      (lists the names)\n"
    "\n"
    "--like NAME writes a folder of a real model's shape with random weights: its published\n"
    "config.json verbatim, the weights in BF16 (or --dtype) sharded and indexed as its\n"
    "repository is (model-00001-of-00004.safetensors + model.safetensors.index.json), and\n"
    "the small tokenizer (embedding rows beyond its ids stay unused). Written a block at a\n"
    "time: a 7B folder (15 GB) needs disk, not memory. --layers N keeps the real per-layer\n"
    "shapes with fewer layers (num_hidden_layers then says N).\n"
    "\n"
    "Writes a tiny random-weight model folder of model_type TYPE in the exact Hugging Face\n"
    "layout (config.json, model.safetensors, and a small byte-level tokenizer.json): a\n"
    "fixture for trying SinkScope or testing it. DIR must not exist yet. --heads N (1-64)\n"
    "keeps 8 dimensions per head; --positions N (up to 8192) sets max_position_embeddings,\n"
    "e.g. to try long inputs. --hidden, --intermediate, --vocab and --weight-std give other\n"
    "shapes: tests/benchmarks/pipeline_compare.py writes GPT-2 small's (12 x 12, 768, 3072,\n"
    "50257, 0.02); the tokenizer stays the small one.\n";

namespace {

std::string real_model_names() {
  std::string names;
  for (const auto& s : sinkscope::models::real_model_shapes())
    names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

// random-model --like NAME DIR: a real model's shape.
int random_model_like(const Args& args) {
  namespace m = sinkscope::models;
  const std::string& name = args.options.at("like");
  if (name.empty()) {
    for (const auto& s : m::real_model_shapes())
      std::cout << s.name << "\t" << s.repository << "\t"
                << (s.shards == 1 ? std::string("model.safetensors")
                                  : std::to_string(s.shards) + " shards")
                << "\n";
    return kOk;
  }
  const m::RealModelShape* shape = m::real_model_shape(name);
  if (!shape)
    throw UsageError("option --like: no model shape \"" + name + "\" (one of " +
                     real_model_names() + ")");
  if (args.positional.size() != 1) throw UsageError("random-model --like NAME: give DIR");
  for (const char* other : {"heads", "positions", "hidden", "intermediate", "vocab", "weight-std",
                            "no-tokenizer"})
    if (args.options.count(other))
      throw UsageError(std::string("option --") + other + ": not with --like (the shape is the real one)");
  const std::filesystem::path dir = args.positional[0];
  if (std::filesystem::exists(dir))
    throw UsageError("random-model: " + dir.string() + " already exists");
  const m::DType dtype = args.options.count("dtype")
                            ? parse_weight_dtype("dtype", args.options.at("dtype"))
                            : m::DType::BF16;
  const int layers =
      args.options.count("layers") ? parse_int("layers", args.options.at("layers"), 1, 256) : 0;
  const auto seed = args.options.count("seed")
                        ? static_cast<std::uint64_t>(parse_int("seed", args.options.at("seed"), 0, 1 << 30))
                        : std::uint64_t{1};
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
  // A bare --like lists the names.
  std::vector<char*> given(argv, argv + argc);
  std::vector<std::string> storage;
  for (std::size_t i = 0; i < given.size(); ++i)
    if (std::string(given[i]) == "--like" &&
        (i + 1 == given.size() || std::string(given[i + 1]).rfind("--", 0) == 0)) {
      storage.push_back("--like=");
      given[i] = storage.back().data();
    }
  const auto parsed = parse_command(static_cast<int>(given.size()), given.data(), {"help", "no-tokenizer"},
                                    {"layers", "heads", "positions", "seed", "hidden",
                                     "intermediate", "vocab", "weight-std", "like", "dtype"},
                                    kRandomModelHelp);
  if (!parsed) return kOk;  // --help was printed
  const Args& args = *parsed;
  if (args.options.count("like")) return random_model_like(args);
  if (args.options.count("dtype")) throw UsageError("option --dtype: only with --like");
  if (args.positional.size() != 2) throw UsageError("random-model: give TYPE and DIR");
  const std::string& type = args.positional[0];
  const auto& supported = m::model_types_supported();
  if (std::find(supported.begin(), supported.end(), type) == supported.end())
    throw UsageError("random-model: model_type \"" + type + "\" is not supported");
  const std::filesystem::path dir = args.positional[1];
  if (std::filesystem::exists(dir))
    throw UsageError("random-model: " + dir.string() + " already exists");
  m::RandomModelSpec spec = m::random_model_spec_for(type);
  spec.with_tokenizer = !args.options.count("no-tokenizer");
  if (args.options.count("layers"))
    spec.layers = parse_int("layers", args.options.at("layers"), 1, 64);
  if (args.options.count("heads")) {
    spec.heads = parse_int("heads", args.options.at("heads"), 1, 64);
    spec.hidden = 8 * spec.heads;
    spec.kv_heads = 0;  // as many as heads: divides any head count
  }
  if (args.options.count("hidden")) {
    spec.hidden = parse_int("hidden", args.options.at("hidden"), 1, 16384);
    if (spec.hidden % spec.heads != 0)
      throw UsageError("option --hidden: must be a multiple of the number of heads");
  }
  if (args.options.count("intermediate"))
    spec.intermediate = parse_int("intermediate", args.options.at("intermediate"), 1, 65536);
  if (args.options.count("vocab"))
    spec.vocab = parse_int("vocab", args.options.at("vocab"), 1, 1 << 20);
  if (args.options.count("weight-std"))
    spec.weight_std = parse_real("weight-std", args.options.at("weight-std"), 1e-6, 10.0);
  if (args.options.count("positions"))
    spec.max_positions = parse_int("positions", args.options.at("positions"), 2, 8192);
  if (args.options.count("seed"))
    spec.seed = static_cast<std::uint64_t>(parse_int("seed", args.options.at("seed"), 0, 1 << 30));
  m::model_folder_write_random(dir, spec);
  std::cout << dir.string() << "\n";
  return kOk;
}

}  // namespace sinkscope::cli
