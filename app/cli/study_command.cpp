// sinkscope-cli study: run, merge, status, slurm, resubmit.
#include "app/cli/commands.h"

#include "models/document/corpus_pool.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
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

#include "app/cli/command_line.h"
#include "models/corpus.h"
#include "models/document/analyze_report.h"
#include "models/document/study.h"
#include "models/input_files.h"
#include "models/loaded_model.h"
#include "models/model_identity.h"
#include "models/runtime_info.h"

namespace sinkscope::cli {

namespace {

const char* kStudyAbout =
    "A corpus study: the pooled tables of analyze --sentences (specialisation.csv,\n"
    "token_specialisation.csv, taxonomy_pooled.csv, sink_rate.csv, frame.csv,\n"
    "layer_profile.csv, top_sentences.csv, functional.csv) over a sentence file, computed in\n"
    "shards that run anywhere (one process, several, or the tasks of a cluster job array)\n"
    "and merged into exactly the numbers of one process over the file.";

const char* kStudyDetails =
    "FILE: one sentence per line, or FILE.jsonl (or .json): a JSON object with a \"text\" field\n"
    "per line. `sinkscope-cli study ACTION --help` lists each action's options. Progress\n"
    "(done/total, rate, ETA) goes to stderr.\n";

// What `run` and `slurm` share: the model, the sentences, the folder and the
// analysis settings.
struct StudyRunOptions {
  sinkscope::document::StudyInputs inputs;
  std::string out;
  std::unique_ptr<AnalysisOptions> analysis;

  void declare(CLI::App& action) {
    action.add_option("MODEL", inputs.modelSpec, "a model folder or a Hugging Face cache name org/name")->type_name("")
        ->required();
    action.add_option("--sentences", inputs.sentencesFile, "the sentences")->type_name("FILE")->required();
    action.add_option("--out", out, "the study folder")->type_name("DIR")->required();
    action.add_flag("--curves", inputs.params.curves,
                    "every layer's alpha_k, Betti and F_N curves in the records (figure-set --study)");
    action
        .add_option("--context-lengths", inputs.params.contextLengths,
                    "with --curves: precision and recall at these context lengths too (L,...)")
        ->type_name("L,...")
        ->delimiter(',');
    analysis = std::make_unique<AnalysisOptions>(action, inputs.params);
  }
  // The parsed options applied and the sentence file read (UsageError).
  void finish() {
    analysis->apply();
    if (!inputs.params.contextLengths.empty() && !inputs.params.curves)
      throw UsageError("--context-lengths needs --curves (the records' curves)");
    try {
      inputs.params.contextLengths =
          sinkscope::document::context_lengths_checked(inputs.params.contextLengths);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    try {
      inputs.sentences = sinkscope::models::corpus_read_sentences(inputs.sentencesFile);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }
};

// What `slurm` adds: the job's resources and whether to submit it.
struct SlurmJobOptions {
  sinkscope::document::SlurmOptions job;
  bool submit = false, gpu = false;

  void declare(CLI::App& action) {
    const char* group = "Slurm job (per task)";
    action.add_option("--shards", job.shards, "the array's tasks")
        ->type_name("N")->required()->check(whole_in(1, 100000))->group(group);
    action.add_flag("--submit", submit, "submit the array and the merge")->group(group);
    action.add_option("--partition", job.partition, "the partition")->type_name("P")->group(group);
    action.add_option("--time", job.time, "the time limit")
        ->type_name("HH:MM:SS")->group(group)->capture_default_str();
    action.add_option("--mem", job.memory, "the memory")
        ->type_name("SIZE")->group(group)->capture_default_str();
    action.add_option("--cpus", job.cpus, range_text("CPUs, also the task's threads", 1, 1024))
        ->type_name("C")->check(whole_in(1, 1024))->group(group)->capture_default_str();
    action.add_flag("--gpu", gpu, "--gres=gpu:1 (the default when this libtorch sees CUDA)")
        ->group(group);
  }
};

// What `merge` takes besides the folder.
struct MergeOptions {
  bool partial = false, force = false;
  int bootstrap = sinkscope::document::AnalysisSettings{}.bootstrap;
  unsigned long long bootstrapSeed = sinkscope::document::AnalysisSettings{}.bootstrapSeed;

  void declare(CLI::App& action, std::string& dir) {
    action.footer(
        "Pools every finished shard into DIR/merged/; refuses while sentences are missing\n"
        "(listed), unless --partial (the headers then say what is missing).");
    action.add_option("DIR", dir, "the study folder")->type_name("")->required();
    action.add_flag("--partial", partial, "merge what is there");
    action.add_flag("--force", force, "replace a merge that exists");
    action.add_option("--bootstrap", bootstrap,
                      range_text("resamples of the 95% intervals (0: none)", 0, 100000))
        ->type_name("B")->check(whole_in(0, 100000))->capture_default_str();
    constexpr int kMaxSeed = std::numeric_limits<int>::max();
    action.add_option("--bootstrap-seed", bootstrapSeed,
                      range_text("the seed of the resamples", 0, kMaxSeed))
        ->type_name("S")->check(whole_in(0, kMaxSeed))->capture_default_str();
  }
};

template <class F>
int study_errors(F f) {
  try {
    return f();
  } catch (const sinkscope::document::StudyError& e) {
    throw UsageError(e.what());
  }
}


namespace m = sinkscope::models;
namespace a = sinkscope::document;

// study resubmit: the array's failed shards again, and a merge after them.
int resubmit_failed_shards(const std::string& dir) {
  const a::SlurmShardStates states = a::study_slurm_states(dir);
  if (states.shards == 0)
    throw a::StudyError(dir + ": not a Slurm study (no slurm/slurm.json)");
  if (!states.queueError.empty())
    throw a::StudyError("squeue: " + states.queueError +
                        "; without it running shards cannot be told from failed ones");
  const std::vector<int>& shards = states.failed;  // never one that is still queued
  if (shards.empty()) {
    std::cout << "no shard of the array has failed; nothing to resubmit ("
              << states.running.size() << " running, " << states.pending.size()
              << " pending)\n";
    return kOk;
  }
  const auto [array, merge] = a::study_slurm_submit(dir, shards);
  std::cout << "array job " << array << " (" << shards.size() << " shards), merge job " << merge
            << "\n";
  return kOk;
}

// study status: finished, running and missing shards; for a Slurm study, the array's.
int print_study_status(const std::string& dir) {
  const a::StudyStatus s = a::study_status(dir);
  std::size_t missing = 0;
  for (const auto& [first, end] : s.missing) missing += end - first;
  std::cout << "sentences: " << s.sentences << "\n"
            << "finished shards: " << s.complete.size() << "\n";
  for (const auto& name : s.complete) std::cout << "  " << name << "\n";
  std::cout << "running or killed: " << s.unfinished.size() << "\n";
  for (const auto& name : s.unfinished) std::cout << "  " << name << "\n";
  std::cout << "sentences not covered: " << missing << "\n";
  for (const auto& [first, end] : s.missing)
    std::cout << "  " << first << "-" << end - 1 << "\n";
  const a::SlurmShardStates slurm = a::study_slurm_states(dir);
  if (slurm.shards == 0) return kOk;
  auto list = [](const std::vector<int>& shards) {
    std::string text;
    for (int i : shards) text += (text.empty() ? "" : ",") + std::to_string(i);
    return text;
  };
  std::vector<int> unfinished = slurm.running;
  unfinished.insert(unfinished.end(), slurm.pending.begin(), slurm.pending.end());
  unfinished.insert(unfinished.end(), slurm.failed.begin(), slurm.failed.end());
  std::sort(unfinished.begin(), unfinished.end());
  std::cout << "slurm array: " << slurm.shards << " shards, " << slurm.finished.size()
            << " finished\n";
  if (!unfinished.empty()) std::cout << "slurm array shards not finished: " << list(unfinished) << "\n";
  if (!slurm.queueError.empty()) {
    std::cout << "squeue could not be asked (" << slurm.queueError
              << "): running and failed shards cannot be told apart\n";
    return kOk;
  }
  std::cout << "  running: " << list(slurm.running) << "\n"
            << "  pending: " << list(slurm.pending) << "\n"
            << "  failed or cancelled: " << list(slurm.failed) << "\n"
            << "  killed mid-run (left a work folder): " << list(slurm.killedMidRun) << "\n";
  if (!slurm.failed.empty())
    std::cout << "resubmit the failed ones (and a merge after them): sinkscope-cli study "
                 "resubmit '"
              << dir << "'\n";
  return kOk;
}

// study shard: one shard with what DIR/study.json records.
int run_recorded_shard(const std::string& dir, const std::string& recordedShardText) {
  a::ShardId shard;
  try {
    shard = a::parse_shard(recordedShardText);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const a::StudyInputs inputs = a::study_recorded_inputs(dir);
  return on_model([&] {
    const std::string result =
        a::study_run(dir, inputs, shard, m::loaded_model_open(inputs.modelSpec), std::cerr);
    std::cout << a::shard_folder_name(shard) << ": " << result << "\n";
    return kOk;
  });
}

// study slurm: the job array's and the merge's scripts (and their submission).
int write_slurm_jobs(StudyRunOptions& chosen, const m::LoadedModel& loaded,
                     const SlurmJobOptions& slurm) {
  a::SlurmOptions o = slurm.job;
  for (const std::string& v : {o.partition, o.time, o.memory})
    if (v.find_first_of("\n\r'\"\\ ") != std::string::npos)
      throw UsageError("study slurm: \"" + v + "\" is not a Slurm option value");
  o.gpu = slurm.gpu || m::runtime_info_query().cuda_available;
  std::error_code ec;
  o.cli = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw UsageError("study slurm: cannot name this program's path");
  return study_errors([&] {
    const auto [array, merge] = a::study_slurm_write(chosen.out, chosen.inputs, loaded, o);
    std::cout << array.string() << "\n" << merge.string() << "\n";
    if (slurm.submit) {
      const auto [arrayJob, mergeJob] = a::study_slurm_submit(chosen.out);
      std::cout << "array job " << arrayJob << " (" << o.shards << " shards), merge job "
                << mergeJob << "\n";
    }
    return kOk;
  });
}

// The study command's subcommands and their options, declared once.
struct StudyCommands {
  StudyRunOptions runOptions, slurmOptions;
  SlurmJobOptions slurmJob;
  MergeOptions mergeOptions;
  std::string shardText, dir, recordedShardText;
  CLI::App *run, *slurm, *shard, *merge, *status, *resubmit;

  explicit StudyCommands(CLI::App& app) {
    app.require_subcommand(1, 1);
    run = app.add_subcommand("run", "run one shard of the study (all of it by default)");
    run->footer(
        "Writes DIR/study.json (model and sentence hashes, parameters) on first use and one\n"
        "shard, DIR/shards/shard-I-of-N/ (records.jsonl, manifest.json), atomically: a killed\n"
        "run leaves no shard. A finished shard is skipped; a study folder made with another\n"
        "model, sentence file or parameters is refused.");
    runOptions.declare(*run);
    run->add_option("--shard", shardText,
                    "blocks [I K/N, (I+1) K/N) of the K blocks of --batch sentences (0/1: all)")
        ->type_name("I/N");

    slurm = app.add_subcommand("slurm", "write (and submit) a Slurm job array of the shards");
    slurm->footer(
        "Writes DIR/study.json and DIR/slurm/array.sbatch (a job array of N shard tasks, logs in\n"
        "DIR/slurm/logs) and merge.sbatch (study merge); with --submit, submits both, the merge\n"
        "after the array has succeeded (afterok).");
    slurmOptions.declare(*slurm);
    slurmJob.declare(*slurm);

    shard = app.add_subcommand(
        "shard", "run one shard of the study DIR/study.json records (what Slurm's tasks run)");
    shard->footer(
        "Runs shard I of N as study run does, with the model, the sentence file and the\n"
        "parameters that DIR/study.json records; refused when the sentence file or the model\n"
        "no longer hashes as recorded.");
    shard->add_option("DIR", dir, "the study folder")->type_name("")->required();
    shard->add_option("--shard", recordedShardText, "blocks [I K/N, (I+1) K/N) of the K blocks")
        ->type_name("I/N")
        ->required();
    merge = app.add_subcommand("merge", "pool the finished shards into DIR/merged/");
    mergeOptions.declare(*merge, dir);

    status = app.add_subcommand("status", "what is finished, running and missing");
    status->footer(
        "Finished shards, shards running or killed, and the sentences not yet covered; for a\n"
        "Slurm study, the array's unfinished shards and the command to resubmit.");
    status->add_option("DIR", dir, "the study folder")->type_name("")->required();
    resubmit = app.add_subcommand(
        "resubmit", "submit the array's failed shards again, and a merge after them");
    resubmit->add_option("DIR", dir, "the study folder")->type_name("")->required();
  }
};

// study run (one shard, in this process) or study slurm (the job array).
int run_or_submit(StudyCommands& c) {
  StudyRunOptions& chosen = c.run->parsed() ? c.runOptions : c.slurmOptions;
  chosen.finish();
  a::StudyInputs& inputs = chosen.inputs;
  a::ShardId shard;
  try {
    if (!c.shardText.empty()) shard = a::parse_shard(c.shardText);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return on_model([&] {
    inputs.sentencesSha256 =
        m::sha256_hex(m::input_file_read(inputs.sentencesFile, m::kTextFileMaxBytes));
    const m::LoadedModel loaded = m::loaded_model_open(inputs.modelSpec);
    if (c.slurm->parsed()) return write_slurm_jobs(chosen, loaded, c.slurmJob);
    return study_errors([&] {
      const std::string result = a::study_run(chosen.out, inputs, shard, loaded, std::cerr);
      std::cout << a::shard_folder_name(shard) << ": " << result << "\n";
      return kOk;
    });
  });
}

}  // namespace

int command_study(int argc, char** argv) {
  CommandLine command("study", kStudyAbout, kStudyDetails);
  StudyCommands c(command.app());
  if (!command.parse(argc, argv)) return kOk;  // --help was printed
  if (c.resubmit->parsed()) return study_errors([&] { return resubmit_failed_shards(c.dir); });
  if (c.merge->parsed())
    return study_errors([&] {
      const MergeOptions& o = c.mergeOptions;
      for (const auto& f : a::study_merge(c.dir, o.partial, o.force, o.bootstrap, o.bootstrapSeed,
                                          command_line(argc, argv)))
        std::cout << f.string() << "\n";
      return kOk;
    });
  if (c.status->parsed()) return study_errors([&] { return print_study_status(c.dir); });
  if (c.shard->parsed())
    return study_errors([&] { return run_recorded_shard(c.dir, c.recordedShardText); });
  return run_or_submit(c);
}

}  // namespace sinkscope::cli
