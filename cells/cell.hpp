// One cell of a matrix: which allocator runs which workload, with which parameters, on how many
// threads placed how, in which mode.  A cell crosses every process boundary as one JSON object
// (plan/cell_encoding.hpp: what `allocstress run --cell FILE` reads and a plan file lists); the
// workload's own parameters stay JSON here, in the form its registry entry defines
// (workload_registry.hpp), so that this type never changes when a workload is added.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "allocators/allocator_catalog.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// timing: the measured run every table is built from; simulate: the same cell under callgrind's
// cache simulator (`--cache-sim`); profile: the separate, labelled profile run (`--profile`);
// counts: the same cell at one thread under callgrind, counting the instructions and simulated
// cache misses of its measured phase (`--counts`: the deterministic tier).
// limited: a timing run inside a memory cgroup with a limit (run/memory_limit_cell.hpp): its outcome
// under the limit is the result, kept apart from the unlimited timing runs.
// aged: a timing run on an aged heap (Cell::age, workloads/heap_ageing.hpp), repeated like the
// timing runs and compared with them (the ageing penalty), kept apart from them.
// thp: a timing run under another transparent-huge-page mode than the matrix's (Cell::thp_mode;
// `--thp A,B`: the timing cells run under A, a thp cell per repetition under B), kept apart from
// the timing runs and compared with them.
// soak: a timing run whose measured phase lasts a set time (Cell::soak, cells/modes/soak.hpp): RSS and
// hugepage coverage per bin of time and their drift per hour, once per allocator.
enum class CellMode { timing, simulate, profile, counts, limited, aged, thp, soak };
std::string_view to_string(CellMode mode);  // "timing", "simulate", "profile", "counts", "limited", "aged", "thp", "soak"
// Throws std::invalid_argument naming the accepted modes.
CellMode parse_cell_mode(std::string_view text);
// What a cell's name and key add for its mode: "" (timing), "/cache-sim", "/profile", "/counts", "/limited", "/aged", "/thp", "/soak".
std::string_view mode_suffix(CellMode mode);

// A profile run of an alloc-test cell (run/profile_run.hpp): the outer process fingerprints the
// allocator, then runs the cell twice, as pass "sample" (latency histograms, counters, memory
// breakdown) and pass "syscalls" (under strace).  The passes get the size-class bounds.
struct ProfileSpec {
  std::uint64_t sample_every = 64;     // 1 in N operations is timed
  std::string pass;                    // "" (outer), "sample" or "syscalls"
  std::uint64_t small_limit = 1024;    // sizes below are "small" (from the fingerprint)
  std::uint64_t large_from = 0;        // sizes from here are "large"; 0 = none
};

struct Cell;
// What a cell's name adds for its mode: mode_suffix, with the mode's value where it has one
// ("/thp:always").
std::string name_suffix(const Cell& cell);

struct Cell {
  std::string allocator;          // a catalogue name
  std::string allocator_library;  // non-empty: an allocator added as NAME=PATH[,VAR=VALUE...], the text after NAME=
  std::string manifest;           // the drop-in catalogue the allocator is looked up in ("" = default)
  // The allocator as the matrix resolved it, once per matrix (kind, library path, settings,
  // version, conformance): a matrix's cell process runs it without loading the catalogue again.
  // Empty for a cell built from `run`'s flags or written by hand: its name is looked up in the
  // manifest then (plan/cell_check.hpp).
  std::optional<AllocatorSpec> resolved;
  std::string workload = "alloc-test";
  unsigned threads = 1;           // worker threads: the one place a cell keeps its thread count
                                  // (0 before a workload whose inputs fix it has prepared them)
  PlacementPolicy placement;
  nlohmann::json params = nlohmann::json::object();  // the workload's parameters, seed included
  nlohmann::json inputs = nlohmann::json::object();  // files prepared from params before the cell
                                                     // runs (the replay program); not parameters
  CellMode mode = CellMode::timing;
  ProfileSpec profile;            // mode profile only
  std::string age;                // mode aged only: the ageing SPEC (workloads/heap_ageing.hpp parses it)
  std::string thp_mode;           // mode thp only: never, madvise or always (platform/memory/thp_mode.hpp)
  std::string soak;               // mode soak only: the soak SPEC (cells/modes/soak.hpp parses it)

  PlacementRequest placement_request() const { return {threads, placement}; }
};

}  // namespace allocstress
