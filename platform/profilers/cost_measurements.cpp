// See cost_measurements.hpp for what each cost is and how it is measured.
#include "platform/profilers/cost_measurements.hpp"

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "platform/profilers/cache_geometry.hpp"
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

// One timed batch: the ticks per operation of its operations.  Throws Unmeasurable.
using Batch = std::function<double()>;

struct Cost {
  std::string name, method;
  Batch batch;
  std::vector<double> values;
  std::string unmeasurable;  // non-empty: why the cost is n/a
  nlohmann::json extra = nlohmann::json::object();
};

// Every cost's batch once as a warm-up (code, page tables and caches as in a steady state), then
// `repeats` rounds of one batch of each cost in turn: interleaved, so that a slow drift of the
// host moves every cost a little rather than one cost a lot.
void measure_interleaved(std::vector<Cost>& costs, unsigned repeats) {
  auto one = [](Cost& c, bool keep) {
    if (!c.unmeasurable.empty()) return;
    try {
      const double v = c.batch();
      if (keep) c.values.push_back(v);
    } catch (const Unmeasurable& e) {
      c.unmeasurable = e.why;
    }
  };
  for (Cost& c : costs) one(c, false);
  for (unsigned round = 0; round < repeats; ++round)
    for (Cost& c : costs) one(c, true);
}

nlohmann::json summary_of(const Cost& c) {
  if (!c.unmeasurable.empty()) return {{"n/a", c.unmeasurable}};
  const Summary s = summarise(c.values);
  const MedianInterval ci = median_interval(c.values);
  nlohmann::json out = {{"median", s.median}, {"low", ci.low}, {"high", ci.high}, {"level", ci.level},
                        {"repeats", c.values.size()}, {"unit", kUnit}, {"method", c.method}};
  out.update(c.extra);
  return out;
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
inline constexpr unsigned kLoopInstructions = 27;  // per iteration; 5 more per batch (set-up and exit)

// `iterations` rounds of an allocator's fast path, in assembly so that the instruction count is
// the listing's: a size class drawn by xorshift (12 instructions with the list's offset), a call
// to `pop` that takes the head block of that class's free list and writes its header (6 with the
// call and return), a move, and a call to `push` that appends the block at the list's tail
// (6), then the loop's decrement and branch (2): 27 per iteration.  16 lists of 16 blocks of one
// cache line each (16 KiB, in L1): each pop takes another line, as a FIFO free list does; the
// lists never run empty (a pop and a push of the same class).
struct FreeLists {
  alignas(64) std::uint64_t ends[16][2];  // head, tail of each class
  alignas(64) std::uint64_t blocks[256][8];
  FreeLists() {
    for (unsigned c = 0; c < 16; ++c) {
      for (unsigned i = 0; i < 16; ++i) blocks[c * 16 + i][0] = i + 1 < 16 ? reinterpret_cast<std::uint64_t>(blocks[c * 16 + i + 1]) : 0;
      ends[c][0] = reinterpret_cast<std::uint64_t>(blocks[c * 16]);
      ends[c][1] = reinterpret_cast<std::uint64_t>(blocks[c * 16 + 15]);
    }
  }
};

void fast_path_loop(FreeLists& lists, std::uint64_t iterations) {
  std::uint64_t n = iterations;
  asm volatile(
      "sub $128, %%rsp\n\t"  // the calls below must not overwrite the red zone of this function
      "mov %[lists], %%r8\n\t"
      "mov $0x9e3779b97f4a7c15, %%rbx\n\t"
      "jmp 2f\n"
      "3:\n\t"  // pop: rdi = class offset; returns the head block in rax
      "mov (%%r8,%%rdi), %%rax\n\t"
      "mov (%%rax), %%rdx\n\t"
      "mov %%rdx, (%%r8,%%rdi)\n\t"
      "addq $1, 8(%%rax)\n\t"
      "ret\n"
      "4:\n\t"  // push: rsi = block, appended at the tail of class rdi
      "movq $0, (%%rsi)\n\t"
      "mov 8(%%r8,%%rdi), %%rdx\n\t"
      "mov %%rsi, (%%rdx)\n\t"
      "mov %%rsi, 8(%%r8,%%rdi)\n\t"
      "ret\n"
      "2:\n\t"
      "mov %%rbx, %%rax\n\t"
      "shl $13, %%rax\n\t"
      "xor %%rax, %%rbx\n\t"
      "mov %%rbx, %%rax\n\t"
      "shr $7, %%rax\n\t"
      "xor %%rax, %%rbx\n\t"
      "mov %%rbx, %%rax\n\t"
      "shl $17, %%rax\n\t"
      "xor %%rax, %%rbx\n\t"
      "mov %%rbx, %%rdi\n\t"
      "and $15, %%rdi\n\t"
      "shl $4, %%rdi\n\t"
      "call 3b\n\t"
      "mov %%rax, %%rsi\n\t"
      "call 4b\n\t"
      "sub $1, %[n]\n\t"
      "jne 2b\n\t"
      "add $128, %%rsp\n\t"
      : [n] "+r"(n)
      : [lists] "r"(lists.ends)
      : "rax", "rbx", "rdx", "rsi", "rdi", "r8", "cc", "memory");
}

Cost cycles_per_instruction() {
  constexpr std::uint64_t iterations = 100'000;
  auto lists = std::make_shared<FreeLists>();
  return {"cycles_per_instruction",
          "ticks per instruction of an x86-64 loop of exactly 27 instructions per iteration shaped like an allocator's fast path "
          "(a size class drawn by xorshift, a call that pops the head of that class's free list and writes its header, a call that "
          "appends the block at the list's tail; 16 lists of 16 one-line blocks), 100,000 iterations per batch",
          [lists] {
            const std::uint64_t t0 = cycle_counter_begin();
            fast_path_loop(*lists, iterations);
            return double(cycle_counter_end() - t0) / double(iterations * kLoopInstructions + 5);
          }};
}
#else
Cost cycles_per_instruction() {
  return {"cycles_per_instruction", "", [] () -> double {
            throw Unmeasurable{"the loop of known instruction count is x86-64 assembly; on this architecture the model charges 1 tick per instruction"};
          }};
}
#endif

// ---- memory latencies ------------------------------------------------------------------------

// Ticks per load of a dependent chase through `bytes` of memory, one pointer per cache line, the
// lines in a random cycle (fixed seed), so that prefetchers cannot guess the next line.
Cost chase_latency(const std::string& name, std::size_t bytes, std::size_t line, const std::string& what) {
  const std::size_t lines = std::max<std::size_t>(bytes / line, 2);
  const std::size_t pages = (lines * line + kPage - 1) / kPage;
  std::shared_ptr<char> base;
  try {
    base.reset(static_cast<char*>(map_pages(pages)), [pages](char* p) { ::munmap(p, pages * kPage); });
  } catch (const Unmeasurable& e) {
    const std::string why = e.why;
    return {name, "", [why]() -> double { throw Unmeasurable{why}; }};
  }
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(42));
  for (std::size_t i = 0; i < lines; ++i) *reinterpret_cast<void**>(base.get() + order[i] * line) = base.get() + order[(i + 1) % lines] * line;
  const std::size_t steps = std::max<std::size_t>(lines, 200'000);
  Cost c{name,
         "ticks per load of a dependent pointer chase over a random cycle of " + std::to_string(lines) + " cache lines (" +
             std::to_string(lines * line / 1024) + " KiB, " + what + "), " + std::to_string(steps) + " loads per batch after one untimed pass",
         [base, steps, lines] {
           void* p = base.get();
           for (std::size_t i = 0; i < lines; ++i) p = *static_cast<void**>(p);  // one untimed pass: the lines cached as far as they fit
           const std::uint64_t t0 = cycle_counter_begin();
           for (std::size_t i = 0; i < steps; ++i) p = *static_cast<void**>(p);
           const std::uint64_t t1 = cycle_counter_end();
           asm volatile("" : : "r"(p));  // the chase's result is used
           return double(t1 - t0) / double(steps);
         }};
  c.extra = {{"working_set_bytes", lines * line}};
  return c;
}

// ---- the kernel's work -------------------------------------------------------------------------

inline constexpr unsigned kCallsPerBatch = 256;
const std::string kPagesText = std::to_string(kCostPages);

Cost minor_fault() {
  constexpr std::size_t pages = 4096;  // 16 MiB
  return {"minor_fault", "ticks per first write to a page of a fresh private anonymous mapping (4,096 pages per batch, hugepages refused): the fault and the zeroing",
          [] {
            void* p = map_pages(pages);
            const std::uint64_t t0 = cycle_counter_begin();
            touch(p, pages);
            const std::uint64_t t1 = cycle_counter_end();
            ::munmap(p, pages * kPage);
            return double(t1 - t0) / double(pages);
          }};
}

// mmap and munmap of kCostPages untouched pages: `timed_unmap` picks which half is timed.
Cost map_or_unmap(bool timed_unmap) {
  return {timed_unmap ? "munmap" : "mmap",
          "ticks per " + std::string(timed_unmap ? "munmap" : "mmap") + " of " + kPagesText + " untouched private anonymous pages (256 calls per batch)",
          [timed_unmap] {
            std::vector<void*> maps(kCallsPerBatch, MAP_FAILED);
            const std::uint64_t t0 = cycle_counter_begin();
            for (void*& p : maps) p = ::mmap(nullptr, kCostPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            const std::uint64_t t1 = cycle_counter_begin();
            if (std::find(maps.begin(), maps.end(), MAP_FAILED) != maps.end()) {  // give back what was mapped, then n/a
              const int error = errno;
              for (void* p : maps)
                if (p != MAP_FAILED) ::munmap(p, kCostPages * kPage);
              throw Unmeasurable{std::string("mmap failed: ") + std::strerror(error)};
            }
            for (void* p : maps) ::munmap(p, kCostPages * kPage);
            const std::uint64_t t2 = cycle_counter_end();
            return double(timed_unmap ? t2 - t1 : t1 - t0) / kCallsPerBatch;
          }};
}

Cost madvise_dontneed() {
  return {"madvise", "ticks per madvise(MADV_DONTNEED) of " + kPagesText + " pages just written, their freeing included (256 calls per batch)", [] {
            const std::size_t pages = kCostPages * kCallsPerBatch;
            char* p = static_cast<char*>(map_pages(pages));
            touch(p, pages);
            const std::uint64_t t0 = cycle_counter_begin();
            for (unsigned i = 0; i < kCallsPerBatch; ++i) ::madvise(p + std::size_t(i) * kCostPages * kPage, kCostPages * kPage, MADV_DONTNEED);
            const std::uint64_t t1 = cycle_counter_end();
            ::munmap(p, pages * kPage);
            return double(t1 - t0) / kCallsPerBatch;
          }};
}

Cost brk_growth() {
  return {"brk", "ticks per brk call: sbrk growth by " + kPagesText + " untouched pages and the shrink that undoes it (256 calls per batch)", [] {
            // No allocation happens between a growth and the shrink that undoes it: malloc's view
            // of the break is the same after the batch as before.
            const std::intptr_t step = std::intptr_t(kCostPages * kPage);
            const std::uint64_t t0 = cycle_counter_begin();
            for (unsigned i = 0; i < kCallsPerBatch / 2; ++i) {
              if (::sbrk(step) == reinterpret_cast<void*>(-1)) throw Unmeasurable{std::string("sbrk failed: ") + std::strerror(errno)};
              ::sbrk(-step);
            }
            return double(cycle_counter_end() - t0) / kCallsPerBatch;
          }};
}

Cost mprotect_cost() {
  // The pages sit in the middle of a mapping three times their size, so every call splits the
  // mapping or merges it back whatever lies around it (a growing arena, a guard page); a mapping
  // of their own merged with a neighbour or not depending on the process's layout, and its cost
  // moved by half between calibrations.
  return {"mprotect",
          "ticks per mprotect of " + kPagesText + " untouched pages in the middle of a mapping of " + std::to_string(3 * kCostPages) +
              ", alternating read-only (a split) and read-write (the merge back) (256 calls per batch)",
          [] {
            char* whole = static_cast<char*>(map_pages(3 * kCostPages));
            char* p = whole + kCostPages * kPage;
            const std::uint64_t t0 = cycle_counter_begin();
            for (unsigned i = 0; i < kCallsPerBatch; ++i) ::mprotect(p, kCostPages * kPage, i % 2 ? PROT_READ | PROT_WRITE : PROT_READ);
            const std::uint64_t t1 = cycle_counter_end();
            ::munmap(whole, 3 * kCostPages * kPage);
            return double(t1 - t0) / kCallsPerBatch;
          }};
}

Cost mremap_cost() {
  return {"mremap",
          "ticks per mremap of an untouched mapping between " + kPagesText + " and " + std::to_string(2 * kCostPages) +
              " pages, moving allowed (256 calls per batch)",
          [] {
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
          }};
}

Cost syscall_cost() {
  return {"syscall", "ticks per futex(FUTEX_WAKE) with no waiter: entering the kernel and leaving (256 calls per batch)", [] {
            static int word = 0;
            const std::uint64_t t0 = cycle_counter_begin();
            for (unsigned i = 0; i < kCallsPerBatch; ++i) ::syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
            return double(cycle_counter_end() - t0) / kCallsPerBatch;
          }};
}

}  // namespace

nlohmann::json measure_machine_costs(unsigned repeats) {
  const CacheGeometry& l1 = l1_data_cache();
  const CacheGeometry& ll = last_level_cache();
  // A last-level hit in callgrind's model is an access that misses L1 and hits anywhere up to the
  // last level; on machines with a private L2 most are L2 hits.  The chase runs at the geometric
  // mean of the L1d and last-level sizes, between the two.
  const std::size_t between = std::size_t(std::sqrt(double(l1.size) * double(ll.size)));
  std::vector<Cost> costs;
  costs.push_back(cycles_per_instruction());
  costs.push_back(chase_latency("l1_latency", l1.size / 2, l1.line, "half the L1d, " + l1.source));
  costs.push_back(chase_latency("last_level_latency", between, ll.line,
                                "the geometric mean of the L1d and the last-level cache (" + std::to_string(ll.size / 1024) + " KiB, " + ll.source + ")"));
  costs.push_back(chase_latency("ram_latency", std::max<std::size_t>(8 * ll.size, std::size_t{64} << 20), ll.line, "8 x the last-level cache, at least 64 MiB"));
  costs.push_back(minor_fault());
  costs.push_back(map_or_unmap(false));
  costs.push_back(map_or_unmap(true));
  costs.push_back(madvise_dontneed());
  costs.push_back(brk_growth());
  costs.push_back(mprotect_cost());
  costs.push_back(mremap_cost());
  costs.push_back(syscall_cost());
  measure_interleaved(costs, repeats);
  nlohmann::json out;
  for (const Cost& c : costs) out[c.name] = summary_of(c);
  out["lines_per_page"] = {{"value", kPage / ll.line}, {"method", "the page size over the last-level cache's line: the lines a fault's zeroing writes"}};
  return out;
}

}  // namespace allocstress
