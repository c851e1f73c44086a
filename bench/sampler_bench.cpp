// Microbenchmarks of the alloc-test sampler: the cost of drawing a slot and a size, which is part
// of every iteration and so part of the noise the void baseline subtracts.  Reported in ns per
// draw (Google Benchmark's time per iteration; one iteration = one draw).
#include <benchmark/benchmark.h>

#include "workloads/inverse_size_sampler.hpp"
#include "workloads/pareto_slot_picker.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {
namespace {

void BM_Rng(benchmark::State& state) {
  WorkloadRng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(rng());
}

void BM_SlotPick(benchmark::State& state) {
  const ParetoSlotPicker picker(std::size_t(state.range(0)));
  WorkloadRng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(picker.pick(rng()));
}

void BM_SizeSample(benchmark::State& state) {
  const InverseSizeSampler sizes(unsigned(state.range(0)));
  WorkloadRng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(sizes.sample(rng()));
}

// What one allocating iteration of alloc-test draws: a slot, then a size.
void BM_SlotAndSize(benchmark::State& state) {
  const ParetoSlotPicker picker(std::size_t(state.range(0)));
  const InverseSizeSampler sizes(unsigned(state.range(1)));
  WorkloadRng rng(1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(picker.pick(rng()));
    benchmark::DoNotOptimize(sizes.sample(rng()));
  }
}

BENCHMARK(BM_Rng);
BENCHMARK(BM_SlotPick)->Arg(1 << 20)->Arg(1 << 25);
BENCHMARK(BM_SizeSample)->Arg(16)->Arg(20);
BENCHMARK(BM_SlotAndSize)->Args({1 << 20, 16})->Args({1 << 25, 16});

}  // namespace
}  // namespace allocstress

BENCHMARK_MAIN();
