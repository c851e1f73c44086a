// The `context` block of a results file: the machine, its settings that move figures (THP,
// governor, counters), the build and the git commit, plus warnings a reader must see.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "platform/topology.hpp"

namespace allocstress {

// `command_line` is recorded verbatim.  Warnings (debug build, counters missing, busy machine,
// governor not 'performance', ...) are listed in context["warnings"].
nlohmann::json machine_context(const Topology& topology, const std::string& command_line);

// Environment variables that tune allocators or the loader (MALLOC_*, GLIBC_TUNABLES, MIMALLOC_*,
// TCMALLOC_*, ...): cells inherit them, so they belong with the results.
nlohmann::json allocator_environment();

// The current time as ISO 8601 UTC, e.g. 2026-11-22T07:42:52Z.
std::string iso_utc_now();

// Output of a shell command's first line, trimmed; "" on failure.  For read-only probes only.
std::string first_line_of_command(const std::string& command);

}  // namespace allocstress
