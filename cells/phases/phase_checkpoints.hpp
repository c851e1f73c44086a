// What the worker threads of a phase cell share (phase_cell.cpp): the checkpoint barrier, whose
// completion reads the process RSS and the threads' live bytes while every other thread waits,
// and, after a drop, samples the RSS through the untimed pause.  Nothing here allocates once the
// measured phase has begun (the reading and pause buffers are reserved up front).
#pragma once

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "platform/memory/process_memory.hpp"
#include "platform/tsc.hpp"
#include "workloads/phases/phase_params.hpp"

namespace allocstress {

struct SeriesRow {
  std::uint64_t op, tsc, live, rss;  // rss 0: not read (threads other than 0)
  PhaseStage stage;
};
struct PauseSample {
  std::uint64_t tsc, rss;
};
struct CheckpointReading {
  CheckpointKind kind;
  unsigned ordinal;
  std::uint64_t tsc, live, rss;            // live: all threads together
  std::size_t pause_begin, pause_end;      // its pause samples (drop), the first being this reading
};

// What the workers share: the checkpoint barrier, whose completion takes the readings and the pause.
class PhaseShared {
 public:
  PhaseShared(const PhasePlan& plan, std::uint64_t pause_ms, std::size_t threads)
      : kinds_(plan.checkpoints()), pause_ms_(pause_ms), every_ms_(std::max<std::uint64_t>(1, pause_ms / 100)), live_(threads),
        barrier_(std::ptrdiff_t(threads), Complete{this}) {
    readings_.reserve(kinds_.size());
    pauses_.reserve(kinds_.size() * (pause_ms_ / every_ms_ + 2));  // no allocation during the phase
  }
  // A worker at a checkpoint: publish its live bytes, wait for the others (and the pause).
  void meet(std::size_t thread, std::uint64_t live) {
    live_[thread].bytes = live;
    barrier_.arrive_and_wait();
  }
  // A worker that will not reach its remaining checkpoints (set-up or allocation failed).
  void leave() { barrier_.arrive_and_drop(); }

  const RssReader& rss() const { return rss_; }
  const std::vector<CheckpointReading>& readings() const { return readings_; }
  const std::vector<PauseSample>& pauses() const { return pauses_; }
  std::uint64_t pause_ms() const { return pause_ms_; }

 private:
  struct Complete {
    PhaseShared* shared;
    void operator()() noexcept { shared->complete(); }
  };
  struct alignas(64) Live {
    std::uint64_t bytes = 0;
  };

  void complete() noexcept {
    if (readings_.size() >= kinds_.size()) return;  // never: every thread meets the same checkpoints
    const CheckpointKind kind = kinds_[readings_.size()];
    const auto ordinal = unsigned(1 + std::count_if(readings_.begin(), readings_.end(), [&](const auto& r) { return r.kind == kind; }));
    std::uint64_t live = 0;
    for (const Live& l : live_) live += l.bytes;
    CheckpointReading r{kind, ordinal, cycle_counter_end(), live, rss_.read(), pauses_.size(), 0};
    if (kind == CheckpointKind::drop) pause(r);
    r.pause_end = pauses_.size();
    readings_.push_back(r);
  }

  void pause(const CheckpointReading& r) noexcept {
    pauses_.push_back({r.tsc, r.rss});
    const auto start = std::chrono::steady_clock::now(), end = start + std::chrono::milliseconds(pause_ms_);
    for (auto at = start; at < end;) {
      at = std::min(at + std::chrono::milliseconds(every_ms_), end);
      std::this_thread::sleep_until(at);
      pauses_.push_back({cycle_counter_end(), rss_.read()});
    }
  }

  std::vector<CheckpointKind> kinds_;
  std::uint64_t pause_ms_, every_ms_;
  std::vector<Live> live_;
  RssReader rss_;
  std::vector<CheckpointReading> readings_;
  std::vector<PauseSample> pauses_;
  std::barrier<Complete> barrier_;
};

}  // namespace allocstress
