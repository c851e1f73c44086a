// Workload instance names BASE:LABEL (cells/workload_registry.hpp): the entry is BASE's, a bad
// label or an unknown base is refused with what is accepted.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cells/workload_registry.hpp"

namespace allocstress {
namespace {

TEST(WorkloadLabel, AnInstanceFindsItsBaseEntry) {
  EXPECT_EQ(find_workload("replay:prog-python3"), find_workload("replay"));
  EXPECT_EQ(&workload_entry("alloc-test:a.b_c-1"), &workload_entry("alloc-test"));
  EXPECT_EQ(workload_base_name("fitted:prog-cc1"), "fitted");
  EXPECT_EQ(workload_label("fitted:prog-cc1"), "prog-cc1");
  EXPECT_EQ(workload_label("fitted"), "");
  EXPECT_EQ(workload_base_name("fitted"), "fitted");
}

TEST(WorkloadLabel, BadLabelsAndUnknownBasesAreRefused) {
  for (const char* name : {"replay:", "replay:a/b", "replay:a b", "replay:a:b"}) EXPECT_EQ(find_workload(name), nullptr) << name;
  EXPECT_EQ(find_workload("replay:" + std::string(65, 'x')), nullptr);
  EXPECT_NE(find_workload("replay:" + std::string(64, 'x')), nullptr);
  try {
    workload_entry("replay:a/b");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad workload label in 'replay:a/b'"), std::string::npos) << e.what();
  }
  try {
    workload_entry("nosuch:x");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown workload 'nosuch:x'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace allocstress
