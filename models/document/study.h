#pragma once
// `sinkscope-cli study`: a corpus study as a folder that runs on one core, on
// every core, or as the tasks of a cluster job array, and always merges to the
// same numbers.
//
// Its files: models/document/study_files.h.
//
// A shard is written into a temporary folder and renamed into place when it
// is complete, so a task killed mid-shard leaves no shard behind.
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/document/analyze_report.h"
#include "models/document/corpus_pool.h"
#include "models/document/study_files.h"
#include "models/loaded_model.h"

namespace sinkscope::document {

// What a study is: the model, the sentences and the analysis parameters.
struct StudyInputs {
  std::string modelSpec;  // as the user gave it (folder or cache name)
  std::filesystem::path sentencesFile;
  std::vector<std::string> sentences;  // its lines
  std::string sentencesSha256;
  document::AnalysisSettings params;
};

// Runs one shard. Creates DIR/study.json on first use; refuses (StudyError) a
// study folder made with another model, sentence file or parameters, and
// skips a shard that is already complete. Returns "written" or "already
// complete". Progress (done/total, rate, ETA) goes to `progress`.
std::string study_run(const std::filesystem::path& dir, const StudyInputs& inputs, ShardId shard,
                      const models::LoadedModel& model, std::ostream& progress);

// The inputs DIR/study.json records: its model (the folder it was made from
// while that exists, else the name given), its sentence file read again, and
// its parameters; what a Slurm task runs its shard with, so that the script
// never spells the parameters again. study_run then refuses a sentence file
// or model that no longer hashes as recorded. Throws StudyError.
StudyInputs study_recorded_inputs(const std::filesystem::path& dir);

// Merges the finished shards into DIR/merged/ (atomically; replacing an
// earlier merge only with `force`). Without `partial`, a study with missing
// sentences is refused with the list; with it, what exists is merged and the
// headers say what is missing. Returns the files written.
// `bootstrap` resamples (seeded) give the 95% intervals, as for analyze --sentences.
// `command` (the command line that asked) goes into the headers.
std::vector<std::filesystem::path> study_merge(const std::filesystem::path& dir, bool partial,
                                               bool force, int bootstrap = 200,
                                               unsigned long long bootstrapSeed = 1,
                                               const std::string& command = {});

// Slurm: a job array of shard tasks and a merge job that runs when every task
// has succeeded (afterok).
struct SlurmOptions {
  int shards = 4;
  std::string partition;          // empty: the cluster's default
  std::string time = "01:00:00";  // per task
  std::string memory = "4G";      // per task
  int cpus = 2;                   // per task (also its --threads)
  bool gpu = false;               // --gres=gpu:1 (when the linked libtorch has CUDA)
  std::filesystem::path cli;      // the sinkscope-cli the tasks run (absolute)
};

// Creates (or checks) DIR/study.json and writes DIR/slurm/array.sbatch,
// DIR/slurm/merge.sbatch and DIR/slurm/slurm.json (the shard count). Paths in
// the scripts are absolute. Returns the two scripts.
std::pair<std::filesystem::path, std::filesystem::path> study_slurm_write(
    const std::filesystem::path& dir, const StudyInputs& inputs, const models::LoadedModel& model,
    const SlurmOptions& options);

// Submits the array (only `shards` when not empty) and the merge after it:
// `sbatch --parsable [--array=LIST] array.sbatch`, then `sbatch --parsable
// --dependency=afterok:ID --kill-on-invalid-dep=yes merge.sbatch`. Returns the
// two job ids. Throws StudyError with sbatch's message when it fails.
std::pair<std::string, std::string> study_slurm_submit(const std::filesystem::path& dir,
                                                       const std::vector<int>& shards = {});

// What Slurm says about the shards of DIR's job array: finished (a shard
// folder), running or pending (squeue, for the array jobs study_slurm_submit
// recorded in DIR/slurm/jobs.json), or failed: neither finished nor queued
// (failed, cancelled, timed out, killed); killedMidRun: those failed whose
// task left its work folder. Without squeue, queueError says why and every
// unfinished shard counts as failed.
struct SlurmShardStates {
  int shards = 0;  // 0: no Slurm setup
  std::vector<int> finished, running, pending, failed, killedMidRun;
  std::string queueError;
};
SlurmShardStates study_slurm_states(const std::filesystem::path& dir);

}  // namespace sinkscope::document
