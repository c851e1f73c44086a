// THP mode names, the `enabled` file, and ThpModeSetting's state file, signal-handler restore and
// crashed-run repair: against a fake transparent_hugepage folder, and as root against the real one
// (restored after each test, and checked to read as before).
#include "platform/memory/thp_mode.hpp"

#include <gtest/gtest.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>

namespace allocstress {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// A fake transparent_hugepage folder whose `enabled` reads "always [madvise] never".
struct FakeThpDir {
  fs::path dir;
  FakeThpDir() {
    char name[] = "/tmp/thp_mode_testXXXXXX";
    dir = ::mkdtemp(name);
    put(dir / "enabled", "always [madvise] never\n");
  }
  ~FakeThpDir() { fs::remove_all(dir); }
  fs::path state() const { return dir / "run" / "thp-restore"; }
  std::string enabled() const { return slurp(dir / "enabled"); }
};

// A child that sets `mode` and waits to be signalled; with `handler`, SIGTERM restores and exits 0.
pid_t child_holding(const fs::path& thp_dir, const fs::path& state, ThpMode mode, bool handler) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    if (handler) ::signal(SIGTERM, [](int) { restore_thp_mode_from_signal_handler(); ::_exit(0); });
    try {
      ThpModeSetting setting(thp_dir, state);
      setting.set(mode);
      if (::write(pipe_fds[1], "x", 1) != 1) ::_exit(2);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(1);
    }
  }
  ::close(pipe_fds[1]);
  char c = 0;
  const bool ready = ::read(pipe_fds[0], &c, 1) == 1;
  ::close(pipe_fds[0]);
  if (!ready) ::waitpid(pid, nullptr, 0);
  return ready ? pid : -1;
}

int end_with(pid_t pid, int sig) {
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(ThpMode, ParsesNamesAndRefusesOthers) {
  for (ThpMode m : {ThpMode::never, ThpMode::madvise, ThpMode::always}) EXPECT_EQ(parse_thp_mode(to_string(m)), m);
  try {
    parse_thp_mode("x");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown THP mode 'x' (accepted: never, madvise, always)");
  }
  EXPECT_THROW(parse_thp_mode("Always"), std::invalid_argument);
}

TEST(ThpMode, ParsesCommaListsWithoutEmptyItemsOrDuplicates) {
  EXPECT_EQ(parse_thp_modes("never,always"), (std::vector{ThpMode::never, ThpMode::always}));
  EXPECT_EQ(parse_thp_modes("madvise"), std::vector{ThpMode::madvise});
  for (const char* bad : {"", "never,,always", "never,", ",never", "never,never", "never,bogus"})
    EXPECT_THROW(parse_thp_modes(bad), std::invalid_argument) << bad;
  try {
    parse_thp_modes("always,never,always");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'always' named twice"), std::string::npos) << e.what();
  }
}

TEST(ThpMode, ReadsTheBracketedWord) {
  EXPECT_EQ(bracketed_choice("always [madvise] never\n"), "madvise");
  EXPECT_EQ(bracketed_choice("always inherit madvise [never]\n"), "never");
  EXPECT_EQ(bracketed_choice("[always] inherit madvise never"), "always");
  EXPECT_EQ(bracketed_choice("always madvise never"), std::nullopt);
  EXPECT_EQ(bracketed_choice("[always] [never]"), std::nullopt);
  EXPECT_EQ(bracketed_choice("always [] never"), std::nullopt);
}

TEST(ThpMode, SystemModeFromAFakeFolder) {
  FakeThpDir fake;
  std::string why;
  EXPECT_EQ(system_thp_mode(&why, fake.dir), ThpMode::madvise) << why;
  put(fake.dir / "enabled", "always madvise never\n");
  EXPECT_EQ(system_thp_mode(&why, fake.dir), std::nullopt);
  EXPECT_NE(why.find("unexpected contents 'always madvise never'"), std::string::npos) << why;
  EXPECT_EQ(system_thp_mode(&why, fake.dir / "absent"), std::nullopt);
  EXPECT_NE(why.find("without transparent huge pages"), std::string::npos) << why;
}

TEST(ThpMode, RefusalExplainsRootAndThePerProcessWay) {
  EXPECT_EQ(thp_refusal(ThpMode::always, true), "");
  const std::string always = thp_refusal(ThpMode::always, false);
  EXPECT_NE(always.find("needs root to write /sys/kernel/mm/transparent_hugepage/enabled"), std::string::npos);
  EXPECT_NE(always.find("PR_SET_THP_DISABLE"), std::string::npos);
  EXPECT_NE(thp_refusal(ThpMode::never, false).find("only per process"), std::string::npos);
}

TEST(ThpMode, DisablingThpForAProcessIsInherited) {
  const pid_t pid = ::fork();  // the flag cannot be cleared by this module: only in a child
  if (pid == 0) {
    if (!disable_thp_for_this_process().empty()) ::_exit(1);
    const pid_t grandchild = ::fork();
    if (grandchild == 0) ::_exit(::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 ? 0 : 2);
    int status = 0;
    ::waitpid(grandchild, &status, 0);
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(ThpModeSetting, WritesTheStateFileBeforeTheChangeAndRestores) {
  FakeThpDir fake;
  ThpModeSetting setting(fake.dir, fake.state());
  setting.set(ThpMode::madvise);  // already so: nothing written
  EXPECT_FALSE(setting.changed());
  EXPECT_FALSE(fs::exists(fake.state()));
  setting.set(ThpMode::always);
  EXPECT_EQ(fake.enabled(), "always\n");
  const std::string state = slurp(fake.state());
  EXPECT_NE(state.find("original madvise\nset always\npid " + std::to_string(::getpid())), std::string::npos) << state;
  setting.set(ThpMode::never);
  EXPECT_NE(slurp(fake.state()).find("original madvise\nset never\n"), std::string::npos);
  EXPECT_EQ(setting.original(), ThpMode::madvise);
  setting.restore();
  EXPECT_EQ(fake.enabled(), "madvise\n");
  EXPECT_FALSE(fs::exists(fake.state()));
  EXPECT_FALSE(setting.changed());
  setting.restore();  // nothing to do
}

TEST(ThpModeSetting, DestructorRestoresAndOneChangeAtATime) {
  FakeThpDir fake;
  {
    ThpModeSetting first(fake.dir, fake.state());
    first.set(ThpMode::never);
    ThpModeSetting second(fake.dir, fake.dir / "other-state");
    EXPECT_THROW(second.set(ThpMode::always), std::runtime_error);
  }
  EXPECT_EQ(fake.enabled(), "madvise\n");
  EXPECT_FALSE(fs::exists(fake.state()));
}

TEST(ThpModeSetting, SignalHandlerRestores) {
  FakeThpDir fake;
  const pid_t pid = child_holding(fake.dir, fake.state(), ThpMode::always, true);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(fake.enabled(), "always\n");
  const int status = end_with(pid, SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(fake.enabled(), "madvise\n");
  EXPECT_FALSE(fs::exists(fake.state()));
}

TEST(ThpModeSetting, NextRunRepairsWhatAKilledRunLeft) {
  FakeThpDir fake;
  EXPECT_EQ(restore_thp_mode_left_by_crashed_run(fake.dir, fake.state()), "");
  const pid_t pid = child_holding(fake.dir, fake.state(), ThpMode::always, true);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(WIFSIGNALED(end_with(pid, SIGKILL)));
  EXPECT_EQ(fake.enabled(), "always\n");
  ASSERT_TRUE(fs::exists(fake.state()));
  EXPECT_EQ(restore_thp_mode_left_by_crashed_run(fake.dir, fake.state()),
            "THP mode restored to madvise (a previous run was stopped while it had set always)");
  EXPECT_EQ(fake.enabled(), "madvise\n");
  EXPECT_FALSE(fs::exists(fake.state()));
  EXPECT_EQ(restore_thp_mode_left_by_crashed_run(fake.dir, fake.state()), "");
}

TEST(ThpModeSetting, RepairLeavesALiveRunAloneAndRefusesMalformedFiles) {
  FakeThpDir fake;
  fs::create_directories(fake.state().parent_path());
  put(fake.state(), "original madvise\nset always\npid " + std::to_string(::getpid()) + "\n");
  const std::string line = restore_thp_mode_left_by_crashed_run(fake.dir, fake.state());
  EXPECT_NE(line.find("still running"), std::string::npos) << line;
  EXPECT_TRUE(fs::exists(fake.state()));
  put(fake.state(), "original sometimes\nset always\npid 1\n");
  EXPECT_THROW(restore_thp_mode_left_by_crashed_run(fake.dir, fake.state()), std::runtime_error);
  put(fake.state(), "garbage\n");
  EXPECT_THROW(restore_thp_mode_left_by_crashed_run(fake.dir, fake.state()), std::runtime_error);
}

// Without permission to write the real file, set() refuses with "needs root" and leaves no state.
// As root the case runs in a child that has dropped to uid/gid 65534 (nobody), so that the refusal
// is tested on every run, CI's included (root would otherwise only ever see the success path).
// The child reports through its exit status: 0 refused as expected, 1 set() succeeded, 2 another
// message, 3 changed() after the refusal, 4 a state file written, 5 no THP here, 6 cannot drop root.
int refuse_without_root(const fs::path& state) {
  ThpModeSetting setting(kThpDir, state);
  const auto now = system_thp_mode();
  if (!now) return 5;
  try {
    setting.set(*now == ThpMode::always ? ThpMode::never : ThpMode::always);
    return 1;
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find("needs root") == std::string::npos) return 2;
  }
  if (setting.changed()) return 3;
  return fs::exists(state) ? 4 : 0;
}

TEST(ThpModeSetting, WithoutRootSetIsRefusedAndLeavesNothing) {
  FakeThpDir state_dir;
  if (::geteuid() != 0) {
    ASSERT_FALSE(can_set_system_thp_mode());
    EXPECT_EQ(refuse_without_root(state_dir.state()), 0);
    return;
  }
  ASSERT_EQ(::chown(state_dir.dir.c_str(), 65534, 65534), 0);  // the child may look inside it
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const gid_t nogroup = 65534;
    if (::setgroups(1, &nogroup) != 0 || ::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) ::_exit(6);
    ::_exit(can_set_system_thp_mode() ? 1 : refuse_without_root(state_dir.state()));
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1 set() succeeded, 2 another message, 3 changed(), 4 a state file, 5 no THP here, 6 cannot drop root";
  EXPECT_FALSE(fs::exists(state_dir.state()));
}

// The real /sys file: root only; whatever happens, it reads as before afterwards.
class RealThpMode : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!can_set_system_thp_mode()) GTEST_SKIP() << thp_refusal(ThpMode::always, false);
    before_ = slurp(kThpDir / "enabled");
    std::string why;
    const auto now = system_thp_mode(&why);
    ASSERT_TRUE(now) << why;
    original_ = *now;
    target_ = original_ == ThpMode::always ? ThpMode::madvise : ThpMode::always;
  }
  void TearDown() override {
    if (before_.empty()) return;
    if (slurp(kThpDir / "enabled") != before_) {
      ADD_FAILURE() << "THP mode not restored: " << slurp(kThpDir / "enabled");
      std::ofstream(kThpDir / "enabled") << to_string(original_);
    }
    EXPECT_EQ(slurp(kThpDir / "enabled"), before_);
  }
  FakeThpDir state_dir_;  // only its state file is used
  std::string before_;
  ThpMode original_ = ThpMode::madvise, target_ = ThpMode::always;
};

TEST_F(RealThpMode, SetThenRestoreGivesTheOriginalBack) {
  ThpModeSetting setting(kThpDir, state_dir_.state());
  setting.set(target_);
  EXPECT_EQ(system_thp_mode(), target_);
  EXPECT_TRUE(fs::exists(state_dir_.state()));
  setting.restore();
  EXPECT_EQ(system_thp_mode(), original_);
  EXPECT_FALSE(fs::exists(state_dir_.state()));
}

TEST_F(RealThpMode, AKilledRunIsRepairedByTheNext) {
  const pid_t pid = child_holding(kThpDir, state_dir_.state(), target_, false);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(WIFSIGNALED(end_with(pid, SIGKILL)));
  EXPECT_EQ(system_thp_mode(), target_);
  EXPECT_EQ(restore_thp_mode_left_by_crashed_run(kThpDir, state_dir_.state()),
            "THP mode restored to " + std::string(to_string(original_)) +
                " (a previous run was stopped while it had set " + std::string(to_string(target_)) + ")");
  EXPECT_EQ(system_thp_mode(), original_);
  EXPECT_FALSE(fs::exists(state_dir_.state()));
}

}  // namespace
}  // namespace allocstress
