// Parameters of the memory-phase workloads `phase-ramp`, `phase-plateau` and `phase-peak`
// (memory_phases.hpp states the model).  They draw sizes, seeds and operations per thread as
// alloc-test does (AllocTestParams: sizes, max_size_exp, iterations_per_thread, access, seed);
// PhaseSpec holds their own.  PhasePlan is the per-thread target curve that PhaseSpec and the op
// budget give: a list of legs over the operation clock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/alloc_test.hpp"

namespace allocstress {

inline constexpr const char* kPhaseRampWorkload = "phase-ramp";
inline constexpr const char* kPhasePlateauWorkload = "phase-plateau";
inline constexpr const char* kPhasePeakWorkload = "phase-peak";

enum class PhaseShape { ramp, plateau, peak };

bool is_phase_workload(std::string_view workload);
// pre: is_phase_workload(workload)
PhaseShape phase_shape_of(std::string_view workload);

// Which blocks a drop frees: random (uniformly random live blocks, like every other free, and
// like Steve's "kill percent") or newest (the most recently allocated live blocks first: the
// document that was opened last is closed; the survivors are the oldest blocks).
enum class PhaseDropOrder { random, newest };
std::string_view to_string(PhaseDropOrder order);
// Throws std::invalid_argument naming the accepted spellings (random, newest).
PhaseDropOrder parse_phase_drop_order(std::string_view text);

struct PhaseSpec {
  std::uint64_t live_bytes = std::uint64_t{64} << 20;  // ramp: reached at the end; plateau: held; peak: each peak (all threads)
  double drop_share = 0.9;                             // peak: share of the live bytes freed at each drop, 0..1 (CLI: percent)
  unsigned peaks = 2;                                  // peak: grow-and-drop cycles before the final growth
  std::uint64_t pause_ms = 100;                        // peak: untimed pause after each drop, RSS sampled
  PhaseDropOrder drop_order = PhaseDropOrder::newest;  // peak: which blocks a drop frees (the document closed: newest)
};

// Accepted ranges (validate): live_bytes 64 KiB..1 TiB; drop_share above 0, at most 1 (1 frees
// everything); peaks 1..100; pause_ms 0..10000 (peaks x pause is idle time of every cell).
inline constexpr std::uint64_t kMinPhaseLiveBytes = std::uint64_t{64} << 10;
inline constexpr std::uint64_t kMaxPhaseLiveBytes = std::uint64_t{1} << 40;
inline constexpr unsigned kMaxPhasePeaks = 100;
inline constexpr std::uint64_t kMaxPhasePauseMs = 10'000;

// Throws std::invalid_argument with one line naming the bad field and the accepted range.
void validate(const PhaseSpec& spec);

// Also checks what depends on the other parameters: the live bytes per thread (at least 64 KiB
// and the largest block) and the operation budget (make_phase_plan).  Same exception.
void validate(PhaseShape shape, const PhaseSpec& spec, const AllocTestParams& params);

// ---- The plan: one thread's target curve (memory_phases.hpp runs it) ----

// grow/hold/drop/final label the legs (final = the last growth of phase-peak); pause labels the
// rows taken during a pause.
enum class PhaseStage : std::uint8_t { grow, hold, drop, pause, final_growth };
std::string_view to_string(PhaseStage stage);  // "grow", "hold", "drop", "pause", "final"

// Where all worker threads meet (untimed barrier) and the process RSS and the live bytes of all
// threads are read: half (ramp, at N/2), rise_end (plateau, end of the rise), peak (phase-peak,
// top of each growth before a drop), drop (phase-peak, when the drop has freed down to the low
// level; the pause follows).
enum class CheckpointKind : std::uint8_t { none, half, rise_end, peak, drop };
std::string_view to_string(CheckpointKind kind);  // "none", "half", "rise_end", "peak", "drop"

// One leg of the curve.  It starts where the previous leg ended (op 0 and 0 bytes for the first)
// and runs to op `end` (planned), its target rising linearly to `to_bytes`.  A drop leg instead
// frees until the live bytes fall below `to_bytes`; it ends there, whatever `end` planned, and the
// next leg starts at that op.  `checkpoint`: met when the leg ends (none = no meeting).
struct PhaseLeg {
  std::uint64_t end;
  std::uint64_t to_bytes;
  PhaseStage stage;
  CheckpointKind checkpoint;
};

struct PhasePlan {
  PhaseShape shape = PhaseShape::ramp;
  std::uint64_t ops = 0;               // N: operations per thread
  std::uint64_t target_bytes = 0;      // L: live bytes per thread at the top of the curve
  std::uint64_t low_bytes = 0;         // peak: floor((1 - drop_share) L), what each drop frees down to; else L
  double mean_block_bytes = 0;         // the size model's mean (the budget's unit)
  std::uint64_t max_block_bytes = 0;
  std::uint64_t sample_every = 1;      // K: a series row every K ops of each thread
  std::uint64_t block_capacity = 0;    // live blocks one thread can hold (its harness array)
  PhaseDropOrder drop_order = PhaseDropOrder::random;  // peak: the spec's; random for the other shapes
  std::vector<PhaseLeg> legs;

  std::vector<CheckpointKind> checkpoints() const;  // in the order every thread meets them
  std::uint64_t series_rows() const { return ops / sample_every + 2; }  // rows one thread records, at most
};

// Budget rules (stated in memory_phases.hpp): a growth leg may ask for at most kMaxGrowthPerOp
// mean blocks per operation; a drop is planned at its expected length, (L - low) / mean ops.
inline constexpr double kMaxGrowthPerOp = 0.75;
inline constexpr std::uint64_t kSeriesRowsPerThread = 256;

// The plan of one thread (live_bytes / threads of the spec).  Throws std::invalid_argument when
// params.iterations_per_thread cannot carry the shape, naming the least number that can.
PhasePlan make_phase_plan(PhaseShape shape, const PhaseSpec& spec, const AllocTestParams& params, double mean_block_bytes,
                          std::uint64_t max_block_bytes);

}  // namespace allocstress
