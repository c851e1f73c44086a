// The allocator a matrix resolves once and carries in its cells (cells/cell.hpp Cell::resolved,
// plan/cell_encoding.hpp "resolved_allocator"): it survives the cell file, the cell process runs
// it without loading a catalogue, and a bad or stale one is refused with one line.
#include <gtest/gtest.h>

#include "plan/cell_check.hpp"
#include "plan/cell_encoding.hpp"
#include "platform/errors.hpp"
#include "run/child_command.hpp"

namespace allocstress {
namespace {

// The catalogue's system allocator, as the planner resolves it.
AllocatorSpec system_allocator() {
  AllocatorSpec a = load_catalog("", {}).find_or_suggest("system");
  a.version = "2.41-1";
  a.nonconforming = "";
  a.environment = {{"GLIBC_TUNABLES", "glibc.malloc.arena_max=2"}};
  return a;
}

std::string refusal(const Cell& cell) {
  try {
    CellChecker().check(cell_to_json(cell), "cell");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ResolvedAllocator, SurvivesTheCellFile) {
  const AllocatorSpec a = system_allocator();
  const Cell cell = verify_only_cell(a);
  const Cell back = cell_from_json(nlohmann::json::parse(cell_to_json(cell).dump()));
  ASSERT_TRUE(back.resolved.has_value());
  EXPECT_EQ(to_json(*back.resolved), to_json(a));
  EXPECT_EQ(cell_to_json(back), cell_to_json(cell));
}

TEST(ResolvedAllocator, UsedWithoutLoadingTheCatalogue) {
  Cell cell = verify_only_cell(system_allocator());
  cell.manifest = "/nonexistent/manifest.tsv";  // loading it would fail
  const CheckedCell checked = CellChecker().check(cell_to_json(cell), "cell");
  EXPECT_EQ(checked.allocator.name, "system");
  EXPECT_EQ(checked.allocator.environment, system_allocator().environment);
}

TEST(ResolvedAllocator, ACellWithoutOneIsLookedUp) {
  Cell cell = verify_only_cell(system_allocator());
  cell.resolved.reset();
  EXPECT_EQ(CellChecker().check(cell_to_json(cell), "cell").allocator.kind, AllocatorKind::drop_in);
  cell.allocator = "jemaloc";
  EXPECT_NE(refusal(cell).find("unknown allocator 'jemaloc': did you mean jemalloc?"), std::string::npos) << refusal(cell);
}

TEST(ResolvedAllocator, StaleLibraryRefused) {
  AllocatorSpec a = system_allocator();
  a.library_path = "/nonexistent/libc.so.6";
  EXPECT_EQ(refusal(verify_only_cell(a)),
            "cell: allocator 'system' is not installed: its library /nonexistent/libc.so.6 is gone since the matrix was planned (plan the matrix again)");
}

TEST(ResolvedAllocator, UnknownInTreeBackendRefused) {
  AllocatorSpec a{"nosuch", AllocatorKind::in_tree, "", "", "-", "", "in-tree", "", {}};
  EXPECT_EQ(refusal(verify_only_cell(a)),
            "cell: allocator 'nosuch' is not installed: this allocstress has no in-tree backend of that name (plan the matrix again)");
}

TEST(ResolvedAllocator, MalformedRefused) {
  nlohmann::json j = cell_to_json(verify_only_cell(system_allocator()));
  j["resolved_allocator"]["kind"] = "plugin";
  try {
    cell_from_json(j, "cell");
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cell: 'resolved_allocator' is not an allocator as a plan resolves it (\"kind\" is \"plugin\" (accepted: in_tree or drop_in)", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  j["resolved_allocator"] = 3;
  EXPECT_THROW(cell_from_json(j, "cell"), UsageError);
}

}  // namespace
}  // namespace allocstress
