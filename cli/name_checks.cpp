// Allocator and workload names checked with suggestions (see name_checks.hpp).
#include "cli/name_checks.hpp"

#include <algorithm>

#include "cells/workload_registry.hpp"
#include "platform/suggest.hpp"
#include "platform/comma_list.hpp"
#include "platform/errors.hpp"

namespace allocstress {

void check_allocator_names(const AllocatorCatalog& catalog, const std::string& names) {
  for (const std::string& name : comma_separated(names))
    if (name.find('=') == std::string::npos && name != kAllAllocators) catalog.find_or_suggest(name, AllocatorCatalog::NameIn::kList);
}

void check_workload_names(const std::string& names) {
  std::vector<std::string> known;
  known = workload_names();
  for (const std::string& name : comma_separated(names))
    if (find_workload(name) == nullptr) {
      if (find_workload(workload_base_name(name)) == nullptr) throw UsageError(unknown_name_message("workload", name, known, "; each optionally as WORKLOAD:LABEL"));
      try {
        workload_entry(name);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());  // a known workload with a bad label
      }
    }
}

}  // namespace allocstress
