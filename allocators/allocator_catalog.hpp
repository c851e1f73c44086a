// The catalogue of allocators a run can measure: in-tree backends (compiled in, see
// in_tree_registry.hpp), drop-in libraries declared in allocators/manifest.tsv, and drop-ins the
// user names on the command line as NAME=/path/lib.so.  Drop-ins are data, never code.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace allocstress {

enum class AllocatorKind { in_tree, drop_in };

struct AllocatorSpec {
  std::string name;
  AllocatorKind kind = AllocatorKind::in_tree;
  std::string library;       // drop-in: as declared (file name or absolute path)
  std::string library_path;  // drop-in: resolved canonical path; empty when not found
  std::string package;       // Debian package the library comes from, or "-"
  std::string version;       // package version, filled by the matrix planner ("" until then)
  std::string origin;        // "in-tree", "manifest <file>:<line>", or "command line"
  std::string unavailable_reason;  // non-empty: cannot run here, and why

  bool available() const { return unavailable_reason.empty(); }
};

class AllocatorCatalog {
 public:
  // Reads the manifest.  Throws std::runtime_error naming the file and line on a malformed line.
  explicit AllocatorCatalog(const std::filesystem::path& manifest);

  // Adds `NAME=/path/lib.so` from the command line.  Throws std::invalid_argument when the text is
  // not NAME=PATH, the name is already taken, or the path does not name an existing file.
  void add_user_library(const std::string& name_equals_path);

  // Every allocator in catalogue order: in-tree first, then manifest, then command line.
  const std::vector<AllocatorSpec>& all() const { return specs_; }
  // Throws std::invalid_argument naming the unknown allocator and listing the known ones.
  const AllocatorSpec& find(const std::string& name) const;
  std::string known_names() const;

  const std::filesystem::path& manifest_path() const { return manifest_; }

 private:
  std::filesystem::path manifest_;
  std::vector<AllocatorSpec> specs_;
};

// The manifest used when none is given: $ALLOCSTRESS_MANIFEST, else the one in the source tree.
std::filesystem::path default_manifest_path();

// Resolves a library file name against the system library directories (absolute paths are
// checked as they are).  Returns the canonical path, or an empty path when not found.
std::filesystem::path resolve_library(const std::string& library);

// The installed version of a Debian package ("unknown" when dpkg does not know it or for "-").
std::string debian_package_version(const std::string& package);

// The catalogue of `manifest` ("" = the default), plus allocators added as NAME=PATH, after
// checking the in-tree backends' tuning variables.  Every problem is a UsageError
// (platform/errors.hpp): bad input, one line.
AllocatorCatalog load_catalog(const std::string& manifest, const std::vector<std::string>& added_libraries);

}  // namespace allocstress
