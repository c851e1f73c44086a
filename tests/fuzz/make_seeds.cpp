// Writes the fuzzer's seed corpus into the folder given as argv[1]: small valid traces (one and
// two threads, several blocks, with and without call sites, every op kind, an imported one) and
// one cut inside a block, so that mutations start from files the reader accepts.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  write_trace(dir / "one-thread.ast", 0, 1, 40, 64);
  write_trace(dir / "two-threads-blocks.ast", 0, 2, 30, 8);
  write_trace(dir / "call-sites.ast", kFlagCallSites, 2, 20, 7);
  write_trace(dir / "imported.ast", kFlagImported, 1, 12, 5);
  // A copy of the two-thread trace cut in the middle of its last block.
  std::ifstream in(dir / "two-threads-blocks.ast", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir / "cut.ast", std::ios::binary) << bytes.substr(0, bytes.size() - 9);
  return 0;
}
