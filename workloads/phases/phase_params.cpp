// Parameters, validation and the per-thread plan of the memory-phase workloads (the model and the
// loop are in memory_phases.hpp).
#include "workloads/phases/phase_params.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "platform/enum_words.hpp"
#include "workloads/param_range.hpp"
#include "workloads/size_model.hpp"

namespace allocstress {

namespace {

__extension__ using U128 = unsigned __int128;

std::string shortest(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::uint64_t ceil_div(double num, double den) { return std::uint64_t(std::ceil(num / den)); }

// Growth legs proportional to the bytes they grow, their ends rounded cumulatively so that the
// legs and the drops between them fill exactly `ops`.
class GrowthClock {
 public:
  GrowthClock(std::uint64_t growth_ops, double growth_bytes) : ops_(growth_ops), bytes_(growth_bytes) {}
  std::uint64_t after(double bytes_so_far) const { return std::uint64_t(std::floor(double(ops_) * bytes_so_far / bytes_)); }

 private:
  std::uint64_t ops_;
  double bytes_;
};

[[noreturn]] void too_few_ops(PhaseShape shape, const AllocTestParams& p, std::uint64_t least, std::uint64_t per_thread, double mean) {
  const char* name = shape == PhaseShape::ramp ? kPhaseRampWorkload : shape == PhaseShape::plateau ? kPhasePlateauWorkload : kPhasePeakWorkload;
  throw std::invalid_argument("iterations per thread too few for " + std::string(name) + ": " + std::to_string(p.iterations_per_thread) +
                              " (accepted: at least " + std::to_string(least) + " for " + std::to_string(per_thread) +
                              " live bytes per thread with a mean block of " + shortest(std::round(mean * 10) / 10) +
                              " B; raise --iterations or lower --live-bytes)");
}

}  // namespace

bool is_phase_workload(std::string_view w) { return w == kPhaseRampWorkload || w == kPhasePlateauWorkload || w == kPhasePeakWorkload; }

PhaseShape phase_shape_of(std::string_view w) {
  if (w == kPhasePlateauWorkload) return PhaseShape::plateau;
  return w == kPhasePeakWorkload ? PhaseShape::peak : PhaseShape::ramp;
}

namespace {
constexpr EnumWord<PhaseDropOrder> kDropOrderWords[] = {{PhaseDropOrder::random, "random"}, {PhaseDropOrder::newest, "newest"}};
constexpr EnumWord<PhaseStage> kStageWords[] = {{PhaseStage::grow, "grow"}, {PhaseStage::hold, "hold"}, {PhaseStage::drop, "drop"},
                                                {PhaseStage::pause, "pause"}, {PhaseStage::final_growth, "final"}};
constexpr EnumWord<CheckpointKind> kCheckpointWords[] = {{CheckpointKind::none, "none"}, {CheckpointKind::half, "half"},
                                                         {CheckpointKind::rise_end, "rise_end"}, {CheckpointKind::peak, "peak"},
                                                         {CheckpointKind::drop, "drop"}};
}  // namespace

std::string_view to_string(PhaseDropOrder order) { return word_of(kDropOrderWords, order, "random"); }
PhaseDropOrder parse_phase_drop_order(std::string_view text) { return parse_word(kDropOrderWords, text, "drop order"); }
std::string_view to_string(PhaseStage stage) { return word_of(kStageWords, stage); }
std::string_view to_string(CheckpointKind kind) { return word_of(kCheckpointWords, kind); }

void validate(const PhaseSpec& s) {
  require_in_range("live_bytes", s.live_bytes, kMinPhaseLiveBytes, kMaxPhaseLiveBytes);
  if (!(s.drop_share > 0 && s.drop_share <= 1))
    throw std::invalid_argument("drop_share out of range: " + shortest(s.drop_share) +
                                " (accepted: above 0 and at most 1, i.e. --drop-share above 0 up to 100 percent)");
  require_in_range("peaks", s.peaks, 1, kMaxPhasePeaks);
  require_in_range("pause_ms", s.pause_ms, 0, kMaxPhasePauseMs);
}

void validate(PhaseShape shape, const PhaseSpec& spec, const AllocTestParams& p) {
  validate(spec);
  with_size_sampler(p.sizes, p.max_size_exp, p.size_table, [&](const auto& sizes) {
    make_phase_plan(shape, spec, p, sizes.mean_size(), sizes.max_size());
  });
}

std::vector<CheckpointKind> PhasePlan::checkpoints() const {
  std::vector<CheckpointKind> out;
  for (const PhaseLeg& leg : legs)
    if (leg.checkpoint != CheckpointKind::none) out.push_back(leg.checkpoint);
  return out;
}

PhasePlan make_phase_plan(PhaseShape shape, const PhaseSpec& spec, const AllocTestParams& p, double mean, std::uint64_t max_block) {
  if (p.threads == 0) throw std::invalid_argument("threads must be at least 1, got 0");
  if (p.iterations_per_thread == 0) throw std::invalid_argument("iterations per thread must be at least 1, got 0");
  PhasePlan plan;
  plan.shape = shape;
  plan.ops = p.iterations_per_thread;
  plan.target_bytes = spec.live_bytes / p.threads;
  plan.mean_block_bytes = mean;
  plan.max_block_bytes = max_block;
  const std::uint64_t least_live = std::max(kMinPhaseLiveBytes, max_block);
  if (plan.target_bytes < least_live)
    throw std::invalid_argument("live_bytes per thread too few: " + std::to_string(spec.live_bytes) + " / " + std::to_string(p.threads) +
                                " threads (accepted: at least " + std::to_string(least_live) +
                                " per thread, 64 KiB and the largest block)");
  const std::uint64_t n = plan.ops;
  const double l = double(plan.target_bytes), fastest = kMaxGrowthPerOp * mean;  // bytes per op
  plan.sample_every = std::max<std::uint64_t>(1, (n + kSeriesRowsPerThread - 1) / kSeriesRowsPerThread);
  plan.block_capacity = ceil_div(1.25 * (l + double(max_block)), mean) + 4096;
  plan.low_bytes = plan.target_bytes;

  switch (shape) {
    case PhaseShape::ramp: {
      if (double(n) * fastest < l) too_few_ops(shape, p, ceil_div(l, fastest), plan.target_bytes, mean);
      const std::uint64_t half = n / 2;
      const auto half_bytes = std::uint64_t(U128{plan.target_bytes} * half / n);
      plan.legs = {{half, half_bytes, PhaseStage::grow, CheckpointKind::half}, {n, plan.target_bytes, PhaseStage::grow, CheckpointKind::none}};
      break;
    }
    case PhaseShape::plateau: {  // the rise takes the first 10% of the ops, or longer when it must
      const std::uint64_t rise = std::max((n + 9) / 10, ceil_div(l, fastest));
      if (rise > n / 2) too_few_ops(shape, p, 2 * ceil_div(l, fastest), plan.target_bytes, mean);
      plan.legs = {{rise, plan.target_bytes, PhaseStage::grow, CheckpointKind::rise_end}, {n, plan.target_bytes, PhaseStage::hold, CheckpointKind::none}};
      break;
    }
    case PhaseShape::peak: {
      plan.drop_order = spec.drop_order;
      plan.low_bytes = std::uint64_t(std::floor(l * (1 - spec.drop_share)));
      const double dropped = l - double(plan.low_bytes), growth = l + double(spec.peaks) * dropped;
      const std::uint64_t drop_ops = ceil_div(dropped, mean), drops_ops = drop_ops * spec.peaks;
      const std::uint64_t least_growth_ops = ceil_div(growth, fastest);
      if (n < drops_ops + least_growth_ops) too_few_ops(shape, p, drops_ops + least_growth_ops, plan.target_bytes, mean);
      const GrowthClock clock(n - drops_ops, growth);
      double grown = l;
      for (unsigned k = 0; k < spec.peaks; ++k) {
        const std::uint64_t peak_at = clock.after(grown) + k * drop_ops;
        plan.legs.push_back({peak_at, plan.target_bytes, PhaseStage::grow, CheckpointKind::peak});
        plan.legs.push_back({peak_at + drop_ops, plan.low_bytes, PhaseStage::drop, CheckpointKind::drop});
        grown += dropped;
      }
      plan.legs.push_back({n, plan.target_bytes, PhaseStage::final_growth, CheckpointKind::none});
      break;
    }
  }
  return plan;
}

}  // namespace allocstress
