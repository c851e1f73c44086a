// Soak rounds in the measured phase (cells/measured_phase.hpp): workers that soak together
// (kSoakRoundsTogether, the replay) all run the same number of rounds, however unevenly their
// run() ends; a round that fails in one worker stops every worker after that round; a worker
// that could not set up leaves at once and nobody waits for it; a deadline already passed at the
// first decision runs no round.  Rounds end by a failure, not by the clock, so the counts are
// exact on any machine; the deadline's rule itself is checked on a clock the test sets.
#include "cells/measured_phase.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "../platform/state_waits.hpp"

namespace allocstress {
namespace {

struct Script {
  std::size_t late_worker = 99, failing_worker = 99, unready_worker = 99;
  int failing_round = 0;
  std::size_t ready_workers = 3;
};

// The script's round `round` of worker `worker` fails (its run_round returns false).
void fail_at(Script& s, std::size_t worker, int round) {
  s.failing_worker = worker;
  s.failing_round = round;
}

// What the workers of one phase see of one another.
struct Progress {
  std::atomic<std::size_t> runs_done{0};
  std::atomic<bool> round_before_late_run_ended{false};
};

class TogetherWorker {
 public:
  static constexpr bool kSoakRoundsTogether = true;
  TogetherWorker(std::size_t index, const Script* script, Progress* progress) : index_(index), script_(*script), progress_(*progress) {}
  std::string setup() { return index_ == script_.unready_worker ? "cannot set up" : ""; }
  void run() {
    if (index_ == script_.late_worker) {
      // Ends only after every other worker's run() has, and then some: had they started their
      // rounds without this one, a round would be counted meanwhile.
      if (!test::wait_until([&] { return progress_.runs_done.load() + 1 >= script_.ready_workers; }))
        ADD_FAILURE() << "the other workers never ended their run()";
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (soak_rounds_run() > 0) progress_.round_before_late_run_ended = true;
    }
    ++progress_.runs_done;
  }
  bool soak_round() {
    ++rounds;
    return !(index_ == script_.failing_worker && rounds == script_.failing_round);
  }
  void inspect() {}
  void release() {}
  int rounds = 0;

 private:
  std::size_t index_;
  const Script& script_;
  Progress& progress_;
};

// Runs three together-workers for a soak of `seconds`; returns each one's rounds.
std::vector<int> soak_together(const Script& script, double seconds, Progress* progress) {
  const Topology topology = Topology::synthetic("package:1 core:3 pu:1");
  set_measured_phase_soak(SoakSpec{seconds, seconds});
  std::vector<int> rounds(3);
  run_measured_phase<TogetherWorker>(
      topology, {0, 1, 2}, PhaseHooks{}, [&](std::size_t i, TogetherWorker& w) { rounds[i] = w.rounds; }, &script, progress);
  set_measured_phase_soak(std::nullopt);
  return rounds;
}

// A deadline far beyond what the rounds take: every soak below ends by its failing round.
constexpr double kFarDeadline = 600;

// The rounds each worker of `s` ran, soaking together far from the deadline.
std::vector<int> rounds_far_from_deadline(const Script& s) {
  Progress progress;
  return soak_together(s, kFarDeadline, &progress);
}

TEST(SoakRounds, TogetherEveryWorkerRunsTheSameRoundsThoughOneRunEndsLate) {
  Script s;
  s.late_worker = 2;
  fail_at(s, 0, 25);
  Progress progress;
  EXPECT_EQ(soak_together(s, kFarDeadline, &progress), (std::vector<int>{25, 25, 25}));
  EXPECT_FALSE(progress.round_before_late_run_ended) << "workers 0 and 1 soaked while worker 2 was still in run()";
}

TEST(SoakRounds, TogetherAFailedRoundStopsEveryWorkerAfterIt) {
  Script s;
  fail_at(s, 1, 3);
  EXPECT_EQ(rounds_far_from_deadline(s), (std::vector<int>{3, 3, 3}));
}

TEST(SoakRounds, TogetherAWorkerThatCouldNotSetUpLeavesAtOnce) {
  // Had the others waited for worker 0 at the round barrier, this would never end.
  Script s;
  s.unready_worker = 0;
  s.ready_workers = 2;
  fail_at(s, 1, 7);
  EXPECT_EQ(rounds_far_from_deadline(s), (std::vector<int>{0, 7, 7}));
}

TEST(SoakRounds, TogetherADeadlinePassedAtTheFirstDecisionRunsNoRound) {
  Progress progress;
  EXPECT_EQ(soak_together(Script{}, 0, &progress), (std::vector<int>{0, 0, 0}));
}

std::uint64_t fake_now = 0;
std::uint64_t fake_clock() { return fake_now; }

TEST(SoakRounds, TogetherOneMoreRoundWhileBeforeTheDeadlineAndNoneFailed) {
  const std::uint64_t deadline = 1000;
  std::atomic<bool> failed{false};
  bool go_on = false;
  SoakRoundDecision decide{&deadline, &failed, &go_on, fake_clock};
  fake_now = 999;
  decide();
  EXPECT_TRUE(go_on);
  fake_now = 1000;  // the deadline itself has passed
  decide();
  EXPECT_FALSE(go_on);
  fake_now = 0;
  failed = true;
  decide();
  EXPECT_FALSE(go_on);
}

}  // namespace
}  // namespace allocstress
