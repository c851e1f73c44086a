// Soak rounds in the measured phase (cells/measured_phase.hpp): workers that soak together
// (kSoakRoundsTogether, the replay) all run the same number of rounds, however unevenly their
// run() ends; a round that fails in one worker stops every worker after that round; a worker
// that could not set up leaves at once and nobody waits for it.
#include "cells/measured_phase.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace allocstress {
namespace {

struct Script {
  std::size_t slow_worker = 99, failing_worker = 99, unready_worker = 99;
  std::chrono::milliseconds slow_run{0};
  int failing_round = 0;
};

class TogetherWorker {
 public:
  static constexpr bool kSoakRoundsTogether = true;
  TogetherWorker(std::size_t index, const Script* script) : index_(index), script_(*script) {}
  std::string setup() { return index_ == script_.unready_worker ? "cannot set up" : ""; }
  void run() {
    if (index_ == script_.slow_worker) std::this_thread::sleep_for(script_.slow_run);
  }
  bool soak_round() {
    ++rounds;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return !(index_ == script_.failing_worker && rounds == script_.failing_round);
  }
  void inspect() {}
  void release() {}
  int rounds = 0;

 private:
  std::size_t index_;
  const Script& script_;
};

// Runs three together-workers for a soak of `seconds`; returns each one's rounds and the phase's wall time.
std::pair<std::vector<int>, double> soak_together(const Script& script, double seconds) {
  const Topology topology = Topology::synthetic("package:1 core:3 pu:1");
  set_measured_phase_soak(SoakSpec{seconds, seconds});
  std::vector<int> rounds(3);
  const PhaseMeasurement m = run_measured_phase<TogetherWorker>(
      topology, {0, 1, 2}, PhaseHooks{}, [&](std::size_t i, TogetherWorker& w) { rounds[i] = w.rounds; }, &script);
  set_measured_phase_soak(std::nullopt);
  return {rounds, double(m.wall_ns) / 1e9};
}

TEST(SoakRounds, TogetherEveryWorkerRunsTheSameRoundsThoughOneRunEndsLate) {
  Script s;
  s.slow_worker = 2;
  s.slow_run = std::chrono::milliseconds(300);
  const auto [rounds, wall] = soak_together(s, 1.0);
  EXPECT_GT(rounds[0], 10);  // about (1 - 0.3) / 5 ms, less on a loaded machine
  EXPECT_EQ(rounds[1], rounds[0]);
  EXPECT_EQ(rounds[2], rounds[0]);  // alone, workers 0 and 1 would have run 60 rounds more
  EXPECT_GE(wall, 1.0);
}

TEST(SoakRounds, TogetherAFailedRoundStopsEveryWorkerAfterIt) {
  Script s;
  s.failing_worker = 1;
  s.failing_round = 3;
  const auto [rounds, wall] = soak_together(s, 30.0);
  EXPECT_EQ(rounds, (std::vector<int>{3, 3, 3}));
  EXPECT_LT(wall, 20.0);  // stopped by the failure, not by the deadline
}

TEST(SoakRounds, TogetherAWorkerThatCouldNotSetUpLeavesAtOnce) {
  Script s;
  s.unready_worker = 0;
  const auto [rounds, wall] = soak_together(s, 0.5);
  EXPECT_EQ(rounds[0], 0);
  EXPECT_GT(rounds[1], 5);
  EXPECT_EQ(rounds[2], rounds[1]);
  EXPECT_LT(wall, 20.0);
}

}  // namespace
}  // namespace allocstress
