// A record's key and name, built once (the contract is in record_identity.hpp).
#include "cells/record_identity.hpp"

#include <stdexcept>
#include <string_view>

#include "allocators/void_allocator.hpp"
#include "workloads/heap_ageing.hpp"

namespace allocstress {

static_assert(VoidAllocator::name() == std::string_view(kBaselineAllocator), "the baseline is the void allocator");

namespace {

std::string base_name(const RecordKey& key) {
  return key.workload + "/" + key.allocator + "/threads:" + std::to_string(key.threads);
}

}  // namespace

std::string instance_suffix(const std::string& instance) { return instance.empty() ? "" : ":" + instance; }

RecordKey record_key(const Cell& cell) {
  std::string instance;
  if (cell.mode == CellMode::thp) instance = cell.thp_mode;
  if (cell.mode == CellMode::aged && parse_age_spec(cell.age).keep == 0) instance = "warmed";  // the control (heap_ageing.hpp)
  return {cell.workload, cell.allocator, cell.threads, std::string(to_string(cell.mode)), instance};
}

RecordKey record_key(const nlohmann::json& record) {
  RecordKey key{record.at("workload").get<std::string>(), record.at("allocator").get<std::string>(),
                record.at("threads").get<unsigned>(), record.value("mode", std::string("timing")), ""};
  const std::string run_name = record.value("run_name", record.value("name", std::string()));
  std::string prefix = base_name(key);
  try {
    prefix += std::string(mode_suffix(parse_cell_mode(key.mode))) + ":";
  } catch (const std::invalid_argument&) {
    return key;  // a mode this build does not know: no instance to read
  }
  if (run_name.size() > prefix.size() && run_name.compare(0, prefix.size(), prefix) == 0) key.instance = run_name.substr(prefix.size());
  return key;
}

std::string record_name(const RecordKey& key) {
  return base_name(key) + std::string(mode_suffix(parse_cell_mode(key.mode))) + instance_suffix(key.instance);
}

std::string record_name(const Cell& cell) { return record_name(record_key(cell)); }

}  // namespace allocstress
