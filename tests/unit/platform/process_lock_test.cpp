// ProcessLock: one holder per lock file, which names it; released (and the file removed) when the
// holder lets go, and taken again then.  flock locks an open file description: a second
// descriptor in this very process is refused like another process would be.
#include "platform/process/process_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace allocstress {
namespace {

TEST(ProcessLock, SecondHolderIsRefusedAndToldTheFirst) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / ("process-lock-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  const std::filesystem::path path = folder / "r.json.lock";
  pid_t holder = -1;
  {
    std::optional<ProcessLock> first = ProcessLock::try_acquire(path, holder);
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(holder, 0);
    std::string text;
    std::getline(std::ifstream(path), text);
    EXPECT_EQ(text, std::to_string(getpid()));
    EXPECT_FALSE(ProcessLock::try_acquire(path, holder).has_value());
    EXPECT_EQ(holder, getpid());
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // released: the file is gone
  EXPECT_TRUE(ProcessLock::try_acquire(path, holder).has_value());
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace allocstress
