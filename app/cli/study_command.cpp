// sinkscope-cli study: run, merge, status, slurm, resubmit.
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

#include "models/corpus.h"
#include "models/document/analyze_report.h"
#include "models/document/study.h"
#include "models/input_files.h"
#include "models/loaded_model.h"
#include "models/model_identity.h"
#include "models/runtime_info.h"

namespace sinkscope::cli {

const char* kStudyHelp =
    "usage: sinkscope-cli study run MODEL --sentences FILE --out DIR [--shard I/N] [options]\n"
    "       sinkscope-cli study merge DIR [--partial] [--force]\n"
    "       sinkscope-cli study status DIR\n"
    "       sinkscope-cli study slurm MODEL --sentences FILE --out DIR --shards N [--submit]\n"
    "                     [--partition P] [--time HH:MM:SS] [--mem 4G] [--cpus C] [--gpu]\n"
    "       sinkscope-cli study resubmit DIR\n"
    "\n"
    "A corpus study: the pooled tables of analyze --sentences (specialisation.csv,\n"
    "token_specialisation.csv, taxonomy_pooled.csv, sink_rate.csv, frame.csv,\n"
    "layer_profile.csv, top_sentences.csv, functional.csv) over a sentence\n"
    "file, computed in shards that run anywhere (one process, several, or the tasks of a\n"
    "cluster job array) and merged into exactly the numbers of one process over the file.\n"
    "\n"
    "  run       writes DIR/study.json (model and sentence hashes, parameters) on first use and\n"
    "            one shard, DIR/shards/shard-I-of-N/ (records.jsonl, manifest.json), atomically:\n"
    "            a killed run leaves no shard. --shard I/N takes blocks [I K/N, (I+1) K/N) of the\n"
    "            K blocks of --batch sentences (default 0/1: all). A finished shard is skipped; a study folder made with\n"
    "            another model, sentence file or parameters is refused.\n"
    "  merge     pools every finished shard into DIR/merged/; refuses while sentences are\n"
    "            missing (listed), unless --partial (the headers then say what is missing).\n"
    "            --bootstrap B (200; 0: none) --bootstrap-seed S (1): the 95% intervals of\n"
    "            every share and rate (_lo, _hi columns) from B resamples of the sentences.\n"
    "  status    finished shards, shards running or killed, and the sentences not yet covered;\n"
    "            for a Slurm study, the array's unfinished shards and the command to resubmit.\n"
    "  slurm     writes DIR/study.json and DIR/slurm/array.sbatch (a job array of N shard\n"
    "            tasks, logs in DIR/slurm/logs) and merge.sbatch (study merge); with --submit,\n"
    "            submits both, the merge after the array has succeeded (afterok). Per task:\n"
    "            --time (01:00:00), --mem (4G), --cpus (2, also its threads), --partition,\n"
    "            --gpu (--gres=gpu:1; the default when this libtorch sees CUDA).\n"
    "  resubmit  submits the array's unfinished shards again, and a merge after them.\n"
    "\n"
    "FILE: one sentence per line, or FILE.jsonl (or .json): a JSON object with a \"text\" field per line.\n"
    "options of run (as analyze --sentences): --percentile P --gamma G (sink set), --eps E\n"
    "(sink metric), --specialised-share S, --sink-mode percentile|column-sum,\n"
    "--sink-denominator all|visible, --top-n N --query Q --random-subsets K --seed S (F_N),\n"
    "--min-persistence M, --symmetrise mean|max, --thresholds a,b,.. (layer profiles),\n"
    "--functional (KL of sink removal and BOS removal, pooled into functional.csv), --batch B\n"
    "--curves (every layer's alpha_k, Betti and F_N curves in the records: what\n"
    "`figure-set --study DIR` draws)\n"
    "interventions, analysed instead of the plain run of every sentence: --drop-first,\n"
    "--remove-sinks, --ablate L:H,..., --rope-theta X, --ntk-scale S (as analyze).\n"
    "(16: blocks of B sentences, one batched pass per token count; shards are whole blocks).\n"
    "Progress (done/total, rate, ETA) goes to stderr.\n";

int command_study(int argc, char** argv) {
  namespace m = sinkscope::models;
  namespace a = sinkscope::document;
  const auto parsed = parse_command(
      argc, argv,
      {"help", "partial", "force", "submit", "gpu", "functional", "curves", "drop-first",
       "remove-sinks"},
      {"sentences", "out", "shard", "percentile", "gamma", "eps", "specialised-share", "sink-mode",
       "sink-denominator", "shards", "partition", "time", "mem", "cpus", "bootstrap",
       "bootstrap-seed", "top-n", "query", "random-subsets", "seed", "min-persistence",
       "symmetrise", "thresholds", "batch", "ablate", "rope-theta", "ntk-scale"},
      kStudyHelp);
  if (!parsed) return kOk;
  const Args& args = *parsed;
  if (args.positional.empty()) throw UsageError("study: give run, merge or status (see study --help)");
  const std::string action = args.positional.front();
  auto studyErrors = [](auto f) {
    try {
      return f();
    } catch (const a::StudyError& e) {
      throw UsageError(e.what());
    }
  };
  if (action == "resubmit") {
    if (args.positional.size() != 2) throw UsageError("study resubmit: give the study folder DIR");
    return studyErrors([&] {
      const a::SlurmShardStates states = a::study_slurm_states(args.positional[1]);
      if (states.shards == 0)
        throw a::StudyError(args.positional[1] + ": not a Slurm study (no slurm/slurm.json)");
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
      const auto [array, merge] = a::study_slurm_submit(args.positional[1], shards);
      std::cout << "array job " << array << " (" << shards.size() << " shards), merge job " << merge
                << "\n";
      return kOk;
    });
  }
  if (action == "merge" || action == "status") {
    if (args.positional.size() != 2) throw UsageError("study " + action + ": give the study folder DIR");
    const std::filesystem::path dir = args.positional[1];
    if (action == "merge")
      return studyErrors([&] {
        sinkscope::document::AnalysisSettings p;
        parse_pooling_options(args, p);
        for (const auto& f : a::study_merge(dir, args.options.count("partial") > 0,
                                            args.options.count("force") > 0, p.bootstrap,
                                            p.bootstrapSeed, command_line(argc, argv)))
          std::cout << f.string() << "\n";
        return kOk;
      });
    return studyErrors([&] {
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
                  << dir.string() << "'\n";
      return kOk;
    });
  }
  if (action != "run" && action != "slurm")
    throw UsageError("study: unknown action \"" + action + "\" (run, merge, status, slurm, resubmit)");
  if (args.positional.size() != 2)
    throw UsageError("study " + action + ": give exactly one MODEL (a folder or org/name)");
  if (!args.options.count("sentences") || !args.options.count("out"))
    throw UsageError("study " + action + ": give --sentences FILE and --out DIR");
  a::StudyInputs inputs;
  inputs.modelSpec = args.positional[1];
  inputs.sentencesFile = args.options.at("sentences");
  parse_pooling_options(args, inputs.params);
  inputs.params.curves = args.options.count("curves") > 0;
  a::ShardId shard;
  try {
    if (args.options.count("shard")) shard = a::parse_shard(args.options.at("shard"));
    inputs.sentences = m::corpus_read_sentences(inputs.sentencesFile);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return on_model([&] {
    inputs.sentencesSha256 =
        m::sha256_hex(m::input_file_read(inputs.sentencesFile, m::kTextFileMaxBytes));
    const m::LoadedModel loaded = m::loaded_model_open(inputs.modelSpec);
    if (action == "slurm") {
      if (!args.options.count("shards")) throw UsageError("study slurm: give --shards N");
      a::SlurmOptions o;
      o.shards = parse_int("shards", args.options.at("shards"), 1, 100000);
      if (args.options.count("partition")) o.partition = args.options.at("partition");
      if (args.options.count("time")) o.time = args.options.at("time");
      if (args.options.count("mem")) o.memory = args.options.at("mem");
      if (args.options.count("cpus")) o.cpus = parse_int("cpus", args.options.at("cpus"), 1, 1024);
      for (const std::string& v : {o.partition, o.time, o.memory})
        if (v.find_first_of("\n\r'\"\\ ") != std::string::npos)
          throw UsageError("study slurm: \"" + v + "\" is not a Slurm option value");
      o.gpu = args.options.count("gpu") > 0 || m::runtime_info_query().cuda_available;
      std::error_code ec;
      o.cli = std::filesystem::read_symlink("/proc/self/exe", ec);
      if (ec) throw UsageError("study slurm: cannot name this program's path");
      return studyErrors([&] {
        const auto [array, merge] =
            a::study_slurm_write(args.options.at("out"), inputs, loaded, o);
        std::cout << array.string() << "\n" << merge.string() << "\n";
        if (args.options.count("submit")) {
          const auto [arrayJob, mergeJob] = a::study_slurm_submit(args.options.at("out"));
          std::cout << "array job " << arrayJob << " (" << o.shards << " shards), merge job "
                    << mergeJob << "\n";
        }
        return kOk;
      });
    }
    return studyErrors([&] {
      const std::string result =
          a::study_run(args.options.at("out"), inputs, shard, loaded, std::cerr);
      std::cout << a::shard_folder_name(shard) << ": " << result << "\n";
      return kOk;
    });
  });
}

}  // namespace sinkscope::cli
