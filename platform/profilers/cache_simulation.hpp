// Simulated cache misses of a cell's search phase, with callgrind's cache simulator.
// `allocstress run … --cache-sim` re-runs the same cell (same workload, parameters, seed) under
//   setarch -R valgrind --tool=callgrind --cache-sim=yes --collect-atstart=no --instr-atstart=no --fair-sched=yes
//                       --D1=<hwloc L1d> --LL=<hwloc last level> --I1=32768,8,64
// with address-space randomisation off, so that the figures are identical from run to run.  The
// structure workloads switch collection on only around their search loop (CALLGRIND_TOGGLE_COLLECT),
// so the totals are the search phase's: data reads + writes (demand fetches), L1 data misses and
// last-level data misses.  Simulation itself starts only at an uncollected warm-up search, so the
// figures describe a search over caches it warmed itself and do not depend on what ran before:
// identical on every run with one thread.  With several threads the simulated caches are shared and valgrind's interleaving
// of the threads can vary, so figures may differ slightly between runs.  This works without a PMU; the hardware counts live elsewhere
// (hardware_cache_misses in the timing record).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace allocstress {

// "" when valgrind and setarch are installed, else one line saying what is missing.
std::string cache_simulation_unavailable();

// The simulator command around `cell_argv` (the cell's own argv, --cache-sim included), writing
// callgrind's profile to `profile`.  Threads take turns on valgrind's lock in FIFO order
// (--fair-sched=yes), which keeps their interleaving as repeatable as valgrind can make it.  With
// `per_thread`, callgrind writes one profile per thread instead, `profile` + "-NN" (NN = valgrind's
// thread id, 01 the main thread, then in creation order): thread_profiles() finds them.  Throws
// std::runtime_error when valgrind or setarch is missing.
std::vector<std::string> cache_simulation_command(const std::vector<std::string>& cell_argv, const std::filesystem::path& profile,
                                                  bool per_thread = false);

// The counts tier of a whole program (program cells): callgrind around `program_argv` with
// collection on from the start, following every child it execs (--trace-children=yes), each
// process writing its own profile `folder`/callgrind.<pid>; the same geometry and address
// randomisation off.  Throws std::runtime_error when valgrind or setarch is missing.
std::vector<std::string> program_counts_command(const std::vector<std::string>& program_argv, const std::filesystem::path& folder);

// The per-thread profiles a `per_thread` command wrote for `profile`, in thread-id order.
std::vector<std::filesystem::path> thread_profiles(const std::filesystem::path& profile);

// The "simulated_cache" block from callgrind's profile: the tool and geometry used, the raw
// event totals, instructions, data_refs / d1_misses / ll_misses / d1_miss_rate and the estimated
// cycles (instruction_counts.hpp).  Throws std::runtime_error
// naming the file when it has no events/totals lines.
nlohmann::json simulated_cache_figures(const std::filesystem::path& profile);

// True inside a process that valgrind runs.
bool running_under_valgrind();

// Around a measured phase under `--instr-atstart=no --collect-atstart=no`: switch callgrind's
// instrumentation and event collection on, and collection off again.  No-ops outside valgrind.
void start_callgrind_collection();
void stop_callgrind_collection();
// Collection off and on again inside a collected stretch (the calling thread's; callgrind keeps
// collection per thread): around a worker's waits for other threads.  No-op outside valgrind.
void pause_callgrind_collection();
void resume_callgrind_collection();

// The environment every callgrind child gets besides the allocator's preload: hwloc's x86
// backend reads CPUID leaves valgrind does not emulate, disables itself and says so on stderr,
// so it is switched off (the Linux sysfs backend still gives the topology).
std::vector<std::pair<std::string, std::string>> callgrind_environment();

}  // namespace allocstress
