// See cost_measurements.hpp for what each cost is and how it is measured.
#include "platform/cost_measurements.hpp"

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "platform/cache_geometry.hpp"
#include "platform/statistics.hpp"
#include "platform/tsc.hpp"

namespace allocstress {

namespace {

const std::size_t kPage = std::size_t(::sysconf(_SC_PAGESIZE));
const std::string kUnit = std::string(kCycleCounterName) + " ticks";

// A failed system call inside a measurement: the cost is n/a with this reason.
struct Unmeasurable {
  std::string why;
};

// One timed batch: the ticks per operation of `ops` operations.
using Batch = std::function<double()>;

// `repeats` batches after one warm-up: the median per operation and its interval.
nlohmann::json summarised(const Batch& batch, unsigned repeats, const std::string& method) {
  try {
    batch();  // warm-up: code, page tables and caches as in a steady state
    std::vector<double> values;
    for (unsigned i = 0; i < repeats; ++i) values.push_back(batch());
    const Summary s = summarise(values);
    const MedianInterval ci = median_interval(values);
    return {{"median", s.median}, {"low", ci.low},       {"high", ci.high},  {"level", ci.level},
            {"repeats", repeats}, {"unit", kUnit},      {"method", method}};
  } catch (const Unmeasurable& e) {
    return {{"n/a", e.why}};
  }
}

void* map_pages(std::size_t pages) {
  void* p = ::mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw Unmeasurable{std::string("mmap failed: ") + std::strerror(errno)};
  ::madvise(p, pages * kPage, MADV_NOHUGEPAGE);  // one fault per 4 KiB page, as the counted faults are
  return p;
}

void touch(void* p, std::size_t pages) {
  for (std::size_t i = 0; i < pages; ++i) static_cast<volatile char*>(p)[i * kPage] = 1;
}

// ---- cycles per instruction -----------------------------------------------------------------

#if defined(__x86_64__)
inline constexpr unsigned kLoopInstructions = 15;

// `iterations` times the 15-instruction body below (exactly: the count is the assembly's), on a
// free list whose head block is popped and pushed back through memory, as an allocator's fast
// path does, with a size-class table lookup and a statistics counter.
void fast_path_loop(std::uint64_t iterations) {
  alignas(64) static std::uint64_t blocks[16];
  alignas(64) static std::uint8_t classes[1024];
  alignas(64) static std::uint64_t stats[256];
  for (unsigned i = 0; i < 16; ++i) blocks[i] = reinterpret_cast<std::uint64_t>(&blocks[(i + 2) % 16]);
  for (unsigned i = 0; i < 1024; ++i) classes[i] = std::uint8_t(i % 64);
  std::uint64_t head = reinterpret_cast<std::uint64_t>(&blocks[0]);
  std::uint64_t size = 0, n = iterations;
  asm volatile(
      "1:\n\t"
      "mov (%[head]), %%rax\n\t"          // block = *head_slot
      "mov (%%rax), %%rdx\n\t"            // next = block->next
      "mov %%rdx, (%[head])\n\t"          // pop
      "mov %[size], %%rcx\n\t"
      "shr $4, %%rcx\n\t"                 // size class index
      "movzbl (%[classes],%%rcx), %%ecx\n\t"
      "addq $1, (%[stats],%%rcx,8)\n\t"   // statistics
      "mov %%rcx, 8(%%rax)\n\t"           // header write into the block
      "mov (%[head]), %%rdx\n\t"
      "mov %%rdx, (%%rax)\n\t"            // block->next = head
      "mov %%rax, (%[head])\n\t"          // push back
      "add $16, %[size]\n\t"
      "and $0x3ff, %[size]\n\t"
      "sub $1, %[n]\n\t"
      "jne 1b\n\t"
      : [size] "+r"(size), [n] "+r"(n)
      : [head] "r"(&head), [classes] "r"(classes), [stats] "r"(stats)
      : "rax", "rcx", "rdx", "cc", "memory");
}

nlohmann::json cycles_per_instruction(unsigned repeats) {
  constexpr std::uint64_t iterations = 200'000;
  return summarised(
      [] {
        const std::uint64_t t0 = cycle_counter_begin();
        fast_path_loop(iterations);
        return double(cycle_counter_end() - t0) / double(iterations * kLoopInstructions);
      },
      repeats,
      "ticks per instruction of an x86-64 loop of exactly 15 instructions per iteration, shaped like an allocator's fast path "
      "(free-list pop and push through memory, a size-class table lookup, a statistics counter), 200,000 iterations per batch");
}
#else
nlohmann::json cycles_per_instruction(unsigned) {
  return {{"n/a", "the loop of known instruction count is x86-64 assembly; on this architecture the model charges 1 tick per instruction"}};
}
#endif

// ---- memory latencies ------------------------------------------------------------------------

// Ticks per load of a dependent chase through `bytes` of memory, one pointer per cache line, the
// lines in a random cycle (fixed seed), so that prefetchers cannot guess the next line.
nlohmann::json chase_latency(std::size_t bytes, std::size_t line, unsigned repeats, const std::string& what) {
  const std::size_t lines = std::max<std::size_t>(bytes / line, 2);
  const std::size_t pages = (lines * line + kPage - 1) / kPage;
  char* base = nullptr;
  try {
    base = static_cast<char*>(map_pages(pages));
  } catch (const Unmeasurable& e) {
    return {{"n/a", e.why}};
  }
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(42));
  for (std::size_t i = 0; i < lines; ++i) *reinterpret_cast<void**>(base + order[i] * line) = base + order[(i + 1) % lines] * line;
  const std::size_t steps = std::max<std::size_t>(lines, 200'000);
  void* volatile sink = nullptr;
  nlohmann::json out = summarised(
      [&] {
        void* p = base;
        const std::uint64_t t0 = cycle_counter_begin();
        for (std::size_t i = 0; i < steps; ++i) p = *static_cast<void**>(p);
        const std::uint64_t t1 = cycle_counter_end();
        sink = p;
        return double(t1 - t0) / double(steps);
      },
      repeats,
      "ticks per load of a dependent pointer chase over a random cycle of " + std::to_string(lines) + " cache lines (" +
          std::to_string(lines * line / 1024) + " KiB, " + what + "), " + std::to_string(steps) + " loads per batch");
  (void)sink;
  ::munmap(base, pages * kPage);
  if (!out.contains("n/a")) out["working_set_bytes"] = lines * line;
  return out;
}

// ---- the kernel's work -------------------------------------------------------------------------

inline constexpr unsigned kCallsPerBatch = 256;

nlohmann::json minor_fault(unsigned repeats) {
  constexpr std::size_t pages = 4096;  // 16 MiB
  return summarised(
      [] {
        void* p = map_pages(pages);
        const std::uint64_t t0 = cycle_counter_begin();
        touch(p, pages);
        const std::uint64_t t1 = cycle_counter_end();
        ::munmap(p, pages * kPage);
        return double(t1 - t0) / double(pages);
      },
      repeats, "ticks per first write to a page of a fresh private anonymous mapping (4,096 pages per batch, hugepages refused): the fault and the zeroing");
}

// mmap and munmap of kCostPages untouched pages, timed apart: {mmap, munmap}.
std::pair<nlohmann::json, nlohmann::json> mmap_munmap(unsigned repeats) {
  std::vector<void*> maps(kCallsPerBatch);
  std::vector<double> unmap_costs;
  auto one_batch = [&](bool keep) {
    const std::uint64_t t0 = cycle_counter_begin();
    for (void*& p : maps) {
      p = ::mmap(nullptr, kCostPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw Unmeasurable{std::string("mmap failed: ") + std::strerror(errno)};
    }
    const std::uint64_t t1 = cycle_counter_begin();
    for (void* p : maps) ::munmap(p, kCostPages * kPage);
    const std::uint64_t t2 = cycle_counter_end();
    if (keep) unmap_costs.push_back(double(t2 - t1) / kCallsPerBatch);
    return double(t1 - t0) / kCallsPerBatch;
  };
  bool warm = false;
  nlohmann::json map_cost = summarised([&] { const double c = one_batch(warm); warm = true; return c; }, repeats,
                                       "ticks per mmap of " + std::to_string(kCostPages) + " untouched private anonymous pages (256 calls per batch)");
  if (map_cost.contains("n/a")) return {map_cost, map_cost};
  const Summary s = summarise(unmap_costs);
  const MedianInterval ci = median_interval(unmap_costs);
  nlohmann::json unmap_cost = {{"median", s.median}, {"low", ci.low}, {"high", ci.high}, {"level", ci.level}, {"repeats", repeats}, {"unit", kUnit},
                               {"method", "ticks per munmap of " + std::to_string(kCostPages) + " untouched pages, the same mappings (256 calls per batch)"}};
  return {map_cost, unmap_cost};
}

nlohmann::json madvise_dontneed(unsigned repeats) {
  const std::size_t pages = kCostPages * kCallsPerBatch;
  return summarised(
      [&] {
        char* p = static_cast<char*>(map_pages(pages));
        touch(p, pages);
        const std::uint64_t t0 = cycle_counter_begin();
        for (unsigned i = 0; i < kCallsPerBatch; ++i) ::madvise(p + std::size_t(i) * kCostPages * kPage, kCostPages * kPage, MADV_DONTNEED);
        const std::uint64_t t1 = cycle_counter_end();
        ::munmap(p, pages * kPage);
        return double(t1 - t0) / kCallsPerBatch;
      },
      repeats, "ticks per madvise(MADV_DONTNEED) of " + std::to_string(kCostPages) + " pages just written, their freeing included (256 calls per batch)");
}

nlohmann::json brk_growth(unsigned repeats) {
  const std::intptr_t step = std::intptr_t(kCostPages * kPage);
  return summarised(
      [&] {
        // No allocation happens between a growth and the shrink that undoes it: malloc's view of
        // the break is the same after the batch as before.
        const std::uint64_t t0 = cycle_counter_begin();
        for (unsigned i = 0; i < kCallsPerBatch / 2; ++i) {
          if (::sbrk(step) == reinterpret_cast<void*>(-1)) throw Unmeasurable{std::string("sbrk failed: ") + std::strerror(errno)};
          ::sbrk(-step);
        }
        return double(cycle_counter_end() - t0) / kCallsPerBatch;
      },
      repeats, "ticks per brk call: sbrk growth by " + std::to_string(kCostPages) + " untouched pages and the shrink that undoes it (256 calls per batch)");
}

nlohmann::json mprotect_cost(unsigned repeats) {
  return summarised(
      [&] {
        void* p = map_pages(kCostPages);
        const std::uint64_t t0 = cycle_counter_begin();
        for (unsigned i = 0; i < kCallsPerBatch; ++i) ::mprotect(p, kCostPages * kPage, i % 2 ? PROT_READ | PROT_WRITE : PROT_READ);
        const std::uint64_t t1 = cycle_counter_end();
        ::munmap(p, kCostPages * kPage);
        return double(t1 - t0) / kCallsPerBatch;
      },
      repeats, "ticks per mprotect of " + std::to_string(kCostPages) + " untouched pages, alternating read-only and read-write (256 calls per batch)");
}

nlohmann::json mremap_cost(unsigned repeats) {
  return summarised(
      [&] {
        void* p = map_pages(kCostPages);
        const std::uint64_t t0 = cycle_counter_begin();
        for (unsigned i = 0; i < kCallsPerBatch; ++i) {
          const std::size_t from = (i % 2 ? 2 : 1) * kCostPages * kPage, to = (i % 2 ? 1 : 2) * kCostPages * kPage;
          void* q = ::mremap(p, from, to, MREMAP_MAYMOVE);
          if (q == MAP_FAILED) throw Unmeasurable{std::string("mremap failed: ") + std::strerror(errno)};
          p = q;
        }
        const std::uint64_t t1 = cycle_counter_end();
        ::munmap(p, kCostPages * kPage);
        return double(t1 - t0) / kCallsPerBatch;
      },
      repeats, "ticks per mremap of an untouched mapping between " + std::to_string(kCostPages) + " and " + std::to_string(2 * kCostPages) +
                   " pages, moving allowed (256 calls per batch)");
}

nlohmann::json syscall_cost(unsigned repeats) {
  static int word = 0;
  return summarised(
      [&] {
        const std::uint64_t t0 = cycle_counter_begin();
        for (unsigned i = 0; i < kCallsPerBatch; ++i) ::syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
        return double(cycle_counter_end() - t0) / kCallsPerBatch;
      },
      repeats, "ticks per futex(FUTEX_WAKE) with no waiter: entering the kernel and leaving (256 calls per batch)");
}

}  // namespace

nlohmann::json measure_machine_costs(unsigned repeats) {
  const CacheGeometry& l1 = l1_data_cache();
  const CacheGeometry& ll = last_level_cache();
  nlohmann::json costs;
  costs["cycles_per_instruction"] = cycles_per_instruction(repeats);
  costs["l1_latency"] = chase_latency(l1.size / 2, l1.line, repeats, "half the L1d, " + l1.source);
  costs["last_level_latency"] = chase_latency(ll.size / 2, ll.line, repeats, "half the last-level cache, " + ll.source);
  costs["ram_latency"] = chase_latency(std::max<std::size_t>(8 * ll.size, std::size_t{64} << 20), ll.line, repeats,
                                       "8 x the last-level cache, at least 64 MiB");
  costs["minor_fault"] = minor_fault(repeats);
  std::tie(costs["mmap"], costs["munmap"]) = mmap_munmap(repeats);
  costs["madvise"] = madvise_dontneed(repeats);
  costs["brk"] = brk_growth(repeats);
  costs["mprotect"] = mprotect_cost(repeats);
  costs["mremap"] = mremap_cost(repeats);
  costs["syscall"] = syscall_cost(repeats);
  return costs;
}

}  // namespace allocstress
