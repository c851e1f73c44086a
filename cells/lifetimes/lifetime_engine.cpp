// The lifetime engine's measured phase (see lifetime_engine.hpp).
#include "cells/lifetimes/lifetime_engine.hpp"

#include <algorithm>
#include <optional>

#include "allocators/in_tree_registry.hpp"

namespace allocstress {

namespace {

// One worker thread of the lifetime engine (contract: measured_phase.hpp).
template <Allocator A>
class LifetimeEngineWorker {
 public:
  LifetimeEngineWorker(std::size_t index, const LifetimeModel& model, MemoryAccess access) : index_(unsigned(index)), model_(model), access_(access) {}

  std::string setup() {
    workspace_.emplace(model_, index_);  // the dry run sizes and touches the workspace, before the measured phase
    workspace_->soaking = measured_phase_soak().has_value();
    alloc_.emplace(model_.max_size());
    return "";
  }
  void run() { outcome = run_lifetime_thread(*alloc_, *workspace_, access_); }
  // A soak round (measured_phase.hpp; only `lifetime` soaks, the workload registry says): a tenth
  // of the stream more, the clock running on past N.  The window figures stay the run's.
  bool soak_round() {
    return continue_lifetime_thread(*alloc_, *workspace_, access_, outcome,
                                    std::max<std::uint64_t>(model_.params().allocations_per_thread / 10, 1));
  }
  void inspect() {}
  void release() { release_lifetime_blocks(*alloc_, *workspace_); }

  LifetimeThreadOutcome outcome;

 private:
  unsigned index_;
  const LifetimeModel& model_;
  MemoryAccess access_;
  std::optional<LifetimeWorkspace> workspace_;
  std::optional<A> alloc_;
};

}  // namespace

LifetimeEngineRun run_lifetime_engine(const LifetimeModel& model, MemoryAccess access, const AllocatorSpec& allocator,
                                      const Topology& topology, const std::vector<unsigned>& pus) {
  LifetimeEngineRun run;
  run.outcomes.resize(pus.size());
  run.phase = visit_allocator_type(allocator.name, [&]<class A>() {
    return run_measured_phase<LifetimeEngineWorker<A>>(
        topology, pus, PhaseHooks{}, [&](std::size_t i, LifetimeEngineWorker<A>& w) { run.outcomes[i] = w.outcome; }, model, access);
  });
  return run;
}

}  // namespace allocstress
