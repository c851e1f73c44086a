// A record's identity: which cell it measured, as a key and as its name.  The one place both are
// built; everything that groups, matches or names records (plan keys, results entries, tables,
// adaptive repetitions, the Python package through `_core`) goes through it.
//
// Contract.  Two records belong to the same cell when their RecordKey is equal: the same
// workload, allocator (catalogue name), threads, mode (to_string(CellMode): "timing", "thp", ...)
// and instance.  The instance tells cells of one mode apart where the mode takes a value: a thp
// cell's THP mode ("always"), "warmed" for the ageing control; "" otherwise.  Repetitions of a
// cell share its key (the repetition is not part of it; a plan's cell key adds "/rep:N").
// The name is "<workload>/<allocator>/threads:<n>" then the mode's suffix (mode_suffix: "" for
// timing, "/cache-sim", "/profile", "/counts", "/limited", "/aged", "/thp", "/soak") and ":<instance>"
// when there is one: "alloc-test/jemalloc/threads:4", "alloc-test/system/threads:1/thp:always",
// "alloc-test/void/threads:1/aged:warmed".  It is Google Benchmark's run name (aggregates add
// "_median", ...), and it is unique to a key.
#pragma once

#include <nlohmann/json.hpp>

#include <compare>
#include <string>

#include "cells/cell.hpp"

namespace allocstress {

// The subtracted baseline (its net cost is 0 by definition) and the reference every ratio is
// taken against ("relative to system").
inline constexpr const char* kBaselineAllocator = "void";
inline constexpr const char* kReferenceAllocator = "system";

struct RecordKey {
  std::string workload;
  std::string allocator;
  unsigned threads = 1;
  std::string mode = "timing";
  std::string instance;
  auto operator<=>(const RecordKey&) const = default;
};

// The key of the records `cell` produces.
RecordKey record_key(const Cell& cell);
// The key of a record or aggregate entry: its workload, allocator, threads and mode ("timing"
// when absent); the instance is read back from its run name ("run_name", else "name").
RecordKey record_key(const nlohmann::json& record);

// "<workload>/<allocator>/threads:<n>[<mode suffix>[:<instance>]]" (see the contract above).
std::string record_name(const RecordKey& key);
std::string record_name(const Cell& cell);

// What the instance adds to the mode's suffix in a name: ":<instance>", or "".
std::string instance_suffix(const std::string& instance);

}  // namespace allocstress
