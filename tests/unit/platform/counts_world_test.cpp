// The counts world (platform/profilers/counts_world.hpp): its library goes first in LD_PRELOAD,
// and a process given it reads the same clock and the same random bytes on every run, even with
// libc preloaded after it (the system row of a real program), while other system calls made
// through syscall() still reach the kernel.
#include "platform/profilers/counts_world.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <ctime>
#include <sstream>

namespace allocstress {
namespace {

TEST(CountsWorld, GoesFirstInThePreload) {
  EXPECT_EQ(in_counts_world({}, "/w.so").at("LD_PRELOAD"), "/w.so");
  EXPECT_EQ(in_counts_world({{"LD_PRELOAD", std::nullopt}}, "/w.so").at("LD_PRELOAD"), "/w.so");
  EXPECT_EQ(in_counts_world({{"LD_PRELOAD", ""}}, "/w.so").at("LD_PRELOAD"), "/w.so");
  const EnvironmentChanges env = in_counts_world({{"LD_PRELOAD", "/libc.so.6:/jemalloc.so"}, {"PATH", "/bin"}}, "/w.so");
  EXPECT_EQ(env.at("LD_PRELOAD"), "/w.so:/libc.so.6:/jemalloc.so");
  EXPECT_EQ(env.at("PATH"), "/bin");
}

#ifdef ALLOCSTRESS_ENTROPY_READER
// The reader's lines by their first word.
std::map<std::string, std::string> reading(const EnvironmentChanges& env) {
  const ChildOutcome o = run_child({ALLOCSTRESS_ENTROPY_READER}, env, 30);
  EXPECT_TRUE(o.succeeded()) << describe_failure(o, 30);
  std::map<std::string, std::string> lines;
  std::istringstream in(o.out);
  for (std::string key, value; in >> key && std::getline(in, value);) lines[key] = value.substr(1);
  return lines;
}

// glibc's own file, found from where time() lives in this process.
std::string libc_path() {
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(&::time), &info), 0);
  return info.dli_fname;
}

TEST(CountsWorld, GivesTheSameClockAndRandomBytesOnEveryRun) {
  const EnvironmentChanges world = in_counts_world({{"LD_PRELOAD", libc_path()}}, ALLOCSTRESS_COUNTS_WORLD_LIBRARY);
  const auto one = reading(world), two = reading(world);
  ASSERT_EQ(one.size(), 7u) << "the reader printed other lines";
  EXPECT_EQ(one, two);
  EXPECT_EQ(one.at("time"), "1767225600");  // 2026-01-01T00:00:00Z, with libc preloaded after the world
  EXPECT_EQ(one.at("clock_gettime"), "1767225600");
  // One stream: each request takes the next bytes of it.
  EXPECT_NE(one.at("getrandom"), one.at("getentropy"));
  EXPECT_NE(one.at("getentropy"), one.at("syscall_getrandom"));
  EXPECT_EQ(one.at("syscall_getpid"), "same");
  EXPECT_EQ(one.at("syscall_close"), "-1 EBADF");
}

TEST(CountsWorld, OutsideItTheBytesDifferFromRunToRun) {
  // The reference the test above would fail against: the kernel's randomness, two runs.
  const auto one = reading({}), two = reading({});
  EXPECT_NE(one.at("getrandom"), two.at("getrandom"));
  EXPECT_NE(one.at("syscall_getrandom"), two.at("syscall_getrandom"));
  EXPECT_NE(one.at("time"), "1767225600");
}
#endif

}  // namespace
}  // namespace allocstress
