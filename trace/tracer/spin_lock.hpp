// A lock for the tracer's rare slow paths (flushing a block, opening the file, borrowing a
// compressor).  It cannot be a pthread mutex: it is taken inside malloc, in a SIGABRT handler and
// in a fork child, and it must let a thread see that it already holds the lock itself (a signal
// that interrupted its own flush) instead of deadlocking.  The word holds the holder's kernel
// thread id, 0 when free.  Waiters spin briefly, then yield: holders may be descheduled on a
// busy 2-core machine while they compress a block.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>

namespace allocstress::tracer {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class SpinLock {
 public:
  bool try_lock(std::uint32_t tid) {
    std::uint32_t expected = 0;
    return owner_.compare_exchange_strong(expected, tid, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void lock(std::uint32_t tid) {
    for (unsigned spins = 0; !try_lock(tid); ++spins) {
      if (spins < 64) cpu_relax();
      else sched_yield();
    }
  }
  void unlock() { owner_.store(0, std::memory_order_release); }
  bool held_by(std::uint32_t tid) const { return owner_.load(std::memory_order_relaxed) == tid; }
  // After fork: the holder, if any, does not exist in the child.
  void reset() { owner_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint32_t> owner_{0};
};

}  // namespace allocstress::tracer
