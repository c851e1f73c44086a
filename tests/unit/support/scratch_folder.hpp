// Test support shared by several layers' unit tests: a GoogleTest fixture whose every test gets a
// fresh, empty folder `dir` (PREFIX then this process's pid, under the temporary folder), removed
// with what it holds when the test ends, passed or not.  A fixture names its prefix in its
// constructor: `JournalTest() : ScratchFolderTest("allocstress-journal-") {}`.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

namespace allocstress::testing {

class ScratchFolderTest : public ::testing::Test {
 protected:
  explicit ScratchFolderTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / (prefix_ + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;

 private:
  std::string prefix_;
};

}  // namespace allocstress::testing
