// Writes seed files of the fuzz targets that are made from real files by the real code (run by
// run_fuzz.sh; built with the targets, not fuzzed):
//   make_seeds traces DIR          the trace reader's: small valid traces (one and two threads,
//                                  several blocks, with and without call sites, every op kind, an
//                                  imported one) and one cut inside a block
//   make_seeds replay DIR OPS      the replay program's: the programs and heap-map frames the replay
//                                  workload's `prepare` (what `run`/`matrix` call) builds from the
//                                  Steve trace OPS (imported as `allocstress import` does) and from
//                                  the two-thread trace above
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cells/workload_registry.hpp"
#include "trace/import_steve.hpp"
#include "trace/trace_writer.hpp"

namespace {

using namespace allocstress::trace;

void write_trace(const std::filesystem::path& path, std::uint32_t flags, unsigned threads, unsigned events_per_thread,
                 std::uint32_t block_events) {
  TraceOrigin origin;
  origin.pid = 1234;
  origin.ppid = 1;
  origin.flags = flags;
  origin.command_line = {"/usr/bin/example", "seed"};
  origin.start_tsc = 1000;
  origin.start_monotonic_ns = 1;
  TraceWriter w(path, origin, true, block_events);
  for (unsigned i = 0; i < events_per_thread; ++i)
    for (unsigned t = 0; t < threads; ++t) {
      TraceEvent e;
      e.op = TraceOp((i * 7 + t) % unsigned(TraceOp::count));  // every op kind in turn
      e.tsc = 1000 + 10 * i + t;
      e.address = 0x7f0000000000 + 0x100 * (i % 5) + 0x1000000 * t;
      e.old_address = op_class(e.op) == OpClass::realloc ? e.address - 0x100 : 0;
      e.size = (i * 37) % 5000;
      e.alignment = op_has_alignment(e.op) ? 64 : 0;
      e.call_site = 0x400000 + 8 * (i % 3);
      w.add(t, 100 + t, e);
    }
  w.finish();
}

void write_traces(const std::filesystem::path& dir) {
  write_trace(dir / "one-thread.ast", 0, 1, 40, 64);
  write_trace(dir / "two-threads-blocks.ast", 0, 2, 30, 8);
  write_trace(dir / "call-sites.ast", kFlagCallSites, 2, 20, 7);
  write_trace(dir / "imported.ast", kFlagImported, 1, 12, 5);
  // A copy of the two-thread trace cut in the middle of its last block.
  std::ifstream in(dir / "two-threads-blocks.ast", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir / "cut.ast", std::ios::binary) << bytes.substr(0, bytes.size() - 9);
}

// The replay workload's inputs for `trace`, renamed NAME.program and NAME.heap-map into `dir`.
void write_replay_inputs(const std::filesystem::path& trace, const std::filesystem::path& dir, const std::string& name, unsigned frames) {
  const std::filesystem::path folder = dir / ("prepare-" + name);
  std::filesystem::create_directories(folder);
  const nlohmann::json params = {{"trace", trace.string()}, {"allocstats_every", 4}, {"heap_map_frames", frames}, {"memory_access", "touch"}, {"seed", 1}};
  const nlohmann::json inputs = allocstress::workload_entry("replay").prepare(params, folder);
  std::filesystem::rename(inputs.at("program").get<std::string>(), dir / (name + ".program"));
  std::filesystem::rename(inputs.at("heap_map").get<std::string>(), dir / (name + ".heap-map"));
  std::filesystem::remove_all(folder);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 2 ? argv[1] : "";
  if (!((mode == "traces" && argc == 3) || (mode == "replay" && argc == 4))) return 2;
  const std::filesystem::path dir = argv[2];
  std::filesystem::create_directories(dir);
  if (mode == "traces") {
    write_traces(dir);
    return 0;
  }
  const std::filesystem::path scratch = dir / "traces";
  std::filesystem::create_directories(scratch);
  import_steve(argv[3], scratch / "steve.ast", true);
  write_replay_inputs(scratch / "steve.ast", dir, "steve-small", 4);
  write_trace(scratch / "two-threads.ast", kFlagCallSites, 2, 30, 8);
  write_replay_inputs(scratch / "two-threads.ast", dir, "two-threads", 16);
  std::filesystem::remove_all(scratch);
  return 0;
}
