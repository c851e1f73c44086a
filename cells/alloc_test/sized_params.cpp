// Parameters of the workloads that draw sizes (see sized_params.hpp).
#include "cells/alloc_test/sized_params.hpp"

#include <filesystem>
#include <sstream>

#include "allocators/bump_allocator.hpp"
#include "cells/params_json.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/size_model.hpp"

namespace allocstress {

nlohmann::json sized_defaults(const AllocTestParams& p, bool slots) {
  nlohmann::json j = {{"size_model", to_string(p.sizes)},
                      {"max_size_exp", p.max_size_exp},
                      {"iterations_per_thread", p.iterations_per_thread},
                      {"memory_access", to_string(p.access)},
                      {"seed", p.seed}};
  if (slots) j["slots_total"] = p.slots_total;
  return j;
}

AllocTestParams sized_params(const nlohmann::json& params, unsigned threads) {
  AllocTestParams p;
  if (params.contains("slots_total")) p.slots_total = count_field(params, "slots_total");
  p.sizes = parse_size_model(word_field(params, "size_model"));
  const bool has_fit = params.contains("size_fit") && !params.at("size_fit").is_null();
  if (p.sizes == SizeModel::fit && !has_fit)
    throw std::invalid_argument("--sizes fit needs --size-fit FIT.json (a fit file written by allocstress fit)");
  if (p.sizes != SizeModel::fit && has_fit)
    throw std::invalid_argument("--size-fit applies with --sizes fit only, not with --sizes " + std::string(to_string(p.sizes)));
  if (has_fit) p.size_table = load_fit_config(word_field(params, "size_fit")).params.sizes;
  p.max_size_exp = small_count_field(params, "max_size_exp");
  p.iterations_per_thread = count_field(params, "iterations_per_thread");
  p.access = parse_memory_access(word_field(params, "memory_access"));
  p.seed = count_field(params, "seed");
  p.threads = threads;
  return p;
}

void check_sized(const nlohmann::json& params, unsigned threads) { validate(sized_params(params, threads)); }

nlohmann::json sized_record_params(const nlohmann::json& params, unsigned threads) {
  nlohmann::json j = params;
  if (params.contains("slots_total")) j["slots_per_thread"] = sized_params(params, threads).slots_per_thread();
  return j;
}

std::string describe_sized(const nlohmann::json& p, const char* per_thread) {
  std::ostringstream s;
  if (p.contains("slots_total")) s << p.at("slots_total") << " slots, ";
  const std::string model = p.at("size_model").get<std::string>();
  s << (model == "fleet" ? std::string("fleet size mix")
        : model == "fit" ? "sizes of " + std::filesystem::path(p.at("size_fit").get<std::string>()).filename().string()
                         : "sizes p~1/size, E=" + p.at("max_size_exp").dump())
    << ", "
    << p.at("iterations_per_thread") << " " << per_thread << "/thread, access " << p.at("memory_access").get<std::string>() << ", seed "
    << p.at("seed");
  return s.str();
}

std::string bump_budget_refusal(std::string_view workload, const AllocatorSpec& allocator, const nlohmann::json& params,
                                unsigned threads, double malloc_share) {
  if (allocator.name != BumpAllocator::name()) return "";
  const AllocTestParams p = sized_params(params, threads);
  const double mean = with_size_sampler(p.sizes, p.max_size_exp, p.size_table, [](const auto& s) { return s.mean_size(); }) +
                      double(BumpAllocator::kAlignment);
  const double need = double(threads) * double(p.iterations_per_thread) * malloc_share * mean;
  const double budget = double(ChunkSource::process_budget());
  if (need <= budget) return "";
  return "bump never reuses memory: this " + std::string(workload) + " needs about " + std::to_string(int(need / double(1 << 30))) +
         " GiB, over its budget of " + std::to_string(int(budget / double(1 << 30))) +
         " GiB (half of physical memory); ask for fewer --iterations";
}

const std::vector<const WorkloadOption*>& sized_options(bool slots) {
  static const std::vector<const WorkloadOption*> with = {&kSlotsOption, &kSizesOption, &kSizeFitOption, &kMaxSizeExpOption, &kIterationsOption,
                                                          &kAccessOption, &kSeedOption};
  static const std::vector<const WorkloadOption*> without = {&kSizesOption, &kSizeFitOption, &kMaxSizeExpOption, &kIterationsOption, &kAccessOption,
                                                             &kSeedOption};
  return slots ? with : without;
}

}  // namespace allocstress
