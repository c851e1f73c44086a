// What else ran while a cell was timed, and the hardware counters of its timed work.
//
//   interference  steal time of the workers' CPUs (/proc/stat), the workers' own involuntary
//                 context switches (getrusage RUSAGE_THREAD) and CPU time (CLOCK_THREAD_CPUTIME_ID) around run(), the
//                 fraction of the phase each worker was off its CPU, and CPU migrations
//                 (perf software event; the workers are pinned, so any is a failure to pin).
//                 A process is `disturbed` when any of the rules below holds; its record is left
//                 out of the aggregates, and with adaptive repetitions on (run/adaptive_repetitions.hpp)
//                 the cell runs again within the time budget.
//   hardware_counters  cycles, instructions and cache misses of every worker's run(), summed:
//                 provenance "exact" where the PMU exists, "n/a(<errno>)" where it does not
//                 (VMs without a virtual PMU).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "cells/measured_phase.hpp"

namespace allocstress {

// The disturbance rules (results/README.md "Interference"): a worker that never waited of its own
// accord (no voluntary context switch in its run()) yet was off its CPU for more than
// kMaxOffCpuFraction of it (wall time minus its CPU time: another task ran there), judged only for
// workers alone on their PU (oversubscribed cells: siblings take turns there by design); steal above
// kMaxStealFraction of the phase's worker time; any migration of a pinned worker.  Measured on the
// 2-core VM: quiet processes 0-3.5% off-CPU (one preemption in a 1 ms loop), a process spinning on
// the same CPU ~50%.
inline constexpr double kMaxOffCpuFraction = 0.10;
inline constexpr double kMaxStealFraction = 0.02;

// {"steal_ns", "worker_involuntary_context_switches", "worker_voluntary_context_switches",
//  "worker_off_cpu_fraction", "cpu_migrations", "not_judged" (which rule was not applied and why:
//  counts cells, workers sharing a PU),
//  "disturbed", "disturbed_by"}.
// pus[i] is worker i's PU: the off-CPU rule judges only workers that have their PU to themselves.
nlohmann::json interference_record(const PhaseMeasurement& m, const std::vector<unsigned>& pus);

// {"cycles", "instructions", "cache_misses"}: figures ({value, provenance}) summed over workers.
nlohmann::json hardware_counters_record(const PhaseMeasurement& m);

}  // namespace allocstress
