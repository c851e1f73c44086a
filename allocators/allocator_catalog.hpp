// The catalogue of allocators a run can measure: in-tree backends (compiled in, see
// in_tree_registry.hpp), drop-in libraries declared in allocators/manifest.tsv, and drop-ins the
// user names on the command line as NAME=/path/lib.so[,VAR=VALUE...].  Drop-ins are data, never code.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
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
  // Non-empty: the drop-in breaks malloc's contract (allocators/safety/conformance.hpp), and how;
  // filled by the matrix planner.  It is measured, but left out of the rankings.
  std::string nonconforming;
  // A configuration: variables its cells start with, next to LD_PRELOAD (MALLOC_CONF=..., GLIBC_TUNABLES=...).
  std::map<std::string, std::string> environment;
  // Marked `named-only` in the manifest: runs when named (or with `--allocators all`) only.
  bool named_only = false;

  bool available() const { return unavailable_reason.empty(); }
  // Configurations and named-only allocators run when named (or with `--allocators all`), not in
  // the default matrix.
  bool in_default_matrix() const { return environment.empty() && !named_only; }
};

// The manifest field that keeps an allocator out of the default matrix (scudo: it cannot run
// under valgrind, so the default matrix's counts tier would fail for it).
inline constexpr const char* kNamedOnlyMark = "named-only";

// `--allocators all`: every allocator of the catalogue, configurations included.
inline constexpr const char* kAllAllocators = "all";

// One VAR=VALUE setting of a configuration.  Throws std::invalid_argument naming the text and
// what is accepted (VAR: letters, digits, '_', not starting with a digit; not LD_PRELOAD nor
// ALLOCSTRESS_CELL_PRELOAD, which allocstress sets itself).
std::pair<std::string, std::string> parse_environment_setting(const std::string& text);

// NAME=PATH[,VAR=VALUE...] as --add-allocator takes it: a value may hold commas
// (MALLOC_CONF=a:1,b:2), a piece that is not VAR=VALUE continuing the value before it.
// Returns {NAME, PATH, settings}; throws std::invalid_argument naming what is wrong.
struct AddedAllocatorText {
  std::string name, library;
  std::map<std::string, std::string> environment;
};
AddedAllocatorText parse_added_allocator(const std::string& text);

// The text after NAME= that parse_added_allocator reads back into `spec`'s library and environment.
std::string added_allocator_value(const AllocatorSpec& spec);
// One line for people: "VAR=VALUE VAR=VALUE" ("" for none).
std::string environment_text(const std::map<std::string, std::string>& environment);

class AllocatorCatalog {
 public:
  // Reads the manifest.  Throws std::runtime_error naming the file and line on a malformed line.
  explicit AllocatorCatalog(const std::filesystem::path& manifest);

  // Adds `NAME=/path/lib.so[,VAR=VALUE...]` from the command line.  Throws std::invalid_argument when
  // the text is not that, the name is already taken, or the path does not name an existing file.
  void add_user_library(const std::string& name_equals_path);

  // Every allocator in catalogue order: in-tree first, then manifest, then command line.
  const std::vector<AllocatorSpec>& all() const { return specs_; }
  // Where a name stands: alone (`run --allocator`, a cell file), or in a list that also takes `all`.
  enum class NameIn { kOne, kList };
  // The one lookup of a name, for every check of one (CLI flags, plan files, cell files): the
  // allocator, or a UsageError in the CLI's style, "unknown allocator 'jemaloc': did you mean
  // jemalloc? (accepted: void, ...; or NAME=/path/lib.so[,VAR=VALUE...])" (platform/suggest.hpp),
  // whose accepted list offers `all` where the name stands in a list (kList).
  const AllocatorSpec& find_or_suggest(const std::string& name, NameIn in = NameIn::kOne) const;
  // Every name, in catalogue order.
  std::vector<std::string> names() const;

  const std::filesystem::path& manifest_path() const { return manifest_; }

 private:
  std::filesystem::path manifest_;
  std::vector<AllocatorSpec> specs_;
};

// A resolution made elsewhere (the planner's, carried in a matrix's cells: cells/cell.hpp), still
// true here.  Throws UsageError "allocator 'X' is not installed: ..." when it cannot run (its
// reason), its library is gone since, or its in-tree backend is not one of this build's.
void check_resolved(const AllocatorSpec& spec);

// The manifest used when none is given: $ALLOCSTRESS_MANIFEST, else the one in the source tree.
std::filesystem::path default_manifest_path();

// Resolves a library file name against the system library directories (absolute paths are
// checked as they are).  Returns the canonical path, or an empty path when not found.
std::filesystem::path resolve_library(const std::string& library);

// The installed version of a Debian package ("unknown" when dpkg does not know it or for "-").
std::string debian_package_version(const std::string& package);

// `spec` as a cell carries it: with its version (an in-tree backend's own, a drop-in's installed
// Debian package version).  The planner and `run` resolve through this one function, so that a
// cell planned by `matrix` and the same cell given as `run` flags hold the same allocator -- the
// counts tier depends on it: the cell file's length moves the measured process's heap.
AllocatorSpec with_installed_version(AllocatorSpec spec);

// The catalogue of `manifest` ("" = the default), plus allocators added as NAME=PATH[,VAR=VALUE...], after
// checking the in-tree backends' tuning variables.  Every problem is a UsageError
// (platform/errors.hpp): bad input, one line.
AllocatorCatalog load_catalog(const std::string& manifest, const std::vector<std::string>& added_libraries);

}  // namespace allocstress
