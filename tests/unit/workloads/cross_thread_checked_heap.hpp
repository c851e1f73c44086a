// Test support for the cross-thread workloads (cross_thread_test.cpp, larson_test.cpp): a
// malloc-backed heap that several per-thread allocator instances share and that checks every
// free -- the block must be live (no double or unknown free) and freed with the size it was
// allocated with -- and counts frees made by another instance than the allocating one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "workloads/alloc_test.hpp"
#include "workloads/cross_thread/cross_thread.hpp"

namespace allocstress::testing {

class CheckedHeap {
 public:
  void* allocate(std::size_t n, unsigned owner) {
    void* p = std::malloc(n);
    const std::lock_guard lock(mutex_);
    if (!live_.emplace(p, Block{n, owner}).second) error("address handed out twice");
    ++mallocs_;
    live_bytes_ += n;
    return p;
  }
  void deallocate(void* p, std::size_t n, unsigned freer) {
    {
      const std::lock_guard lock(mutex_);
      const auto it = live_.find(p);
      if (it == live_.end()) return error("free of a block that is not live (double or unknown free)");
      if (it->second.size != n) error("free with size " + std::to_string(n) + " of a block of " + std::to_string(it->second.size));
      if (it->second.owner != freer) ++remote_frees_;
      ++frees_;
      live_bytes_ -= it->second.size;
      live_.erase(it);
    }
    std::free(p);
  }

  // Reads under the lock (defined before its users: its return type is deduced).
  template <class F>
  auto locked(F f) const {
    const std::lock_guard lock(mutex_);
    return f();
  }
  std::size_t live_blocks() const { return locked([&] { return live_.size(); }); }
  std::uint64_t live_bytes() const { return locked([&] { return live_bytes_; }); }
  std::uint64_t mallocs() const { return locked([&] { return mallocs_; }); }
  std::uint64_t frees() const { return locked([&] { return frees_; }); }
  std::uint64_t remote_frees() const { return locked([&] { return remote_frees_; }); }
  std::uint64_t errors() const { return locked([&] { return errors_; }); }
  std::string first_error() const { return locked([&] { return first_error_; }); }

 private:
  struct Block {
    std::size_t size;
    unsigned owner;
  };
  void error(const std::string& what) {  // mutex held
    if (errors_++ == 0) first_error_ = what;
  }

  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> live_;
  std::uint64_t mallocs_ = 0, frees_ = 0, live_bytes_ = 0, remote_frees_ = 0, errors_ = 0;
  std::string first_error_;
};

// One worker thread's allocator instance on a shared CheckedHeap.
class CheckedAllocator {
 public:
  CheckedAllocator(CheckedHeap& heap, unsigned index) : heap_(heap), index_(index) {}
  void* allocate(std::size_t n) { return heap_.allocate(n, index_); }
  void deallocate(void* p, std::size_t n) { heap_.deallocate(p, n, index_); }
  static constexpr std::string_view name() { return "checked"; }

 private:
  CheckedHeap& heap_;
  unsigned index_;
};

// Runs f(i) on `threads` threads at once and joins them.
inline void on_threads(unsigned threads, const std::function<void(unsigned)>& f) {
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(f, i);
  for (auto& t : pool) t.join();
}

// Small alloc-test parameters for the cross-thread tests: 4096 slots per thread, E = 12.
inline AllocTestParams small_params(unsigned threads, std::uint64_t iterations = 100'000, std::uint64_t seed = 7) {
  AllocTestParams p;
  p.threads = threads;
  p.slots_total = 4096 * std::uint64_t{threads};
  p.max_size_exp = 12;
  p.iterations_per_thread = iterations;
  p.seed = seed;
  return p;
}

// What a checked run left: each thread's outcome, and the heap's count of remote frees and its
// live bytes once the run ended (before release).  `runner` (the tests' Ring or Larson) runs
// with run(make), where make(i) gives thread i's allocator, then frees what it holds with release().
struct CheckedRun {
  std::vector<CrossThreadOutcome> outcomes;
  std::uint64_t heap_remote_frees = 0, heap_live_bytes_after_run = 0;
};

template <class Runner>
CheckedRun run_checked_on(CheckedHeap& heap, Runner& runner) {
  CheckedRun r;
  r.outcomes = runner.run([&](unsigned i) { return std::make_unique<CheckedAllocator>(heap, i); });
  r.heap_remote_frees = heap.remote_frees();
  r.heap_live_bytes_after_run = heap.live_bytes();
  runner.release();
  return r;
}

}  // namespace allocstress::testing
