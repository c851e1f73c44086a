// Allocator and workload names checked with suggestions (see name_checks.hpp).
#include "cli/name_checks.hpp"

#include <algorithm>

#include "cells/workload_registry.hpp"
#include "cli/suggest.hpp"
#include "platform/comma_list.hpp"
#include "platform/errors.hpp"

namespace allocstress {

void check_allocator_names(const AllocatorCatalog& catalog, const std::string& names) {
  std::vector<std::string> known;
  for (const AllocatorSpec& s : catalog.all()) known.push_back(s.name);
  for (const std::string& name : comma_separated(names))
    if (name.find('=') == std::string::npos && name != kAllAllocators && std::find(known.begin(), known.end(), name) == known.end())
      throw UsageError(unknown_name_message("allocator", name, known, std::string("; or ") + kAllAllocators + "; or NAME=/path/lib.so[,VAR=VALUE...]"));
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
