// The measured phase shared by every workload's cell: how worker threads and the main thread
// take turns so that the process-level readings (RSS, peak RSS, rusage, wall time) bracket
// exactly the timed work.
//
//   worker i: pin, setup()  --1-->  --2--> run() (the timed work) --3-->  --4--> inspect(), release()
//             --5-->  --6--> done
//   main:     --1--> hugepage sampler on, RSS before, reset peak, rusage, clocks --2-->  --3--> clocks,
//             rusage, peak and end RSS, sampler off --4-->  --5--> RSS after release --6-->
//
// The hugepage sampler (platform/memory/hugepage_usage.hpp) reads smaps_rollup on a thread of its own
// every 50 ms over the timed work, slowing down until its readings take at most 1% of its CPU
// time (a reading walks the page tables under the mmap lock: ~10 ms per GiB of 4 KiB pages, which
// an mmap or munmap of a worker waits behind).  Its cost is in the record (hugepages.busy_s).  It
// starts before the go mark and stops after the done mark and the at_done hook (it allocates
// then), and stays off where its thread would change what is counted: under callgrind, in the
// native kernel-events run of a counts cell (its reads would be system calls of the phase), and
// the cache simulator's inline worker.
//
// A worker whose setup() failed still walks through every barrier (nobody deadlocks) and skips
// its work.  Worker contract (one object per thread, constructed on that thread):
//   std::string setup()   untimed; "" or why the worker cannot run
//   void run()            the timed work; the driver counts its cycles
//   void inspect()        untimed, structures still live (verification, placement metrics)
//   void release()        untimed: free everything the worker still holds
//   bool soak_round()     optional, timed: in a soak (soak.hpp), called after run() until the
//                         deadline passes: more of the workload's steady state on the same live
//                         heap; false: it cannot go on (an allocation failed)
//   static constexpr bool kSoakRoundsTogether = true
//                         optional: its workers depend on one another within a round (a replay
//                         hands blocks between threads), so every worker runs the same number of
//                         rounds: whether to run one more is decided once for all, at a barrier
//                         the workers reach after each round (deadline not passed, no round failed)
//
// Counts cells (cell.hpp, CellMode::counts) run this same phase under callgrind: run_cell then
// switches counting on for the process, and callgrind collects exactly each worker's run() (its
// collection is per thread), so that the figures are the timed work's and nothing else's (no
// barrier, no reading of the main thread).  One worker runs on the calling thread; N workers (the
// cross-thread workloads, WorkloadEntry::counts_threads) run on their own threads as usual.
#pragma once

#include <sched.h>
#include <time.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <concepts>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cells/modes/soak.hpp"
#include "platform/profilers/cache_simulation.hpp"
#include "platform/cpu_steal.hpp"
#include "platform/memory/hugepage_usage.hpp"
#include "platform/profilers/perf_counters.hpp"
#include "platform/memory/process_memory.hpp"
#include "platform/profilers/syscall_trace.hpp"
#include "platform/topology.hpp"
#include "platform/tsc.hpp"

namespace allocstress {

struct WorkerTiming {
  std::uint64_t cycles = 0;
  std::string pin_error;
  // The PU this thread ran on (sched_getcpu) right before and right after its run(), outside the
  // timed stretch; -1 where sched_getcpu failed.  The record's observed_pus: where the worker
  // really ran, against pus, where it was pinned.
  int cpu_at_start = -1, cpu_at_end = -1;
  std::string setup_error;  // non-empty: the worker idled
  std::uint64_t run_ns = 0; // wall time of run() on this thread
  std::uint64_t cpu_ns = 0; // this thread's CPU time over run() (CLOCK_THREAD_CPUTIME_ID: the scheduler's runtime, ns)
  ResourceUsage usage;      // this thread's rusage over run() (its involuntary context switches: interference)
  nlohmann::json counters;  // timing_events() over run(), with provenance; null when counting under callgrind
};

struct PhaseMeasurement {
  std::vector<WorkerTiming> workers;
  std::uint64_t wall_ns = 0;
  std::uint64_t counter_ticks = 0;  // main thread's view of the same interval, for calibration
  std::uint64_t rss_before = 0, peak_rss = 0, rss_end = 0, rss_after_free = 0;
  std::string peak_reset_error;
  ResourceUsage usage;
  std::optional<std::uint64_t> steal_ns;  // steal time of the workers' CPUs over the phase (cpu_steal.hpp)
  std::optional<HugepageSummary> hugepages;  // hugepage coverage over the timed work (not sampled: nullopt)
};

// The sampler's pace in a measured phase (see the file comment; a soak's: soak.hpp).
inline HugepageSamplerOptions measured_phase_sampling() {
  if (measured_phase_soak()) return soak_sampling(*measured_phase_soak());
  HugepageSamplerOptions o;
  o.interval = std::chrono::milliseconds(50);
  o.max_busy_fraction = 0.01;
  return o;
}

// Optional calls on the main thread: right before "go" (after the readings), right after the
// readings that follow "done" (all blocks still live), and after the workers released everything.
struct PhaseHooks {
  std::function<void()> at_go, at_done, at_released;
  // With one worker, run it on the calling thread instead of a thread of its own (the cache
  // simulator: no second thread whose scheduling could touch the simulated caches).
  bool inline_single_worker = false;
};

// Whether this process counts its measured phase under callgrind (set once by run_cell).
void set_counting_measured_phase(bool on);
bool counting_measured_phase();
// On: the measured phase's start and end are marked for strace (mark_phase,
// platform/profilers/syscall_trace.hpp) -- with one worker around its run() alone, as callgrind collects;
// with N, by the main thread at go and done: a counts cell's native run counts its kernel events
// between them.
void set_marking_measured_phase(bool on);
bool marking_measured_phase();

inline std::uint64_t steady_now_ns() {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Workers that soak together (the contract above): the decision of the round barrier, taken by
// its completion step for every worker alike: one more round while no round failed and the
// deadline (on `now_ns`'s clock: the steady clock; a test passes its own) has not passed.
template <class Worker>
concept SoaksTogether = requires { requires Worker::kSoakRoundsTogether; };
struct SoakRoundDecision {
  const std::uint64_t* deadline_ns;
  const std::atomic<bool>* failed;
  bool* go_on;
  std::uint64_t (*now_ns)() = steady_now_ns;
  void operator()() noexcept { *go_on = !failed->load() && now_ns() < *deadline_ns; }
};

inline std::uint64_t thread_cpu_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}

// Worker thread i constructs Worker(i, args...) (see the file comment for the contract) after
// pinning itself, and hands it to keep(i, worker) at the very end, before destroying it.
template <class Worker, class Keep, class... Args>
PhaseMeasurement run_measured_phase(const Topology& topology, const std::vector<unsigned>& pus, const PhaseHooks& hooks, Keep keep,
                                    const Args&... args) {
  const std::size_t n = pus.size();
  PhaseMeasurement m;
  m.workers.resize(n);
  ResourceUsage usage0;
  std::uint64_t wall0 = 0, wall1 = 0, ticks0 = 0, ticks1 = 0;
  std::optional<std::uint64_t> steal0;
  std::optional<HugepageSampler> sampler;
  std::uint64_t soak_deadline_ns = 0;  // a soak's end (set before go; read by the workers after it)
  std::atomic<bool> soak_failed{false};
  bool soak_go_on = false;
  std::optional<std::barrier<SoakRoundDecision>> soak_rounds;  // workers that soak together
  if constexpr (SoaksTogether<Worker>) soak_rounds.emplace(std::ptrdiff_t(n), SoakRoundDecision{&soak_deadline_ns, &soak_failed, &soak_go_on, steady_now_ns});
  const bool sample_hugepages = !counting_measured_phase() && !marking_measured_phase() && !hooks.inline_single_worker;
  // The main thread's readings after barriers 1 ("ready"), 3 ("done") and 5 ("released").
  auto main_step = [&](int barrier) {
    if (barrier == 1) {
      if (sample_hugepages) {  // first: its thread's stack is in "RSS before"
        sampler.emplace(measured_phase_sampling());
        sampler->start();
      }
      m.rss_before = current_rss_bytes().value_or(0);
      m.peak_reset_error = reset_peak_rss();
      usage0 = process_resource_usage();
      steal0 = cpu_steal_ns(pus);
      wall0 = steady_now_ns();
      if (measured_phase_soak()) soak_deadline_ns = wall0 + std::uint64_t(measured_phase_soak()->duration_s * 1e9);
      if (marking_measured_phase() && n > 1) mark_phase(kPhaseGoMarker);  // one worker marks its own run() (below)
      if (hooks.at_go) hooks.at_go();
      ticks0 = cycle_counter_begin();
    } else if (barrier == 3) {
      ticks1 = cycle_counter_end();
      wall1 = steady_now_ns();
      m.usage = process_resource_usage() - usage0;
      if (const auto steal1 = cpu_steal_ns(pus); steal0 && steal1) m.steal_ns = *steal1 - *steal0;
      m.peak_rss = peak_rss_bytes().value_or(0);
      m.rss_end = current_rss_bytes().value_or(0);
      if (hooks.at_done) hooks.at_done();
      if (marking_measured_phase() && n > 1) mark_phase(kPhaseDoneMarker);
      if (sampler) m.hugepages = sampler->stop();  // it allocates: after the hooks' readings and the done mark
    } else if (barrier == 5) {
      m.rss_after_free = current_rss_bytes().value_or(0);  // comparable with rss_before: same harness memory
      if (hooks.at_released) hooks.at_released();
    }
  };
  // Worker i's whole life; sync(k) is barrier k.
  auto worker_body = [&](std::size_t i, auto&& sync) {
    WorkerTiming& t = m.workers[i];
    t.pin_error = topology.pin_current_thread(pus[i]);
    std::optional<Worker> worker;
    try {
      worker.emplace(i, args...);
      t.setup_error = worker->setup();
    } catch (const std::exception& e) {
      t.setup_error = e.what();
    }
    const bool ready = t.setup_error.empty();
    const bool counting = ready && counting_measured_phase();
    std::optional<ThreadCounters> counters;  // opened untimed; nothing but run() between start and stop
    if (ready && !counting) counters.emplace(timing_events());
    sync(1);  // ready
    sync(2);  // go
    t.cpu_at_start = sched_getcpu();  // outside every reading below (rseq or the vDSO: no system call)
    // The readings nest around run(): callgrind's collection innermost (libc and vDSO calls inside
    // it would count as the allocator's), then the perf counters, the clocks and rusage.
    const ResourceUsage thread_usage0 = thread_resource_usage();
    const std::uint64_t wall_run0 = steady_now_ns(), cpu_run0 = thread_cpu_now_ns();
    if (counters) counters->start();
    const bool marking = marking_measured_phase() && n == 1;  // exactly what callgrind collects: run() alone
    if (marking) mark_phase(kPhaseGoMarker);
    if (counting) start_callgrind_collection();
    const std::uint64_t c0 = cycle_counter_begin();
    if (ready) worker->run();
    if constexpr (SoaksTogether<Worker>) {
      if (soak_deadline_ns != 0) {  // the same for every worker: set before go
        bool round_ok = ready;      // a worker that could not set up leaves at once
        while (round_ok) {
          soak_rounds->arrive_and_wait();
          if (!soak_go_on) break;
          round_ok = worker->soak_round();
          if (round_ok) count_soak_round();
          else soak_failed.store(true);
        }
        soak_rounds->arrive_and_drop();
      }
    } else if constexpr (requires(Worker& w) { { w.soak_round() } -> std::same_as<bool>; }) {
      if (ready)
        while (soak_deadline_ns != 0 && steady_now_ns() < soak_deadline_ns && worker->soak_round()) count_soak_round();
    }
    t.cycles = cycle_counter_end() - c0;
    if (counting) stop_callgrind_collection();
    if (marking) mark_phase(kPhaseDoneMarker);
    if (counters) counters->stop();
    t.cpu_ns = thread_cpu_now_ns() - cpu_run0;
    t.run_ns = steady_now_ns() - wall_run0;
    t.usage = thread_resource_usage() - thread_usage0;
    t.cpu_at_end = sched_getcpu();
    sync(3);  // done
    sync(4);  // peak read
    if (counters) t.counters = counters->values_with_provenance();  // allocates: after the readings of the phase
    if (ready) {
      worker->inspect();
      worker->release();
    }
    sync(5);  // all blocks freed, harness memory still in place
    sync(6);  // RSS after free read
    if (worker) keep(i, *worker);
  };

  if ((hooks.inline_single_worker || counting_measured_phase()) && n == 1) {
    worker_body(0, main_step);  // no other thread exists: the main thread takes its readings in turn
  } else {
    std::barrier sync(std::ptrdiff_t(n) + 1);
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      threads.emplace_back([&, i] { worker_body(i, [&](int) { sync.arrive_and_wait(); }); });
    for (int barrier = 1; barrier <= 6; ++barrier) {
      sync.arrive_and_wait();
      main_step(barrier);
    }
    for (auto& t : threads) t.join();
  }
  m.wall_ns = wall1 - wall0;
  m.counter_ticks = ticks1 - ticks0;
  return m;
}

}  // namespace allocstress
