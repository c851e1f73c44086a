// Soak cells (`--soak DURATION`): a steady workload's measured phase made to last DURATION, so that
// the record shows the process's memory over a long run -- RSS and hugepage coverage per bin of
// time (a minute by default) and their drift per hour, with an interval.
//
// Model.  The soak is the measured phase itself (cells/measured_phase.hpp): each worker runs its
// workload's run() as usual, then, while the deadline (DURATION after the go mark) has not passed,
// soak rounds of the workload's steady state -- the same loop continued on the same live heap
// (alloc-test's and fleet-profile's churn, phase-plateau's hold; a worker type offers
// `bool soak_round()`).  Cycles, operation counts and cost per pair cover the whole soak.  The
// hugepage sampler reads the process's Rss / Anonymous / AnonHugePages over it at a pace set by
// the bin (soak_sampling), and soak_block() reduces its timeline to per-bin medians and fits the
// drift: the Theil-Sen slope of the per-bin medians over time from the second bin on (the first
// holds the warm-up: the heap filling, the rise), with Sen's distribution-free interval
// (platform/statistics.hpp theil_sen_slope).  Bins are consecutive stretches of one process, so
// their noise may be correlated: the interval is then narrower than it should be (docs/memory.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/memory/hugepage_usage.hpp"

namespace allocstress {

struct SoakSpec {
  double duration_s = 0;  // the measured phase lasts at least this long
  double bin_s = 60;      // RSS and coverage are reported per bin of this many seconds
};

// "DURATION[,every=DURATION]", a DURATION being a positive number with a unit s, m or h ("90s",
// "10m", "1.5h"): from 1 s to 7 days, the bin from 1 s to the duration.  Throws
// std::invalid_argument naming what is wrong and what is accepted.
SoakSpec parse_soak_spec(std::string_view text);

// The hugepage sampler's pace in a soak: a reading every bin/30 (at least 50 ms) but at most
// 20,000 over the soak, with room for all of them.  Readings keep to 1% of the sampler's CPU time
// as long as a bin still gets kReadingsPerBin of them: a soak's figures are its per-bin medians,
// and its timing is compared with nothing.  The bound matters where a reading is dear: on the
// 2-vCPU VM of docs/memory.md, kernel work right after the thread's 50 ms sleep costs 15-40 times
// what it costs warm, and a reading of a 12 MiB alloc-test process took 0.3-5 ms of CPU, which
// slowed the sampler to one reading in 400-800 ms (1-3 readings in a 1 s bin) before the bound.
inline constexpr int kReadingsPerBin = 8;
HugepageSamplerOptions soak_sampling(const SoakSpec& spec);

// This process's soak (set once by run_cell: nullopt but for a soak cell), and the soak rounds its
// workers have run (run_measured_phase counts them; setting the soak resets the count).
void set_measured_phase_soak(const std::optional<SoakSpec>& spec);
const std::optional<SoakSpec>& measured_phase_soak();
void count_soak_round();
std::uint64_t soak_rounds_run();

// The record's "soak" block from a soak cell's record (its "hugepages" timeline and
// "rss_before_bytes"): {"spec", "duration_s", "bin_s", "rounds", "bins": [{"start_s", "samples",
// "rss_growth_bytes", "coverage"}], "drift": {...}} (results/schema.json).  Complete bins only;
// medians over the readings in each bin; coverage = AnonHugePages / Anonymous (null where no
// reading had anonymous memory).  Without a timeline the bins are empty and "unavailable" says why.
nlohmann::json soak_block(std::string_view spec_text, const nlohmann::json& record, std::uint64_t rounds);

}  // namespace allocstress
