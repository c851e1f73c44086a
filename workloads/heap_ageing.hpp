// An aged heap (`--age SPEC`): before a cell's measured phase, each worker allocates blocks through
// its own allocator until it holds its share of a target heap, writes every byte of each, then frees
// all but a pattern of survivors.  The survivors stay live through the measured phase, so the
// workload runs on a heap with holes between them, as a long-running server's heap is, not on a
// fresh one; they are freed, and their contents checked, after the phase.
//
// The ageing draws its own sizes, p ~ 1/size (log-uniform) over [min_size, max_size], from its own
// random engine (seed and worker index): the workload's operation stream is the same aged or fresh.
// Survivors are every k-th block in allocation order (pattern `spread`, k = 1/keep rounded: the
// holes are evenly spread) or each block with probability keep (`random`).  keep=0 frees every
// block: a heap warmed and emptied, the control an aged heap is compared with (`matrix --age` runs
// both): what differs between the two is the survivors and their holes, not a cold heap's first
// touches of its pages.
//
// SPEC is HEAP[,keep=F][,sizes=MIN..MAX][,pattern=spread|random][,seed=N]: HEAP is the requested
// bytes allocated by all workers together (a whole number, or with a K, M or G suffix: powers of
// 1024), at least 64 KiB; keep is in [0, 1), default 0.25; sizes default 16..16384.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "allocators/allocator.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {

enum class AgePattern { spread, random };

struct AgeSpec {
  std::string text;                 // as given: records and tables show it
  std::uint64_t heap_bytes = 0;     // requested bytes allocated, all workers together
  double keep = 0.25;               // fraction of the blocks that survive
  std::uint64_t min_size = 16, max_size = 16384;
  AgePattern pattern = AgePattern::spread;
  std::uint64_t seed = 1;
};

// Throws std::invalid_argument naming the bad part and what is accepted.
AgeSpec parse_age_spec(std::string_view text);
// The control of `spec`: the same ageing with every block freed (keep=0).
std::string warmed_spec_text(std::string_view spec);
// The spec's parameters as a JSON object (the record's `ageing.spec`).
nlohmann::json to_json(const AgeSpec& spec);

// Log-uniform sizes over [min, max]: p(size) ~ 1/size.
class AgeingSizes {
 public:
  AgeingSizes(std::uint64_t min_size, std::uint64_t max_size) : log_min_(std::log(double(min_size))), log_span_(std::log(double(max_size) / double(min_size))), max_(max_size) {}
  std::uint64_t draw(WorkloadRng& rng) const {
    const double u = double(rng() >> 11) * 0x1.0p-53;  // [0, 1)
    const auto size = std::uint64_t(std::exp(log_min_ + u * log_span_));
    return size < max_ ? size : max_;
  }

 private:
  double log_min_, log_span_;
  std::uint64_t max_;
};

// What one worker's ageing did (exact counts).
struct AgeingOutcome {
  std::uint64_t blocks = 0, bytes = 0;                // allocated
  std::uint64_t survivors = 0, survivor_bytes = 0;    // kept live through the phase
  std::uint64_t corrupted = 0;                        // survivors whose contents changed (checked at release)
  std::string error;                                  // non-empty: the allocator ran out of memory
};

// One worker's aged heap.  Its survivor list is harness memory mapped from the OS (never the
// allocator's), so only the blocks themselves are in the allocator's heap.
class AgedHeap {
 public:
  AgedHeap(const AgeSpec& spec, unsigned worker, unsigned workers) : spec_(spec), worker_(worker), share_(spec.heap_bytes / (workers ? workers : 1)) {}
  ~AgedHeap() {
    if (list_ != nullptr) munmap(list_, list_bytes_);
  }
  AgedHeap(const AgedHeap&) = delete;
  AgedHeap& operator=(const AgedHeap&) = delete;

  // Ages `alloc` (call on the worker's thread, before the measured phase).  outcome().error says
  // whether it could.
  template <Allocator A>
  void build(A& alloc) {
    const AgeingSizes sizes(spec_.min_size, spec_.max_size);
    std::uint64_t count = 0, total = 0;  // the blocks whose sizes fit in this worker's share: a first pass
    for (WorkloadRng counting = engine(0xa9ed);; ++count)
      if ((total += sizes.draw(counting)) > share_) break;
    list_bytes_ = std::max<std::size_t>(count * sizeof(Block), 1);
    void* m = mmap(nullptr, list_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    list_ = static_cast<Block*>(m);
    WorkloadRng rng = engine(0xa9ed);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t size = sizes.draw(rng);
      void* p = alloc.allocate(size);
      if (p == nullptr) {
        out_.error = "the allocator ran out of memory while ageing, after " + std::to_string(out_.bytes) + " bytes";
        count = i;
        break;
      }
      std::memset(p, tag(i), size);
      list_[i] = {p, size};
      ++out_.blocks;
      out_.bytes += size;
    }
    // The holes: free all but the survivors, in allocation order; survivors move to the list's front.
    const std::uint64_t every = spec_.keep > 0 ? std::max<std::uint64_t>(1, std::uint64_t(std::llround(1.0 / spec_.keep))) : 0;
    WorkloadRng pick = engine(0x5e1ec7);
    for (std::uint64_t i = 0; i < count; ++i) {
      const bool keep = spec_.pattern == AgePattern::spread ? every > 0 && i % every == every - 1 : double(pick() >> 11) * 0x1.0p-53 < spec_.keep;
      if (!keep) {
        alloc.deallocate(list_[i].block, list_[i].size);
        continue;
      }
      list_[out_.survivors] = {list_[i].block, list_[i].size, i};
      ++out_.survivors;
      out_.survivor_bytes += list_[i].size;
    }
  }

  // Checks the survivors' contents and frees them (after the measured phase).
  template <Allocator A>
  void release(A& alloc) {
    for (std::uint64_t k = 0; k < out_.survivors; ++k) {
      const Block& b = list_[k];
      const auto* bytes = static_cast<const unsigned char*>(b.block);
      if (bytes[0] != tag(b.index) || bytes[b.size - 1] != tag(b.index)) ++out_.corrupted;
      alloc.deallocate(b.block, b.size);
    }
  }

  const AgeingOutcome& outcome() const { return out_; }

 private:
  struct Block {
    void* block;
    std::uint64_t size;
    std::uint64_t index = 0;  // its place in allocation order (its contents' tag)
  };
  WorkloadRng engine(std::uint64_t stream) const { return make_thread_rng(spec_.seed ^ stream, worker_); }
  static unsigned char tag(std::uint64_t i) { return static_cast<unsigned char>(i * 131 + 7); }

  AgeSpec spec_;
  unsigned worker_;
  std::uint64_t share_;
  Block* list_ = nullptr;
  std::size_t list_bytes_ = 0;
  AgeingOutcome out_;
};

// The record's `ageing` block from every worker's outcome (null entries: workers without one).
nlohmann::json ageing_record(const AgeSpec& spec, std::span<const AgeingOutcome* const> workers);

}  // namespace allocstress
