// A record's key and name (cells/record_identity.hpp): the name of each mode, the key read back
// from a record and from its aggregate, and that keys tell cells apart.
#include "cells/record_identity.hpp"

#include <gtest/gtest.h>

#include <set>

namespace allocstress {
namespace {

Cell cell(CellMode mode, unsigned threads = 2) {
  Cell c;
  c.workload = "alloc-test";
  c.allocator = "jemalloc";
  c.threads = threads;
  c.mode = mode;
  return c;
}

TEST(RecordIdentity, NameOfEachMode) {
  EXPECT_EQ(record_name(cell(CellMode::timing)), "alloc-test/jemalloc/threads:2");
  EXPECT_EQ(record_name(cell(CellMode::simulate)), "alloc-test/jemalloc/threads:2/cache-sim");
  EXPECT_EQ(record_name(cell(CellMode::counts, 1)), "alloc-test/jemalloc/threads:1/counts");
  Cell thp = cell(CellMode::thp);
  thp.thp_mode = "always";
  EXPECT_EQ(record_name(thp), "alloc-test/jemalloc/threads:2/thp:always");
  Cell aged = cell(CellMode::aged);
  aged.age = "16M,keep=0.25";
  EXPECT_EQ(record_name(aged), "alloc-test/jemalloc/threads:2/aged");
  aged.age = "16M,keep=0";  // the control
  EXPECT_EQ(record_name(aged), "alloc-test/jemalloc/threads:2/aged:warmed");
  EXPECT_EQ(record_key(aged).instance, "warmed");
  EXPECT_EQ(name_suffix(aged), "/aged:warmed");
  EXPECT_EQ(record_name(RecordKey{"bintree", kBaselineAllocator, 1}), "bintree/void/threads:1");
}

TEST(RecordIdentity, KeyOfARecordMatchesItsCell) {
  Cell thp = cell(CellMode::thp);
  thp.thp_mode = "madvise";
  const nlohmann::json record = {{"workload", "alloc-test"}, {"allocator", "jemalloc"}, {"threads", 2}, {"mode", "thp"},
                                 {"name", record_name(thp)}};
  EXPECT_EQ(record_key(record), record_key(thp));
  // an aggregate: its name carries the statistic, its run_name the cell's name
  const nlohmann::json median = {{"workload", "alloc-test"}, {"allocator", "jemalloc"}, {"threads", 2}, {"mode", "timing"},
                                 {"name", "alloc-test/jemalloc/threads:2_median"}, {"run_name", "alloc-test/jemalloc/threads:2"}};
  EXPECT_EQ(record_key(median), record_key(cell(CellMode::timing)));
  // an old record without a mode is a timing record
  EXPECT_EQ(record_key(nlohmann::json{{"workload", "alloc-test"}, {"allocator", "jemalloc"}, {"threads", 2}}).mode, "timing");
}

TEST(RecordIdentity, KeysTellCellsApart) {
  Cell always = cell(CellMode::thp), never = cell(CellMode::thp);
  always.thp_mode = "always";
  never.thp_mode = "never";
  const std::set<RecordKey> keys = {record_key(cell(CellMode::timing)), record_key(cell(CellMode::timing, 4)),
                                    record_key(cell(CellMode::counts)), record_key(always), record_key(never)};
  EXPECT_EQ(keys.size(), 5u);
  std::set<std::string> names;
  for (const RecordKey& k : keys) names.insert(record_name(k));
  EXPECT_EQ(names.size(), keys.size());  // a name is unique to its key
  EXPECT_THROW(record_name(RecordKey{"alloc-test", "system", 1, "no-such-mode"}), std::invalid_argument);
}

}  // namespace
}  // namespace allocstress
