// Test tool: writes a synthetic allocstress trace with a known shape, for the replay tests.
//
//   make_trace OUT.ast THREADS OPS_PER_THREAD CROSS_PERCENT [SEED [MAX_SIZE]]
//
// Each thread allocates blocks of 16..MAX_SIZE bytes (default 4096) (sizes and choices from a fixed-seed generator)
// and frees them again; CROSS_PERCENT of the frees are done by the next thread (round robin), so
// the replay has to wait for blocks produced by other threads.  A few callocs, reallocs and
// aligned allocations are mixed in.  Timestamps are a global counter, so the merged order is the
// generation order.  Prints "events allocations frees peak_live_bytes" on stdout.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "trace/trace_writer.hpp"

using namespace allocstress::trace;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: make_trace OUT.ast THREADS OPS_PER_THREAD CROSS_PERCENT [SEED [MAX_SIZE]]\n");
    return 2;
  }
  const unsigned threads = unsigned(std::atoi(argv[2]));
  const std::uint64_t per_thread = std::strtoull(argv[3], nullptr, 10);
  const unsigned cross = unsigned(std::atoi(argv[4]));
  std::mt19937_64 rng(argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1);
  const std::uint64_t max_size = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 4096;
  if (threads == 0 || max_size < 16) {
    std::fprintf(stderr, "make_trace: THREADS >= 1 and MAX_SIZE >= 16 required\n");
    return 2;
  }
  TraceOrigin origin;
  origin.pid = 4242;
  origin.command_line = {"make_trace", argv[2], argv[3], argv[4]};
  TraceWriter writer(argv[1], origin, true, 4096);
  struct Block {
    std::uint64_t address, size;
  };
  std::vector<std::deque<Block>> live(threads);  // per thread: blocks it may free
  std::uint64_t tsc = 1, next_address = 0x10000, allocations = 0, frees = 0, live_bytes = 0, peak = 0;
  auto event = [&](unsigned t, TraceOp op, std::uint64_t address, std::uint64_t size, std::uint64_t old_address = 0,
                   std::uint64_t alignment = 0) {
    TraceEvent e;
    e.op = op;
    e.tsc = tsc++;
    e.address = address;
    e.size = size;
    e.old_address = old_address;
    e.alignment = alignment;
    writer.add(t, 1000 + t, e);
  };
  for (std::uint64_t i = 0; i < per_thread; ++i)
    for (unsigned t = 0; t < threads; ++t) {
      const bool allocate = live[t].size() < 8 || rng() % 100 < 50;
      if (allocate) {
        const std::uint64_t size = 16 + rng() % (max_size - 15);
        const std::uint64_t address = next_address;
        next_address += (size + 4095) / 4096 * 4096 + 4096;
        const unsigned kind = unsigned(rng() % 100);
        if (kind < 5) event(t, TraceOp::calloc, address, size);
        else if (kind < 8) event(t, TraceOp::aligned_alloc, address, size, 0, 256);
        else event(t, TraceOp::malloc, address, size);
        ++allocations;
        live_bytes += size;
        const unsigned owner = rng() % 100 < cross ? (t + 1) % threads : t;
        live[owner].push_back({address, size});
      } else if (rng() % 100 < 5) {  // realloc the oldest block this thread may free
        Block b = live[t].front();
        live[t].pop_front();
        const std::uint64_t size = 16 + rng() % (max_size - 15);
        const std::uint64_t address = next_address;
        next_address += (size + 4095) / 4096 * 4096 + 4096;
        event(t, TraceOp::realloc, address, size, b.address);
        live_bytes += size - b.size;
        live[t].push_back({address, size});
      } else {
        const Block b = live[t].front();
        live[t].pop_front();
        event(t, TraceOp::free, b.address, 0);
        ++frees;
        live_bytes -= b.size;
      }
      peak = live_bytes > peak ? live_bytes : peak;
    }
  writer.finish();
  std::printf("%llu %llu %llu %llu\n", (unsigned long long)writer.events(), (unsigned long long)allocations,
              (unsigned long long)frees, (unsigned long long)peak);
  return 0;
}
