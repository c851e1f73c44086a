// AllocatorCatalog: manifest lines, missing libraries with their package, user libraries.
#include "allocators/allocator_catalog.hpp"
#include "platform/errors.hpp"
#include "allocators/in_tree_registry.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace allocstress {
namespace {

namespace fs = std::filesystem;

fs::path write_manifest(const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("allocstress-manifest-" + std::to_string(::getpid()) + ".tsv");
  std::ofstream(p) << text;
  return p;
}

TEST(AllocatorCatalog, InTreeFirstThenManifestInOrder) {
  const auto p = write_manifest("# comment\nsystem libc.so.6 libc6\n\nghost libghost.so.9 libghost9 # trailing\n");
  AllocatorCatalog c(p);
  ASSERT_EQ(c.all().size(), in_tree_allocator_names().size() + 2);
  EXPECT_EQ(c.all()[0].name, "void");
  EXPECT_EQ(c.all()[in_tree_allocator_names().size()].name, "system");  // the manifest's entries follow, in order
  EXPECT_EQ(c.all()[0].kind, AllocatorKind::in_tree);
  EXPECT_TRUE(c.find_or_suggest("system").available());
  EXPECT_EQ(c.find_or_suggest("system").library_path.front(), '/');
  const auto& ghost = c.find_or_suggest("ghost");
  EXPECT_FALSE(ghost.available());
  EXPECT_NE(ghost.unavailable_reason.find("install Debian package libghost9"), std::string::npos) << ghost.unavailable_reason;
  fs::remove(p);
}

TEST(AllocatorCatalog, MalformedLinesNameFileAndLine) {
  const auto p = write_manifest("system libc.so.6 libc6\nbroken onlytwo\n");
  try {
    AllocatorCatalog c(p);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
  const auto d = write_manifest("a libc.so.6 -\na libc.so.6 -\n");
  EXPECT_THROW(AllocatorCatalog{d}, std::runtime_error);
  fs::remove(p);
  EXPECT_THROW(AllocatorCatalog{"/nonexistent/manifest.tsv"}, std::runtime_error);
}

TEST(AllocatorCatalog, UserLibrariesAreCheckedWhenAdded) {
  const auto p = write_manifest("system libc.so.6 libc6\n");
  AllocatorCatalog c(p);
  EXPECT_THROW(c.add_user_library("nolibrary"), std::invalid_argument);
  EXPECT_THROW(c.add_user_library("x=/nonexistent/lib.so"), std::invalid_argument);
  EXPECT_THROW(c.add_user_library("system=/bin/sh"), std::invalid_argument);  // name taken
  EXPECT_THROW(c.add_user_library("bad name=/bin/sh"), std::invalid_argument);
  c.add_user_library("mine=/bin/sh");
  EXPECT_EQ(c.find_or_suggest("mine").origin, "command line");
  EXPECT_THROW(c.find_or_suggest("other"), UsageError);
  fs::remove(p);
}

// An unknown name is refused with the names accepted where it stands: `all` only in a list.
TEST(AllocatorCatalog, UnknownNameOffersAllOnlyInAList) {
  const auto p = write_manifest("system libc.so.6 libc6\n");
  const AllocatorCatalog c(p);
  const auto message = [&](AllocatorCatalog::NameIn in) {
    try {
      c.find_or_suggest("sytem", in);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string one = message(AllocatorCatalog::NameIn::kOne), list = message(AllocatorCatalog::NameIn::kList);
  EXPECT_NE(one.find("unknown allocator 'sytem': did you mean system?"), std::string::npos) << one;
  EXPECT_EQ(one.find("or all"), std::string::npos) << one;
  EXPECT_NE(list.find("; or all; or NAME=/path/lib.so"), std::string::npos) << list;
  fs::remove(p);
}

TEST(AllocatorCatalog, ManifestSettingsMakeAConfiguration) {
  const auto p = write_manifest("system libc.so.6 libc6\none libc.so.6 libc6 GLIBC_TUNABLES=glibc.malloc.arena_max=1 X_Y=a,b:c  EMPTY=\n");
  AllocatorCatalog c(p);
  EXPECT_TRUE(c.find_or_suggest("system").in_default_matrix());
  const AllocatorSpec& one = c.find_or_suggest("one");
  EXPECT_FALSE(one.in_default_matrix());
  const std::map<std::string, std::string> want = {{"GLIBC_TUNABLES", "glibc.malloc.arena_max=1"}, {"X_Y", "a,b:c"}, {"EMPTY", ""}};
  EXPECT_EQ(one.environment, want);
  EXPECT_EQ(environment_text(one.environment), "EMPTY= GLIBC_TUNABLES=glibc.malloc.arena_max=1 X_Y=a,b:c");
  fs::remove(p);
}

TEST(AllocatorCatalog, BadManifestSettingsNameLineAndField) {
  for (const std::string line : {"a libc.so.6 libc6 NOEQUALS", "a libc.so.6 libc6 1X=2", "a libc.so.6 libc6 LD_PRELOAD=/x.so",
                                  "a libc.so.6 libc6 A=1 A=2", "all libc.so.6 libc6"}) {
    const auto p = write_manifest("system libc.so.6 libc6\n" + line + "\n");
    try {
      AllocatorCatalog c(p);
      ADD_FAILURE() << "accepted: " << line;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(":2: "), std::string::npos) << what;
      EXPECT_NE(what.find("accepted"), std::string::npos) << what;
      if (line.find('=') != std::string::npos) {
        EXPECT_NE(what.find("field "), std::string::npos) << what;
      }
    }
    fs::remove(p);
  }
}

TEST(AllocatorCatalog, AddedAllocatorTextSplitsSettingsAndKeepsCommasInValues) {
  const AddedAllocatorText t = parse_added_allocator("je=/usr/lib/x.so,MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0,B=1");
  EXPECT_EQ(t.name, "je");
  EXPECT_EQ(t.library, "/usr/lib/x.so");
  const std::map<std::string, std::string> want = {{"MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0"}, {"B", "1"}};
  EXPECT_EQ(t.environment, want);
  EXPECT_TRUE(parse_added_allocator("plain=/lib.so").environment.empty());
  for (const char* bad : {"noequals", "=/lib.so", "x=", "x=,A=1", "x=/lib.so,notasetting", "x=/lib.so,A=1,A=2", "x=/lib.so,LD_PRELOAD=/y.so",
                          "x=/lib.so,ALLOCSTRESS_CELL_PRELOAD=none", "x=/lib.so,"})
    EXPECT_THROW(parse_added_allocator(bad), std::invalid_argument) << bad;
}

TEST(AllocatorCatalog, AddedConfigurationRoundTripsThroughItsValue) {
  const auto p = write_manifest("system libc.so.6 libc6\n");
  AllocatorCatalog c(p);
  c.add_user_library("cfg=/bin/sh,MALLOC_CONF=a:1,b:2,OTHER=x");
  const AllocatorSpec& cfg = c.find_or_suggest("cfg");
  EXPECT_EQ(cfg.environment.at("MALLOC_CONF"), "a:1,b:2");
  EXPECT_FALSE(cfg.in_default_matrix());
  // The cell encoding carries NAME=<this>: it must read back into the same library and settings.
  const AddedAllocatorText back = parse_added_allocator("cfg=" + added_allocator_value(cfg));
  EXPECT_EQ(back.library, cfg.library_path);
  EXPECT_EQ(back.environment, cfg.environment);
  EXPECT_THROW(c.add_user_library("all=/bin/sh"), std::invalid_argument);
  fs::remove(p);
}

}  // namespace
}  // namespace allocstress
