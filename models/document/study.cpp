#include "models/document/study.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "models/io/table_io.h"
#include "models/document/corpus_pool.h"
#include "models/corpus.h"
#include "models/document/intervention_json.h"
#include "models/input_files.h"
#include "models/model_identity.h"

namespace sinkscope::document {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using namespace study_format;

// Everything that decides a study's numbers; a shard made under another
// description is never merged with this one.
json study_description(const StudyInputs& in, const models::LoadedModel& loaded) {
  const models::ModelConfig& c = loaded.model->config();
  const models::ModelIdentity id = models::model_identity(loaded.model->folder());
  json weights = json::array();
  for (const auto& [name, bytes] : id.weightFiles) weights.push_back({name, bytes});
  const document::AnalysisSettings& p = in.params;
  return {{"format", kFormat},
          {"version", kVersion},
          {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
          {"model", in.modelSpec},
          {"model_folder", loaded.model->folder().string()},
          {"model_config_sha256", id.configSha256},
          {"tokenizer_sha256", id.tokenizerSha256},
          {"weight_files", weights},
          {"layers", c.num_layers},
          {"heads", c.num_heads},
          {"encoder", !c.causal},
          {"sentences_file", in.sentencesFile.string()},
          {"sentences_sha256", in.sentencesSha256},
          {"sentences", in.sentences.size()},
          {"params", study_params_json(p)}};
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buffer;
}

}  // namespace

namespace {

// DIR/study.json: written on first use, else it must describe these inputs.
StudyFile claim_study(const fs::path& dir, const json& description) {
  const fs::path studyFile = dir / "study.json";
  std::error_code ec;
  refuse_linked_folder(dir / "shards");
  fs::create_directories(dir / "shards", ec);
  if (ec)
    throw StudyError(dir.string() + ": cannot create the study folder (" + ec.message() + ")");
  if (fs::exists(fs::symlink_status(studyFile, ec))) {
    const json stored = parse_json(read_study_file(studyFile, kMaxSmallFile), studyFile);
    const auto differ = differences(stored, description);
    if (!differ.empty()) {
      std::string list;
      for (const auto& d : differ) list += (list.empty() ? "" : ", ") + d;
      throw StudyError(studyFile.string() +
                       ": this study was made with other inputs or parameters (" + list +
                       " differ); use another --out folder");
    }
  } else {
    try {
      io::files_write_atomic({{studyFile, description.dump(1) + "\n"}}, false);
    } catch (const std::exception&) {
      // Another task of the same array may have written it first: check it below.
    }
  }
  StudyFile study = read_study(dir);
  if (!differences(study.description, description).empty())
    throw StudyError(studyFile.string() + ": written concurrently with other inputs");
  return study;
}

// A folder of this task's own for the shard. Folders left by killed tasks of
// this shard are removed; the task renames its folder into place when done.
fs::path shard_work_folder(const fs::path& dir, ShardId shard) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "shards", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".tmp-" + shard_folder_name(shard) + "-", 0) == 0)
      fs::remove_all(entry.path(), ec);
  }
  const fs::path work =
      dir / "shards" /
      (".tmp-" + shard_folder_name(shard) + "-" + host_name() + "-" + std::to_string(::getpid()));
  fs::create_directories(work, ec);
  if (ec) throw StudyError(work.string() + ": cannot be created (" + ec.message() + ")");
  return work;
}

// The shard's sentences' records as JSON lines, with progress and ETA.
std::string shard_records(const StudyInputs& inputs, ShardId shard, std::size_t first,
                          std::size_t end, const models::LoadedModel& loaded,
                          std::ostream& progress) {
  const auto started = std::chrono::steady_clock::now();
  const auto report = [&](std::size_t done) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::size_t total = end - first;
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    char line[160];
    std::snprintf(line, sizeof line, "study %s: %zu/%zu sentences, %.1f per second, ETA %.0f s\n",
                  shard_folder_name(shard).c_str(), done, total, rate,
                  rate > 0 ? static_cast<double>(total - done) / rate : 0.0);
    progress << line << std::flush;
  };
  std::string records;
  for (const SentenceRecord& r :
       corpus_records(loaded, inputs.sentences, first, end, inputs.params, report)) {
    records += record_to_json(r).dump();
    records += '\n';
  }
  return records;
}

}  // namespace

std::string study_run(const fs::path& dir, const StudyInputs& inputs, ShardId shard,
                      const models::LoadedModel& loaded, std::ostream& progress) {
  if (inputs.sentences.empty()) throw StudyError(inputs.sentencesFile.string() + ": no sentence");
  const StudyFile study =
      claim_study(dir, with_curves(study_description(inputs, loaded), inputs.params));
  std::error_code ec;
  const fs::path final = dir / "shards" / shard_folder_name(shard);
  if (fs::exists(fs::symlink_status(final / "manifest.json", ec))) {
    read_manifest(final, study);  // throws when it belongs to other inputs
    return "already complete";
  }
  const fs::path work = shard_work_folder(dir, shard);
  const auto [first, end] = shard_range(shard, inputs.sentences.size(), inputs.params.batch);
  const auto started = std::chrono::steady_clock::now();
  const std::string records = shard_records(inputs, shard, first, end, loaded, progress);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const json manifest{{"study_key", study.key},
                      {"shard", shard.index},
                      {"shards", shard.count},
                      {"first", first},
                      {"end", end},
                      {"records", end - first},
                      {"seconds", seconds},
                      {"host", host_name()},
                      {"tool", std::string("sinkscope-cli ") + SINKSCOPE_VERSION},
                      {"finished", utc_now()}};
  io::files_write_atomic(
      {{work / "records.jsonl", records}, {work / "manifest.json", manifest.dump(1) + "\n"}},
      false);
  fs::rename(work, final, ec);
  if (ec) {  // another task finished this shard first
    fs::remove_all(work, ec);
    return "already complete";
  }
  return "written";
}

std::vector<fs::path> study_merge(const fs::path& dir, bool partial, bool force, int bootstrap,
                                  unsigned long long bootstrapSeed, const std::string& command) {
  StudyFile study = read_study(dir);
  study.params.bootstrap = bootstrap;
  study.params.bootstrapSeed = bootstrapSeed;
  refuse_linked_folder(dir / "merged");
  std::vector<std::pair<std::size_t, std::size_t>> missing;
  std::vector<SentenceRecord> records = read_records(dir, study, missing);
  if (!missing.empty() && !partial)
    throw StudyError(dir.string() + ": sentences " + ranges_text(missing) +
                     " have no finished shard (run the missing shards, or merge with --partial)");
  if (records.empty()) throw StudyError(dir.string() + ": no finished shard to merge");

  const json& d = study.description;
  std::vector<std::pair<std::string, std::string>> header{
      {"tool", std::string("sinkscope-cli study merge ") + SINKSCOPE_VERSION},
      {"model", d.value("model", "")},
      {"sentences", std::to_string(records.size())},
      {"sentences_missing", missing.empty() ? "none" : ranges_text(missing)}};
  if (!command.empty()) header.emplace_back("command", command);
  for (const auto& line : corpus_header(study.params)) header.push_back(line);
  header.emplace_back("model_config_sha256", d.value("model_config_sha256", ""));
  header.emplace_back("tokenizer_sha256", d.value("tokenizer_sha256", ""));
  header.emplace_back("sentences_file", d.value("sentences_file", ""));
  header.emplace_back("sentences_sha256", d.value("sentences_sha256", ""));
  header.emplace_back("study_key", study.key);
  return corpus_write(
      corpus_tables(records, study.layers, study.heads, study.encoder, study.params),
      dir / "merged", header, study.params, force, {}, d.value("model", ""), records.size());
}

namespace {

// `text` as one single-quoted shell word.
std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The study folder as #SBATCH directives name it, inside double quotes (Slurm
// strips them, so spaces are fine). A line break would end the comment and run
// the rest as a command; a quote or backslash would end the quoting; '%' is
// Slurm's file-name pattern: all refused, naming the folder.
std::string directive_folder(const fs::path& dir) {
  const std::string text = dir.string();
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '%')
      throw StudyError("--out \"" + text +
                       "\": a Slurm batch script cannot name a folder with a line break, "
                       "control character, '\"', '\\' or '%'; use another folder");
  return text;
}

// Runs a command (argv, no shell), returns its stdout; throws StudyError with
// its output when it fails.
std::string run_program(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  FILE* pipe = popen((line + " 2>&1").c_str(), "r");
  if (!pipe) throw StudyError("cannot run " + argv.front());
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) throw StudyError(argv.front() + " failed: " + out);
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

int slurm_shard_count(const fs::path& dir) {
  const fs::path file = dir / "slurm" / "slurm.json";
  const json j = parse_json(read_study_file(file, kMaxSmallFile), file);
  try {
    const int n = whole_int(j.at("shards"), 1, 100000, file.string() + ": shards");
    if (n < 1 || n > 100000) throw StudyError(file.string() + ": shards out of range");
    return n;
  } catch (const json::exception& e) {
    throw StudyError(file.string() + ": a field is missing or of the wrong type (" + e.what() +
                     ")");
  }
}

}  // namespace

StudyInputs study_recorded_inputs(const fs::path& dir) {
  const StudyFile study = read_study(dir);
  const fs::path file = dir / "study.json";
  StudyInputs inputs;
  inputs.params = study.params;
  std::string model, folder;
  try {
    model = study.description.at("model").get<std::string>();
    folder = study.description.at("model_folder").get<std::string>();
    inputs.sentencesFile = study.description.at("sentences_file").get<std::string>();
  } catch (const json::exception&) {
    throw StudyError(file.string() + ": model, model_folder and sentences_file must be texts");
  }
  // The folder the study was made from while it is there (a cache name may
  // since resolve to another snapshot), else the name as the user gave it.
  std::error_code ec;
  inputs.modelSpec = !folder.empty() && fs::is_directory(folder, ec) ? folder : model;
  try {
    inputs.sentences = models::corpus_read_sentences(inputs.sentencesFile);
    inputs.sentencesSha256 =
        models::sha256_hex(models::input_file_read(inputs.sentencesFile, models::kTextFileMaxBytes));
  } catch (const std::runtime_error& e) {
    throw StudyError(file.string() + ": its sentences_file: " + e.what());
  }
  return inputs;
}

std::pair<fs::path, fs::path> study_slurm_write(const fs::path& dirIn, const StudyInputs& inputs,
                                                const models::LoadedModel& loaded,
                                                const SlurmOptions& o) {
  if (o.shards < 1 || o.shards > 100000) throw StudyError("--shards: need 1..100000");
  const auto batch = static_cast<std::size_t>(std::max(1, inputs.params.batch));
  const std::size_t blocks = (inputs.sentences.size() + batch - 1) / batch;
  if (static_cast<std::size_t>(o.shards) > blocks)
    throw StudyError("--shards " + std::to_string(o.shards) + ": the " +
                     std::to_string(inputs.sentences.size()) + " sentences make " +
                     std::to_string(blocks) + " blocks of --batch " + std::to_string(batch) +
                     " (a shard is whole blocks); give at most " + std::to_string(blocks) +
                     " shards or a smaller --batch");
  std::error_code ec;
  const fs::path dir = fs::absolute(dirIn, ec);
  const fs::path sentences = fs::absolute(inputs.sentencesFile, ec);
  const std::string folder = directive_folder(dir);  // before anything is written
  // study.json now: a bad model or sentence file fails here, not in every task.
  const json description = with_curves(study_description(inputs, loaded), inputs.params);
  for (const fs::path& folder : {dir / "shards", dir / "slurm", dir / "slurm" / "logs"})
    refuse_linked_folder(folder);
  fs::create_directories(dir / "shards", ec);
  fs::create_directories(dir / "slurm" / "logs", ec);
  if (ec)
    throw StudyError(dir.string() + ": cannot create the study folder (" + ec.message() + ")");
  const fs::path studyFile = dir / "study.json";
  if (fs::exists(fs::symlink_status(studyFile, ec))) {
    const json stored = parse_json(read_study_file(studyFile, kMaxSmallFile), studyFile);
    if (!differences(stored, description).empty())
      throw StudyError(studyFile.string() +
                       ": this study was made with other inputs or parameters; use another folder");
  } else {
    io::files_write_atomic({{studyFile, description.dump(1) + "\n"}}, false);
  }
  std::string head = "#!/bin/bash\n";
  auto directive = [](const std::string& d) { return "#SBATCH " + d + "\n"; };
  std::string common;
  if (!o.partition.empty()) common += directive("--partition=" + o.partition);
  common += directive("--time=" + o.time) + directive("--mem=" + o.memory) +
            directive("--cpus-per-task=" + std::to_string(o.cpus));
  if (o.gpu) common += directive("--gres=gpu:1");
  const std::string n = std::to_string(o.shards);
  const std::string array =
      head + directive("--job-name=sinkscope-study") +
      directive("--array=0-" + std::to_string(o.shards - 1)) +
      directive("--output=\"" + folder + "/slurm/logs/shard-%a-of-" + n + ".out\"") + common +
      "# One shard of the study per task, with the model, sentences and parameters\n"
      "# that study.json records (sinkscope-cli study shard --help). Written by\n"
      "# sinkscope-cli study slurm; submit with sbatch, or with study resubmit.\n"
      "exec " +
      shell_quote(o.cli.string()) + " study shard " + shell_quote(dir.string()) +
      " --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\" --threads " + std::to_string(o.cpus) + "\n";
  const std::string merge = head + directive("--job-name=sinkscope-study-merge") +
                            directive("--output=\"" + folder + "/slurm/logs/merge.out\"") + common +
                            "# The merge of every shard, after the array succeeded (afterok).\n"
                            "exec " +
                            shell_quote(o.cli.string()) + " study merge " +
                            shell_quote(dir.string()) + " --force\n";
  const json slurm{{"shards", o.shards}};
  const fs::path arrayFile = dir / "slurm" / "array.sbatch",
                 mergeFile = dir / "slurm" / "merge.sbatch";
  io::files_write_atomic({{arrayFile, array},
                                {mergeFile, merge},
                                {dir / "slurm" / "slurm.json", slurm.dump(1) + "\n"}},
                               true);
  fs::permissions(arrayFile, fs::perms::owner_exec, fs::perm_options::add, ec);
  fs::permissions(mergeFile, fs::perms::owner_exec, fs::perm_options::add, ec);
  return {arrayFile, mergeFile};
}

std::pair<std::string, std::string> study_slurm_submit(const fs::path& dir,
                                                       const std::vector<int>& shards) {
  const fs::path arrayFile = fs::absolute(dir / "slurm" / "array.sbatch");
  const fs::path mergeFile = fs::absolute(dir / "slurm" / "merge.sbatch");
  slurm_shard_count(dir);  // a study with a Slurm setup
  std::vector<std::string> array{"sbatch", "--parsable"};
  if (!shards.empty()) {
    std::string list;
    for (int s : shards) list += (list.empty() ? "" : ",") + std::to_string(s);
    array.push_back("--array=" + list);
  }
  array.push_back(arrayFile.string());
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  std::string arrayJob = trimmed(run_program(array));
  arrayJob = arrayJob.substr(0, arrayJob.find(';'));
  std::string mergeJob =
      trimmed(run_program({"sbatch", "--parsable", "--dependency=afterok:" + arrayJob,
                           "--kill-on-invalid-dep=yes", mergeFile.string()}));
  mergeJob = mergeJob.substr(0, mergeJob.find(';'));
  // The job ids, for study status to ask squeue about them.
  const fs::path jobsFile = dir / "slurm" / "jobs.json";
  std::error_code ec;
  json jobs = json::array();
  if (fs::exists(jobsFile, ec)) {
    jobs = parse_json(read_study_file(jobsFile, kMaxSmallFile), jobsFile);
    if (!jobs.is_array()) jobs = json::array();
  }
  jobs.push_back({{"array", arrayJob}, {"merge", mergeJob}, {"submitted", utc_now()}});
  io::file_write_atomic(jobsFile, jobs.dump(1) + "\n", true);
  return {arrayJob, mergeJob};
}

namespace {

// The array job ids study_slurm_submit recorded (newest last).
std::vector<std::string> submitted_array_jobs(const fs::path& dir) {
  const fs::path file = dir / "slurm" / "jobs.json";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) return {};
  const json jobs = parse_json(read_study_file(file, kMaxSmallFile), file);
  std::vector<std::string> out;
  if (jobs.is_array())
    for (const json& j : jobs)
      if (j.is_object() && j.contains("array") && j.at("array").is_string()) {
        const std::string id = j.at("array").get<std::string>();
        if (!id.empty() && id.size() < 32 &&
            std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
          out.push_back(id);
      }
  return out;
}

}  // namespace

SlurmShardStates study_slurm_states(const fs::path& dir) {
  SlurmShardStates out;
  std::error_code ec;
  if (!fs::exists(dir / "slurm" / "slurm.json", ec)) return out;
  out.shards = slurm_shard_count(dir);
  const StudyFile study = read_study(dir);
  const auto finished = finished_shards(dir, study);
  const std::vector<std::string> jobs = submitted_array_jobs(dir);
  // Array task -> state, from squeue (one line per task; the newest submission wins).
  std::map<int, std::string> queued;
  try {
    std::istringstream lines(
        run_program({"squeue", "-h", "-r", "-n", "sinkscope-study", "-o", "%i %T"}));
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string id, state;
      if (!(fields >> id >> state)) continue;
      const auto underscore = id.find('_');
      if (underscore == std::string::npos ||
          std::find(jobs.begin(), jobs.end(), id.substr(0, underscore)) == jobs.end())
        continue;
      char* end = nullptr;
      const long task = std::strtol(id.c_str() + underscore + 1, &end, 10);
      if (*end == '\0' && task >= 0 && task < out.shards) queued[static_cast<int>(task)] = state;
    }
  } catch (const StudyError& e) {
    out.queueError = e.what();
  }
  // Shards whose task left a work folder (".tmp-shard-I-of-N-host-pid"), listed once.
  std::set<std::string> leftWork;
  for (const auto& entry : fs::directory_iterator(dir / "shards", ec)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(".tmp-", 0) != 0) continue;
    const auto of = file.find("-of-");
    const auto end = of == std::string::npos ? of : file.find('-', of + 4);
    if (end != std::string::npos) leftWork.insert(file.substr(5, end - 5));
  }
  for (int i = 0; i < out.shards; ++i) {
    const std::string name = shard_folder_name({i, out.shards});
    if (finished.count(name)) {
      out.finished.push_back(i);
      continue;
    }
    const auto q = queued.find(i);
    const std::string state = q == queued.end() ? "" : q->second;
    if (state == "RUNNING" || state == "COMPLETING") {
      out.running.push_back(i);
    } else if (!state.empty()) {
      out.pending.push_back(i);  // PENDING, CONFIGURING, REQUEUED, ...
    } else {
      out.failed.push_back(i);
      if (leftWork.count(name)) out.killedMidRun.push_back(i);
    }
  }
  return out;
}

}  // namespace sinkscope::document
