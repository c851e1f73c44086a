// The hand-off channel of the cross-thread workloads (cross_thread.hpp, larson.hpp): harness
// memory mapped from the OS, and a bounded single-producer/single-consumer queue of blocks.
//
// MappedArray<T>: `count` zeroed T's mapped with mmap and touched at construction, so that (like
// cells/slot_array.hpp) it never goes through the allocator under test and is part of "RSS
// before" when built before the measured phase.  T must be trivially copyable; zero bytes must be
// a valid T.
//
// HandoffQueue: a lock-free ring of `capacity` entries {block, size}.  Exactly one thread pushes
// (the producer) and exactly one thread pops (the consumer); that may be the same thread.
//   try_push(e)   producer: false when the queue is full (nothing written); never blocks.
//   drain(f)      consumer: pops every entry visible now, calling f(entry) in push order, and
//                 returns how many; the slots are given back to the producer after the last f.
//   end_pushes()  producer: it will push no more (release: every earlier push is visible to a
//                 consumer that sees pushes_ended()).
// Positions are 64-bit counters (never wrap in practice); each side keeps its own wrapped index
// and a cached copy of the other side's counter, so a push or a drain touches the shared cache
// line of the other side only when its cached copy says "full" / on every drain (one load).
// Nothing here allocates after construction.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <thread>
#include <type_traits>

namespace allocstress {

template <class T>
class MappedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit MappedArray(std::size_t count) : count_(count), bytes_(count == 0 ? 1 : count * sizeof(T)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    std::memset(p, 0, bytes_);  // every page resident now, not in the measured phase
  }
  ~MappedArray() { munmap(data_, bytes_); }
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;

  std::span<T> span() { return {data_, count_}; }
  T& operator[](std::size_t i) { return data_[i]; }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_, bytes_;
  T* data_ = nullptr;
};

// Waiting without burning a shared core: a short pause spin, then yield (more threads than PUs,
// or a loaded machine, must let the other side run).
class Backoff {
 public:
  void pause() {
    if (spins_ < kSpins) {
      ++spins_;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }
  void reset() { spins_ = 0; }

 private:
  static constexpr unsigned kSpins = 128;
  unsigned spins_ = 0;
};

class HandoffQueue {
 public:
  struct Entry {
    void* block;
    std::uint64_t size;
  };

  // pre: capacity >= 1.  Maps and touches the entries; throws std::bad_alloc.
  explicit HandoffQueue(std::uint64_t capacity) : capacity_(capacity), entries_(std::size_t(capacity)) {}
  HandoffQueue(const HandoffQueue&) = delete;
  HandoffQueue& operator=(const HandoffQueue&) = delete;

  bool try_push(const Entry& e) {
    Producer& p = producer_;
    if (p.count - p.head_seen == capacity_) {
      p.head_seen = consumed_.load(std::memory_order_acquire);
      if (p.count - p.head_seen == capacity_) return false;
    }
    entries_[p.index] = e;
    p.index = p.index + 1 == capacity_ ? 0 : p.index + 1;
    published_.store(++p.count, std::memory_order_release);
    return true;
  }

  template <class F>
  std::uint64_t drain(F&& f) {
    Consumer& c = consumer_;
    const std::uint64_t end = published_.load(std::memory_order_acquire);
    const std::uint64_t n = end - c.count;
    if (n == 0) return 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      f(static_cast<const Entry&>(entries_[c.index]));
      c.index = c.index + 1 == capacity_ ? 0 : c.index + 1;
    }
    c.count = end;
    consumed_.store(end, std::memory_order_release);
    return n;
  }

  void end_pushes() { closed_.store(true, std::memory_order_release); }
  bool pushes_ended() const { return closed_.load(std::memory_order_acquire); }
  std::uint64_t capacity() const { return capacity_; }

 private:
  struct Producer {
    std::uint64_t count = 0;      // entries pushed so far
    std::uint64_t head_seen = 0;  // the consumer's count, as last read
    std::uint64_t index = 0;      // count mod capacity
  };
  struct Consumer {
    std::uint64_t count = 0;  // entries popped so far
    std::uint64_t index = 0;  // count mod capacity
  };

  const std::uint64_t capacity_;
  MappedArray<Entry> entries_;
  // Producer-written line, consumer-written line, and the shared flag: no false sharing between
  // the two sides' hot fields.
  alignas(64) std::atomic<std::uint64_t> published_{0};
  Producer producer_;
  alignas(64) std::atomic<std::uint64_t> consumed_{0};
  Consumer consumer_;
  alignas(64) std::atomic<bool> closed_{false};
};

}  // namespace allocstress
