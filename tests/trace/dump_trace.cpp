// Test tool: prints a trace file as text, read back with read_trace (trace/trace_reader.hpp).
//   dump_trace FILE            summary lines (starting with '#'), then one line per event:
//                              thread tid op size address old_address alignment call_site tsc
//                              (addresses in hex, the rest in decimal; threads in index order)
//   dump_trace --summary FILE  the summary lines only
// A file that cannot be read is one error line and exit 1; a truncated file is not an error
// (the "# truncated" line says where it was cut).
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>

#include "trace/trace_reader.hpp"

int main(int argc, char** argv) {
  using namespace allocstress::trace;
  const bool summary_only = argc == 3 && std::strcmp(argv[1], "--summary") == 0;
  if (argc != 2 && !summary_only) {
    std::fprintf(stderr, "usage: dump_trace [--summary] FILE\n");
    return 2;
  }
  try {
    const TraceContents t = read_trace(argv[argc - 1]);
    std::printf("# pid %u ppid %u flags %u threads %zu events %" PRIu64 " blocks %" PRIu64 " file_bytes %" PRIu64 "\n", t.header.pid,
                t.header.ppid, t.header.flags, t.threads.size(), t.events(), t.blocks, t.file_bytes);
    std::printf("# command");
    for (const auto& arg : t.command_line) std::printf(" %s", arg.c_str());
    std::printf("\n");
    if (!t.truncation.empty()) std::printf("# truncated at %" PRIu64 ": %s\n", t.truncated_at, t.truncation.c_str());
    if (summary_only) return 0;
    for (const ThreadEvents& th : t.threads)
      for (const TraceEvent& e : th.events)
        std::printf("%u %u %s %" PRIu64 " %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIx64 " %" PRIu64 "\n", th.index, th.tid, op_name(e.op), e.size,
                    e.address, e.old_address, e.alignment, e.call_site, e.tsc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dump_trace: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
