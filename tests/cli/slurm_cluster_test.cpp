// A corpus study on a real Slurm cluster of one node. The test
// starts munge, slurmctld and slurmd itself (the recipe of
// ../shared/notes/slurm-local.md), submits a 4-task array with its merge job
// over 200 held-out sentences of the default model, kills one task while it
// runs (scancel: SIGTERM, then SIGKILL), resubmits what is missing as `study
// status` says, and checks the merged tables against
// one process over the same file. Every daemon it started is stopped by PID in
// TearDown, also when a check fails. Label `cluster`; needs root and Debian's
// slurmctld slurmd slurm-client munge (installer/install-deps.sh).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "support/shell_run.h"

namespace fs = std::filesystem;

namespace {

const std::string kModel =
    std::string(SINKSCOPE_SOURCE_DIR) + "/resources/models/rope-decoder-bos-first";
const std::string kSentences = std::string(SINKSCOPE_SOURCE_DIR) + "/resources/examples/sentences.txt";


// Polls `done` every `pollMs` milliseconds for at most `seconds`.
template <class F>
bool wait_for(F done, int seconds, int pollMs = 200) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(pollMs));
  }
  return done();
}

pid_t pid_in(const fs::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// The PID a daemon writes into `file` once it runs (the file may exist, empty, before).
pid_t daemon_pid(const fs::path& file) {
  pid_t pid = 0;
  wait_for([&] { return (pid = pid_in(file)) > 0 && kill(pid, 0) == 0; }, 30);
  return pid;
}

void stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  if (!wait_for([&] { return kill(pid, 0) != 0; }, 15)) kill(pid, SIGKILL);
}

class SlurmCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "starting slurmctld and slurmd needs root";
    if (!fs::exists("/usr/sbin/slurmctld") || !fs::exists("/usr/sbin/slurmd") ||
        !fs::exists("/usr/sbin/munged"))
      GTEST_SKIP() << "Slurm is not installed (installer/install-deps.sh installs it)";
    dir = fs::temp_directory_path() / ("sinkscope-slurm-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "state");
    fs::create_directories(dir / "spool");
    // munge: reuse a running daemon, else start one (and stop it afterwards).
    if (shell("munge -n 2>/dev/null | unmunge >/dev/null 2>&1").exit != 0) {
      ASSERT_EQ(shell("( [ -f /etc/munge/munge.key ] || mungekey -c ) && "
                      "chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key && "
                      "mkdir -p /run/munge && chown munge:munge /run/munge && "
                      "su -s /bin/sh munge -c /usr/sbin/munged 2>&1")
                    .exit,
                0);
      mungePid = daemon_pid("/run/munge/munged.pid");
      ASSERT_TRUE(wait_for([] { return shell("munge -n | unmunge >/dev/null 2>&1").exit == 0; }, 30));
    }
    const std::string host = [] {
      std::string h = shell("hostname -s").out;
      while (!h.empty() && (h.back() == '\n' || h.back() == ' ')) h.pop_back();
      return h;
    }();
    const std::string d = dir.string();
    std::ofstream(dir / "slurm.conf")
        << "ClusterName=sinkscope-test\nSlurmctldHost=" << host
        << "\nSlurmUser=root\nSlurmdUser=root\nStateSaveLocation=" << d
        << "/state\nSlurmdSpoolDir=" << d << "/spool\nSlurmctldPidFile=" << d
        << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\nSlurmctldLogFile=" << d
        << "/ctld.log\nSlurmdLogFile=" << d
        << "/d.log\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
           "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nReturnToService=2\n"
           "NodeName="
        << host
        << " CPUs=2 RealMemory=8000 State=UNKNOWN\n"
           "PartitionName=debug Nodes="
        << host << " Default=YES MaxTime=INFINITE State=UP\n";
    setenv("SLURM_CONF", (dir / "slurm.conf").c_str(), 1);
    ASSERT_EQ(shell("/usr/sbin/slurmctld -f '" + d + "/slurm.conf' 2>&1").exit, 0);
    ctldPid = daemon_pid(dir / "slurmctld.pid");
    ASSERT_GT(ctldPid, 0) << read_text(dir / "ctld.log");
    ASSERT_TRUE(wait_for([] { return shell("scontrol ping 2>&1 | grep -q UP").exit == 0; }, 60))
        << read_text(dir / "ctld.log");
    ASSERT_EQ(shell("/usr/sbin/slurmd -f '" + d + "/slurm.conf' 2>&1").exit, 0);
    slurmdPid = daemon_pid(dir / "slurmd.pid");
    ASSERT_GT(slurmdPid, 0) << read_text(dir / "d.log");
    ASSERT_TRUE(wait_for([] { return shell("sinfo -h -o %T | grep -q idle").exit == 0; }, 60))
        << shell("sinfo 2>&1").out << read_text(dir / "d.log");
  }

  void TearDown() override {
    if (dir.empty()) return;
    shell("scancel --user=root >/dev/null 2>&1");
    stop(slurmdPid);
    stop(ctldPid);
    stop(mungePid);
    unsetenv("SLURM_CONF");
    fs::remove_all(dir);
  }

  bool queue_empty() { return shell("squeue -h -o %i 2>/dev/null").out.empty(); }

  fs::path dir;
  pid_t mungePid = 0, ctldPid = 0, slurmdPid = 0;
};

}  // namespace

TEST_F(SlurmCluster, AJobArrayMergesToTheNumbersOfOneProcess) {
  {  // 200 of the held-out sentences: 50 per task, several seconds of work each
     // with the functional experiments, so that a task can be killed while it runs
    std::ifstream in(kSentences);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line) && lines.size() < 200;) lines.push_back(line);
    ASSERT_EQ(lines.size(), 200u);
    std::ofstream out(dir / "s.txt");
    for (const auto& line : lines) out << line << "\n";
  }
  const fs::path study = dir / "study";
  const CliRun submit = cli("study slurm '" + kModel + "' --sentences '" + (dir / "s.txt").string() +
                            "' --out '" + study.string() +
                            "' --shards 4 --batch 10 --functional --cpus 1 --mem 1000 --time 00:10:00 --submit");
  ASSERT_EQ(submit.exit, 0) << submit.out;
  const auto at = submit.out.find("array job ");
  ASSERT_NE(at, std::string::npos) << submit.out;
  const std::string arrayJob = submit.out.substr(at + 10, submit.out.find(' ', at + 10) - at - 10);
  // Task 1 is killed while it runs (its work folder exists), or, should it
  // have finished already, cancelled anyway. The merge job, whose dependency
  // can no longer be met, is cancelled by Slurm.
  const bool sawRunning = wait_for(
      [&] {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(study / "shards", ec))
          if (e.path().filename().string().rfind(".tmp-shard-1-of-4", 0) == 0) return true;
        return fs::exists(study / "shards/shard-1-of-4");
      },
      300, 10);
  ASSERT_TRUE(sawRunning) << shell("squeue 2>&1").out;
  const bool runningAtCancel = !fs::exists(study / "shards/shard-1-of-4");
  const CliRun during = cli("study status '" + study.string() + "'");
  EXPECT_NE(during.out.find("slurm array: 4 shards"), std::string::npos) << during.out;
  EXPECT_NE(during.out.find("  running: "), std::string::npos) << during.out;
  shell("scancel " + arrayJob + "_1");
  ASSERT_TRUE(wait_for([&] { return queue_empty(); }, 300)) << shell("squeue 2>&1").out;
  const CliRun status = cli("study status '" + study.string() + "'");
  ASSERT_EQ(status.exit, 0) << status.out;
  const bool cancelledInTime = !fs::exists(study / "shards/shard-1-of-4");
  RecordProperty("cancelled_before_finishing", cancelledInTime ? "yes" : "no");
  std::cout << "[ cluster  ] task 1 " << (cancelledInTime ? (runningAtCancel ? "killed while it ran: resubmitted"
                                                  : "cancelled before it finished: resubmitted")
                                : "finished before the cancel")
            << "\n";
  if (cancelledInTime) {
    EXPECT_FALSE(fs::exists(study / "merged/frame.csv")) << "no merge while a shard is missing";
    EXPECT_NE(status.out.find("slurm array shards not finished: 1\n"), std::string::npos)
        << status.out;
    EXPECT_NE(status.out.find("  failed or cancelled: 1\n"), std::string::npos) << status.out;
    if (runningAtCancel) {  // SIGTERM, then SIGKILL, while it ran: its work folder stays
      EXPECT_NE(status.out.find("  killed mid-run (left a work folder): 1\n"), std::string::npos)
          << status.out;
    }
    EXPECT_NE(status.out.find("sinkscope-cli study resubmit"), std::string::npos) << status.out;
    const CliRun again = cli("study resubmit '" + study.string() + "'");
    ASSERT_EQ(again.exit, 0) << again.out;
    EXPECT_NE(again.out.find("(1 shards)"), std::string::npos) << again.out;
    ASSERT_TRUE(wait_for([&] { return queue_empty(); }, 300)) << shell("squeue 2>&1").out;
  } else if (!fs::exists(study / "merged/frame.csv")) {
    // The cancel reached the task after its shard was complete: Slurm counts
    // it cancelled and drops the merge job; every shard is there to merge.
    EXPECT_NE(status.out.find("slurm array: 4 shards, 4 finished"), std::string::npos) << status.out;
    ASSERT_EQ(cli("study merge '" + study.string() + "'").exit, 0);
  }
  ASSERT_TRUE(fs::exists(study / "merged/frame.csv"))
      << read_text(study / "slurm/logs/merge.out") << cli("study status '" + study.string() + "'").out;
  // The same tables as one process over the whole file.
  ASSERT_EQ(cli("analyze '" + kModel + "' --sentences '" + (dir / "s.txt").string() +
                "' --out '" + (dir / "single").string() + "' --batch 10 --functional")
                .exit,
            0);
  for (const char* table :
       {"specialisation.csv", "token_specialisation.csv", "taxonomy_pooled.csv", "sink_rate.csv",
        "frame.csv", "layer_profile.csv", "top_sentences.csv", "functional.csv"})
    EXPECT_EQ(csv_rows(study / "merged" / table), csv_rows(dir / "single" / table)) << table;
  EXPECT_NE(read_text(study / "merged/frame.csv").find("# sentences: 200\n"), std::string::npos);
}
