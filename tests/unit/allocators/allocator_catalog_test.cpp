// AllocatorCatalog: manifest lines, missing libraries with their package, user libraries.
#include "allocators/allocator_catalog.hpp"
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
  EXPECT_TRUE(c.find("system").available());
  EXPECT_EQ(c.find("system").library_path.front(), '/');
  const auto& ghost = c.find("ghost");
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
  EXPECT_EQ(c.find("mine").origin, "command line");
  EXPECT_THROW(c.find("other"), std::invalid_argument);
  fs::remove(p);
}

}  // namespace
}  // namespace allocstress
