// Test support for the workloads' unit tests: two runs of a thread's loop made the same
// operations -- the same op stream hash, malloc and free counts, and peak and end live requested
// bytes (AllocTestThreadOutcome, workloads/alloc_test.hpp).
#pragma once

#include <gtest/gtest.h>

#include "workloads/alloc_test.hpp"

namespace allocstress::testing {

inline void expect_same_stream(const AllocTestThreadOutcome& a, const AllocTestThreadOutcome& b) {
  EXPECT_EQ(a.op_stream_hash, b.op_stream_hash);
  EXPECT_EQ(a.mallocs, b.mallocs);
  EXPECT_EQ(a.frees, b.frees);
  EXPECT_EQ(a.peak_live_requested_bytes, b.peak_live_requested_bytes);
  EXPECT_EQ(a.end_live_requested_bytes, b.end_live_requested_bytes);
}

}  // namespace allocstress::testing
