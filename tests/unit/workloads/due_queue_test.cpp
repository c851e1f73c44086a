// The lifetime engine's timing wheel (workloads/lifetimes/due_queue.hpp): every record comes
// back exactly at its due time, within a window, across many, and across the 32-bit clock's wrap.
#include "workloads/lifetimes/due_queue.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "workloads/workload_rng.hpp"

namespace allocstress {
namespace {

// A soak's clock runs past 2^32 allocations and the wheel sees it modulo 2^32: records filed
// before the wrap come back at their due time after it, within and across windows.
TEST(DueQueue, RecordsComeBackAcrossTheClocksWrap) {
  std::vector<LiveBlock> records(3000);
  std::vector<std::uint64_t> due(records.size());
  DueQueue q;
  const std::uint64_t start = (std::uint64_t{1} << 32) - 3 * DueQueue::kWindow, end = (std::uint64_t{1} << 32) + 3 * DueQueue::kWindow;
  std::uint32_t filed = 0, returned = 0;
  for (std::uint64_t t = start; t < end; ++t) {
    const auto now = static_cast<std::uint32_t>(t);
    q.advance(records.data(), now, [&](std::uint32_t i) {
      ASSERT_EQ(due[i], t) << "record " << i;
      ++returned;
    });
    if (filed < records.size() && t % 97 == 0) {
      const std::uint64_t lifetime = 1 + (std::uint64_t(filed) * 7919) % (2 * DueQueue::kWindow);  // within and across windows
      if (t + lifetime < end) {
        due[filed] = t + lifetime;
        q.insert(records.data(), filed, static_cast<std::uint32_t>(t + lifetime), now);
        ++filed;
      }
    }
  }
  EXPECT_GT(filed, 2000u);
  EXPECT_EQ(returned, filed);
}

// The wheel hands every record back exactly at its due time, within a window and across many.
TEST(DueQueue, EveryRecordComesBackAtItsDueTime) {
  std::vector<LiveBlock> records(20'000);
  std::vector<std::uint32_t> due(records.size());
  DueQueue q;
  WorkloadRng rng(5);
  const std::uint32_t horizon = (1u << 25) + 1000;
  std::uint32_t filed = 0, returned = 0;
  std::multiset<std::uint32_t> pending;
  for (std::uint32_t now = 0; now < horizon; ++now) {
    q.advance(records.data(), now, [&](std::uint32_t i) {
      ASSERT_EQ(due[i], now);
      pending.erase(pending.find(now));
      ++returned;
    });
    if (filed < records.size() && now % 1024 == 3) {
      // lifetimes 1 .. 2^24, log-uniform, so that every level is used
      const std::uint64_t r = rng();
      const std::uint32_t lifetime = 1 + std::uint32_t((r >> 8) & ((1u << (r % 25)) - 1));
      if (std::uint64_t(now) + lifetime < horizon) {
        due[filed] = now + lifetime;
        pending.insert(now + lifetime);
        q.insert(records.data(), filed, now + lifetime, now);
        ++filed;
      }
    }
  }
  EXPECT_GT(filed, 20'000u * 0.9);
  EXPECT_EQ(returned, filed);
  EXPECT_TRUE(pending.empty());
}

}  // namespace
}  // namespace allocstress
