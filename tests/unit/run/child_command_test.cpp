// The command lines of run/'s child processes (run/child_command.hpp): the CLI's syntax, written
// in one place, as the commands in cli/commands/ read it.
#include <gtest/gtest.h>

#include "run/child_command.hpp"

namespace allocstress {
namespace {

using Words = std::vector<std::string>;

TEST(ChildCommand, CellProcess) {
  EXPECT_EQ(run_cell_command("/bin/allocstress", "/tmp/c.json"), (Words{"/bin/allocstress", "run", "--cell", "/tmp/c.json"}));
  EXPECT_EQ(run_cell_command("x", "-", true), (Words{"x", "run", "--cell", "-", "--verify-only"}));
}

TEST(ChildCommand, FingerprintProbe) {
  Cell cell;
  cell.allocator = "jemalloc";
  EXPECT_EQ(probe_one_command("x", cell), (Words{"x", "probe", "--one", "jemalloc"}));
  cell.allocator = "mine";
  cell.manifest = "/m.tsv";
  cell.allocator_library = "/opt/lib.so,MALLOC_CONF=a:1";
  EXPECT_EQ(probe_one_command("x", cell), (Words{"x", "probe", "--one", "mine", "--manifest", "/m.tsv", "--add-allocator=mine=/opt/lib.so,MALLOC_CONF=a:1"}));
}

TEST(ChildCommand, SlurmArrayTask) {
  EXPECT_EQ(slurm_run_cell_command("x", "/r"), (Words{"x", "slurm", "run-cell", "/r"}));
}

TEST(ChildCommand, ThisExecutable) { EXPECT_FALSE(allocstress_executable().empty()); }

TEST(ChildCommand, VerifyOnlyCellCarriesItsAllocator) {
  AllocatorSpec a{"mine", AllocatorKind::drop_in, "/opt/lib.so", "/opt/lib.so", "-", "", "command line", "", {}};
  a.environment = {{"MALLOC_CONF", "a:1"}};
  const Cell cell = verify_only_cell(a);
  EXPECT_EQ(cell.allocator, "mine");
  EXPECT_EQ(cell.allocator_library, "/opt/lib.so,MALLOC_CONF=a:1");
  ASSERT_TRUE(cell.resolved.has_value());
  EXPECT_EQ(cell.resolved->library_path, "/opt/lib.so");
  EXPECT_EQ(cell.workload, "alloc-test");
  EXPECT_EQ(cell.threads, 1u);
}

}  // namespace
}  // namespace allocstress
