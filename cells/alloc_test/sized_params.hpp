// The parameters of the workloads that draw block sizes from a size model -- alloc-test, xthread,
// larson (with alloc-test's slot arrays), lifetime and phase-* (without): the size model, E,
// iterations per thread, memory access and seed, as JSON fields
//   {"slots_total", "size_model", "max_size_exp", "iterations_per_thread", "memory_access", "seed"}
// plus "size_fit" (the fit file of --sizes fit; absent otherwise, so older records read the same)
// and as the model's AllocTestParams.  Their records' `params` add slots_per_thread.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/workload_options.hpp"
#include "workloads/alloc_test.hpp"

namespace allocstress {

// The phase workloads build a live heap (64 MiB by default): about 2.2e6 allocations of the
// inverse model's mean block.  Their default iterations are at least this, whatever the preset's
// alloc-test iterations (quick: 1e6).
inline constexpr std::uint64_t kLiveHeapLeastIterations = 10'000'000;

// The preset's sizes as JSON (slots_total only when `slots`).
nlohmann::json sized_defaults(const AllocTestParams& preset, bool slots);
// The typed form for `threads` workers (slots_total stays the default where there is none).
// Throws std::invalid_argument on a missing or mistyped field or an unknown spelling; does not
// validate ranges (validate(AllocTestParams) does).
AllocTestParams sized_params(const nlohmann::json& params, unsigned threads);
// Decodes and validates (workloads/alloc_test.hpp's ranges).
void check_sized(const nlohmann::json& params, unsigned threads);
// The record's params block: the fields plus slots_per_thread where there are slots.
nlohmann::json sized_record_params(const nlohmann::json& params, unsigned threads);
// "65536 slots, sizes p~1/size, E=16, 10000000 iterations/thread, access write_read, seed 1";
// `per_thread` names what the iterations count ("iterations", "allocations").
std::string describe_sized(const nlohmann::json& params, const char* per_thread = "iterations");

// bump never reuses memory: why it cannot run `workload` at up to `threads` workers within its
// budget (half the physical memory), or "".  `malloc_share` is the share of operations that
// allocate (alloc-test 0.5, lifetime 1).
std::string bump_budget_refusal(std::string_view workload, const AllocatorSpec& allocator, const nlohmann::json& params,
                                unsigned threads, double malloc_share);

// The options of the sized workloads: with slots (alloc-test, xthread, larson) or without.
const std::vector<const WorkloadOption*>& sized_options(bool slots);

}  // namespace allocstress
