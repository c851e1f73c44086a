// Allocator-induced false sharing: the kernels `false-sharing-active` and `false-sharing-passive`
// (the active-false and passive-false tests of the Hoard paper, Berger et al., ASPLOS 2000).
//
// Model.  T threads run `rounds` rounds in lock-step; a spinning barrier separates the phases of
// a round and its waits are never timed.  In every round each thread ends up owning `objects`
// live objects of `object_size` bytes, obtained by one of two kernels:
//   active   every thread allocates its own objects, all threads at the same time.  An allocator
//            that serves concurrent threads out of the same cache lines (one heap carving
//            consecutive small blocks for whoever asks) puts different threads' objects in one line.
//   passive  thread 0 alone allocates the objects of every thread, round-robin (object k is for
//            thread k mod T, so neighbouring blocks belong to different threads) and hands them
//            over through harness memory; each thread frees the objects it was handed, then
//            allocates `objects` new ones itself.  An allocator that gives a thread back the
//            blocks it just freed (a thread cache) gives it the lines it shares with the others.
// Then every thread writes each of its objects `writes` times, interleaved over its objects
// (write w of object 0, of object 1, ..., then write w + 1), and frees them.  One write of an
// object = one volatile increment of one byte in every cache line the object touches, so a line
// holding objects of two threads bounces between their cores.  A round, '|' a barrier:
//   baseline writes | (passive: hand-off |) allocate | count (thread 0) | write | free
//
// Measured per thread (cycle counter, summed over threads):
//   allocation    every malloc and free of a round, the passive hand-off's included: cycles per
//                 malloc/free pair, raw (no baseline exists that could be subtracted);
//   write phase   cycles per write, kept per round;
//   baseline      at the start of every round, on the same threads and cores, a write phase of
//                 the same loop on harness objects: each thread's `objects` objects packed
//                 (stride object_size rounded up to 16, the alignment a malloc gives) in a
//                 private, page-aligned mapping of its own, so no line can hold two threads'
//                 objects.  Interleaved round by round with the allocator's write phases, both see
//                 the same background load.  slowdown = write cycles per write / baseline's, per
//                 round (the cell takes medians over rounds: a round in which the scheduler
//                 preempted a thread is then an outlier, not a bias).
//   shared lines  after each round's allocations (untimed: thread 0 counts while the others
//                 wait), the cache lines holding bytes of live objects of >= 2 threads
//                 (count_shared_lines), and how many objects touch such a line.
// With one thread nothing can be shared: 0 shared lines and a slowdown of about 1, with no special
// case.  The kernels make no random choices: the seed does not change them.
//
// Allocator instances: each thread allocates and frees through its own instance (the Allocator
// contract).  The passive hand-off allocates thread i's objects through thread i's instance while
// thread i waits at the barrier, so every block goes back to the instance it came from.  For a
// drop-in malloc every instance is the same process-wide malloc (the classic test); in-tree
// backends have one heap per instance, so their threads' objects never share a line.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "allocators/allocator.hpp"
#include "platform/tsc.hpp"
#include "workloads/false_sharing/false_sharing_params.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace allocstress {

enum class FalseSharingKind { active, passive };

// ---- The shared-line count (pure) ----------------------------------------------------------

struct SharedLines {
  std::uint64_t lines = 0;                    // cache lines holding bytes of objects of >= 2 threads
  std::uint64_t objects_on_shared_lines = 0;  // list entries (objects) touching at least one of them
  std::uint64_t objects = 0;                  // list entries in all
};

// One (cache line, thread) pair: the count's scratch entry.
struct LineOwner {
  std::uintptr_t line = 0;
  std::size_t thread = 0;
  auto operator<=>(const LineOwner&) const = default;
};

// The most lines an object of object_size bytes can touch, wherever it starts.
constexpr std::size_t max_lines_per_object(std::size_t object_size, std::size_t line_size) {
  return (object_size + 2 * line_size - 2) / line_size;
}

// Entries the count's scratch needs at most for `objects` objects in all.
constexpr std::size_t shared_lines_scratch_size(std::size_t objects, std::size_t object_size, std::size_t line_size) {
  return objects * max_lines_per_object(object_size, line_size);
}

// per_thread[t] lists the start addresses of thread t's live objects, each object_size bytes.
// A line is shared when it holds bytes of objects of two or more threads; an object spanning
// lines counts in every line it touches; the same address listed twice by one thread counts once
// (listed by two threads, it makes its lines shared).
// pre: object_size > 0, line_size > 0, scratch.size() >= shared_lines_scratch_size(Σ sizes, ...).
inline SharedLines count_shared_lines(std::span<const std::span<void* const>> per_thread, std::size_t object_size,
                                      std::size_t line_size, std::span<LineOwner> scratch) {
  auto first_line = [&](void* p) { return reinterpret_cast<std::uintptr_t>(p) / line_size; };
  auto last_line = [&](void* p) { return (reinterpret_cast<std::uintptr_t>(p) + object_size - 1) / line_size; };
  std::size_t n = 0;
  for (std::size_t t = 0; t < per_thread.size(); ++t)
    for (void* p : per_thread[t])
      for (std::uintptr_t line = first_line(p); line <= last_line(p); ++line) scratch[n++] = {line, t};
  const auto owners = scratch.first(n);
  std::sort(owners.begin(), owners.end());
  const auto distinct = owners.first(std::size_t(std::unique(owners.begin(), owners.end()) - owners.begin()));
  // After unique, a line is shared exactly when it appears in two or more entries.
  auto shared = [&](std::uintptr_t line) {
    const auto it = std::lower_bound(distinct.begin(), distinct.end(), LineOwner{line, 0});
    return it + 1 < distinct.end() && it->line == line && (it + 1)->line == line;
  };
  SharedLines result;
  for (std::size_t i = 0; i < distinct.size(); ++i)
    if (i + 1 < distinct.size() && distinct[i + 1].line == distinct[i].line && (i == 0 || distinct[i - 1].line != distinct[i].line))
      ++result.lines;
  for (const auto& list : per_thread)
    for (void* p : list) {
      ++result.objects;
      for (std::uintptr_t line = first_line(p); line <= last_line(p); ++line)
        if (shared(line)) {
          ++result.objects_on_shared_lines;
          break;
        }
    }
  return result;
}

// The same with scratch of its own (tests, one-off uses).
inline SharedLines count_shared_lines(const std::vector<std::vector<void*>>& per_thread, std::size_t object_size,
                                      std::size_t line_size) {
  std::vector<std::span<void* const>> lists(per_thread.begin(), per_thread.end());
  std::size_t objects = 0;
  for (const auto& l : per_thread) objects += l.size();
  std::vector<LineOwner> scratch(shared_lines_scratch_size(objects, object_size, line_size));
  return count_shared_lines(lists, object_size, line_size, scratch);
}

// ---- Harness pieces the kernels use ----------------------------------------------------------

// A barrier whose waiters spin (then yield): a futex wake-up takes microseconds, longer than a
// short write phase, and the threads' write phases must overlap for false sharing to show.
class SpinBarrier {
 public:
  explicit SpinBarrier(unsigned participants) : participants_(participants) {}

  void arrive_and_wait() {
    const std::uint32_t generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == participants_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < 20'000) {
#if defined(__x86_64__) || defined(__i386__)
        _mm_pause();
#endif
      } else {
        std::this_thread::yield();  // oversubscribed, or a thread was descheduled
      }
    }
  }

 private:
  const unsigned participants_;
  alignas(128) std::atomic<std::uint32_t> arrived_{0};
  alignas(128) std::atomic<std::uint32_t> generation_{0};
};

// n zero-filled Ts straight from mmap (page-aligned, never from the allocator under test);
// empty() when the mapping failed.  pre: T is trivially copyable.
template <class T>
class MappedArray {
 public:
  explicit MappedArray(std::size_t n) : bytes_(std::max<std::size_t>(n * sizeof(T), 1)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) data_ = static_cast<T*>(p), size_ = n;
  }
  ~MappedArray() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;

  bool empty() const { return data_ == nullptr; }
  std::span<T> span() const { return {data_, size_}; }

 private:
  std::size_t bytes_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Where the write phase reads its list of objects from: a copy of `objects` in `buffer`
// (page-aligned, at least kPageBytes + 8 bytes per object), starting at a page offset whose lines
// hold no byte of any object at the same page offset when such a gap exists (else at offset 0).
// Loads from the list at the page offset of a recently stored object byte can stall the loop
// (4K aliasing); on the test VM it made 4-8% of runs 3-5x slower for their whole duration, in
// the private baseline as well as on the allocator's objects.  Untimed.
inline constexpr std::size_t kPageBytes = 4096;
inline std::span<void* const> place_write_list(std::span<void* const> objects, std::size_t object_size,
                                               std::span<std::byte> buffer) {
  constexpr std::size_t kSlot = 64, kSlots = kPageBytes / kSlot;
  bool used[kSlots] = {};
  for (void* p : objects) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
    for (std::uintptr_t s = a / kSlot; s <= (a + object_size - 1) / kSlot && s < a / kSlot + kSlots; ++s) used[s % kSlots] = true;
  }
  const std::size_t need = (objects.size() * sizeof(void*) + kSlot - 1) / kSlot;  // slots the list covers
  std::size_t offset = 0;
  for (std::size_t start = 0; need < kSlots && start < kSlots; ++start) {
    std::size_t free = 0;
    while (free < need && !used[(start + free) % kSlots]) ++free;
    if (free == need) {
      offset = start * kSlot;
      break;
    }
  }
  auto* list = reinterpret_cast<void**>(buffer.data() + offset);
  std::copy(objects.begin(), objects.end(), list);
  return {list, objects.size()};
}

// The write phase: `writes` writes to each object, interleaved over the objects; one write = one
// volatile byte increment in every line the object touches.  pre: line_size is a power of two.
inline void write_objects(std::span<void* const> objects, std::uint64_t writes, std::size_t object_size, std::size_t line_size) {
  const std::uintptr_t line_mask = line_size - 1;
  for (std::uint64_t w = 0; w < writes; ++w)
    for (void* object : objects) {
      const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(object) + object_size;
      for (std::uintptr_t a = reinterpret_cast<std::uintptr_t>(object); a < end; a = (a | line_mask) + 1) {
        auto* byte = reinterpret_cast<volatile unsigned char*>(a);
        *byte = static_cast<unsigned char>(*byte + 1);
      }
    }
}

// ---- The kernels -------------------------------------------------------------------------------

// What one thread did and what it cost (cycle-counter ticks).
struct FalseSharingTally {
  std::uint64_t alloc_cycles = 0;
  std::uint64_t mallocs = 0, frees = 0, writes = 0, private_writes = 0;
  std::uint64_t rounds = 0;                   // rounds completed
  // Per completed round: write-phase cycles on the private objects and on the allocator's.
  std::vector<std::uint64_t> round_private_cycles, round_write_cycles;
  std::uint64_t failed_allocation_bytes = 0;  // != 0: an allocation returned nullptr
  bool harness_memory_failed = false;         // its lists or private objects could not be mapped
};

// Thread 0's shared-line counts over the rounds.
struct SharedLineTally {
  std::uint64_t rounds = 0, lines_sum = 0, lines_max = 0, objects_on_shared_lines = 0, objects = 0;
};

// One run of a kernel: what its T threads share.  Every thread calls run_thread once, all at the
// same time (each blocks at the barrier until all have arrived).
template <Allocator A>
class FalseSharingRun {
 public:
  // pre: validate(spec) passed, threads >= 1, line_size a power of two.
  FalseSharingRun(const FalseSharingSpec& spec, FalseSharingKind kind, unsigned threads, std::size_t line_size)
      : spec_(spec),
        kind_(kind),
        threads_(threads),
        line_(line_size),
        barrier_(threads),
        slots_(threads),
        live_lists_(threads),
        scratch_(shared_lines_scratch_size(std::size_t(spec.objects) * threads, std::size_t(spec.object_size), line_size)) {}

  // Thread `index`'s part of the run, on that thread.  `alloc` is its allocator instance; it must
  // outlive every thread's run_thread (the passive hand-off allocates through it from thread 0).
  FalseSharingTally run_thread(unsigned index, A& alloc) {
    FalseSharingTally t;
    const std::size_t n = std::size_t(spec_.objects), size = std::size_t(spec_.object_size);
    const std::size_t stride = (size + 15) / 16 * 16;
    MappedArray<void*> objects(n), handed(kind_ == FalseSharingKind::passive ? n : 0);
    MappedArray<std::byte> private_objects(n * stride), write_list(kPageBytes + n * sizeof(void*)),
        private_write_list(kPageBytes + n * sizeof(void*));
    MappedArray<std::uint64_t> round_cycles(2 * std::size_t(spec_.rounds));  // [2r] private, [2r + 1] allocator's
    t.harness_memory_failed = objects.empty() || handed.empty() || private_objects.empty() ||
                              write_list.empty() || private_write_list.empty() ||
                              round_cycles.empty() || slots_.empty() || live_lists_.empty() || scratch_.empty();
    if (t.harness_memory_failed) failed_.store(true, std::memory_order_relaxed);
    else slots_.span()[index] = {&alloc, objects.span(), handed.span()};
    barrier_.arrive_and_wait();  // every thread registered; set-up failures known to all
    if (failed_.load(std::memory_order_relaxed)) return t;

    for (std::size_t k = 0; k < n; ++k) objects.span()[k] = private_objects.span().data() + k * stride;
    const auto private_targets = place_write_list(objects.span(), size, private_write_list.span());

    for (std::uint64_t r = 0; r < spec_.rounds; ++r) {
      barrier_.arrive_and_wait();  // the previous round's frees are done
      // The baseline, interleaved with the allocator's rounds so that both see the same background.
      const std::uint64_t p0 = cycle_counter_begin();
      write_objects(private_targets, spec_.writes, size, line_);
      round_cycles.span()[2 * r] = cycle_counter_end() - p0;
      t.private_writes += spec_.writes * n;
      barrier_.arrive_and_wait();  // every thread's baseline writes done
      std::uint64_t cycles = 0;
      if (kind_ == FalseSharingKind::passive) {
        if (index == 0) cycles += hand_out(t);
        barrier_.arrive_and_wait();  // handed over
      }
      std::size_t live = 0;
      const std::uint64_t c0 = cycle_counter_begin();
      if (kind_ == FalseSharingKind::passive) release(alloc, slots_.span()[index].handed, t);
      for (std::size_t k = 0; k < n; ++k)
        if (void* p = allocate(alloc, t)) objects.span()[live++] = p;
      cycles += cycle_counter_end() - c0;
      live_lists_.span()[index] = objects.span().first(live);
      const auto targets = place_write_list(objects.span().first(live), size, write_list.span());
      barrier_.arrive_and_wait();  // every thread's objects live and listed
      if (index == 0 && !failed_.load(std::memory_order_relaxed)) tally_shared_lines();
      barrier_.arrive_and_wait();  // counted
      if (failed_.load(std::memory_order_relaxed)) {  // set before the last two barriers: every thread agrees
        release(alloc, objects.span().first(live), t);
        break;
      }
      const std::uint64_t c1 = cycle_counter_begin();
      write_objects(targets, spec_.writes, size, line_);
      round_cycles.span()[2 * r + 1] = cycle_counter_end() - c1;
      t.writes += spec_.writes * live;
      barrier_.arrive_and_wait();  // nobody frees (allocator metadata writes) while others write
      const std::uint64_t c2 = cycle_counter_begin();
      release(alloc, objects.span().first(live), t);
      t.alloc_cycles += cycles + (cycle_counter_end() - c2);
      ++t.rounds;
    }
    for (std::size_t r = 0; r < t.rounds; ++r) {  // into the tally only now: no harness write between phases
      t.round_private_cycles.push_back(round_cycles.span()[2 * r]);
      t.round_write_cycles.push_back(round_cycles.span()[2 * r + 1]);
    }
    return t;
  }

  // After every run_thread returned.
  const SharedLineTally& shared_lines() const { return shared_lines_; }

 private:
  struct Slot {
    A* alloc = nullptr;
    std::span<void*> objects, handed;
  };

  void* allocate(A& alloc, FalseSharingTally& t) {
    void* p = alloc.allocate(std::size_t(spec_.object_size));
    ++t.mallocs;
    if (p == nullptr) {
      t.failed_allocation_bytes = spec_.object_size;
      failed_.store(true, std::memory_order_relaxed);
    }
    return p;
  }

  void release(A& alloc, std::span<void* const> blocks, FalseSharingTally& t) {
    for (void* p : blocks)
      if (p != nullptr) {
        alloc.deallocate(p, std::size_t(spec_.object_size));
        ++t.frees;
      }
  }

  // Passive, thread 0: object k of the round for thread k mod T, through that thread's instance.
  std::uint64_t hand_out(FalseSharingTally& t) {
    const std::uint64_t c0 = cycle_counter_begin();
    for (std::size_t k = 0; k < std::size_t(spec_.objects) * threads_; ++k) {
      Slot& to = slots_.span()[k % threads_];
      to.handed[k / threads_] = allocate(*to.alloc, t);
    }
    return cycle_counter_end() - c0;
  }

  void tally_shared_lines() {
    const SharedLines s = count_shared_lines(live_lists_.span(), std::size_t(spec_.object_size), line_, scratch_.span());
    SharedLineTally& a = shared_lines_;
    ++a.rounds;
    a.lines_sum += s.lines;
    a.lines_max = std::max(a.lines_max, s.lines);
    a.objects_on_shared_lines += s.objects_on_shared_lines;
    a.objects += s.objects;
  }

  const FalseSharingSpec spec_;
  const FalseSharingKind kind_;
  const unsigned threads_;
  const std::size_t line_;
  SpinBarrier barrier_;
  std::atomic<bool> failed_{false};
  // Harness memory, mapped (never from the allocator under test, so never in a line with objects).
  MappedArray<Slot> slots_;                          // [thread], set by each thread before the first barrier
  MappedArray<std::span<void* const>> live_lists_;  // [thread] this round's live objects
  MappedArray<LineOwner> scratch_;                  // thread 0's, for the count
  SharedLineTally shared_lines_;
};

}  // namespace allocstress
