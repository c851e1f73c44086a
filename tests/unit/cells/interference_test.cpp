// The disturbance rules of a measured phase (cells/modes/interference.hpp).
#include "cells/modes/interference.hpp"

#include <gtest/gtest.h>

namespace allocstress {
namespace {

// Workers that never waited and spent `off` of their 100 ms run() off their CPU.
PhaseMeasurement workers_off_cpu(std::size_t n, double off) {
  PhaseMeasurement m;
  m.wall_ns = 100'000'000;
  for (std::size_t i = 0; i < n; ++i) {
    WorkerTiming w;
    w.run_ns = 100'000'000;
    w.cpu_ns = std::uint64_t(double(w.run_ns) * (1.0 - off));
    m.workers.push_back(w);
  }
  return m;
}

TEST(Interference, AWorkerAloneOnItsPuOffItForLongIsDisturbed) {
  const auto r = interference_record(workers_off_cpu(2, 0.5), {0, 1});
  EXPECT_TRUE(r.at("disturbed").get<bool>()) << r.dump();
  EXPECT_EQ(r.at("disturbed_by").size(), 2u) << r.dump();
  EXPECT_TRUE(r.at("not_judged").is_null()) << r.dump();
  EXPECT_FALSE(interference_record(workers_off_cpu(2, 0.02), {0, 1}).at("disturbed").get<bool>());
}

// More workers than PUs: siblings take turns on a PU by design, so their time off it is not
// judged (the rocksdb replay's 37 threads on 2 PUs were all "disturbed" before); said in not_judged.
TEST(Interference, WorkersSharingAPuAreNotJudgedByTheOffCpuRule) {
  const auto r = interference_record(workers_off_cpu(3, 0.6), {0, 1, 0});
  EXPECT_EQ(r.at("disturbed_by").size(), 1u) << r.dump();  // worker 1 has PU 1 to itself
  EXPECT_NE(r.at("disturbed_by").front().get<std::string>().find("worker 1 "), std::string::npos) << r.dump();
  EXPECT_NE(r.at("not_judged").get<std::string>().find("2 of 3 workers"), std::string::npos) << r.dump();
  EXPECT_FALSE(interference_record(workers_off_cpu(4, 0.6), {0, 1, 0, 1}).at("disturbed").get<bool>());
}

TEST(Interference, StealIsJudgedEvenWhenWorkersShareAPu) {
  PhaseMeasurement m = workers_off_cpu(4, 0.6);
  m.steal_ns = 50'000'000;  // 50 ms of 4 x 100 ms: above 2%
  const auto r = interference_record(m, {0, 1, 0, 1});
  EXPECT_TRUE(r.at("disturbed").get<bool>()) << r.dump();
  EXPECT_NE(r.at("disturbed_by").front().get<std::string>().find("hypervisor stole"), std::string::npos) << r.dump();
}

}  // namespace
}  // namespace allocstress
