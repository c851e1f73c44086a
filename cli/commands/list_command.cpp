// `allocstress list`: every allocator the catalogue knows, whether it can run here, and why not.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "allocators/drop_in/malloc_provider.hpp"

namespace allocstress {

void ListCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("list", "List allocators: found, or missing and why");
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)");
  cmd->add_option("--add-allocator", added, "Also list NAME=/path/lib.so[,VAR=VALUE...] (repeatable)");
  cmd->add_option("--allocator", added_old, "Deprecated: use --add-allocator")->group("Deprecated spellings");
}

int ListCommand::execute() {
  if (warn_if_deprecated(*cmd, "--allocator", "--add-allocator NAME=/path/lib.so")) added.insert(added.end(), added_old.begin(), added_old.end());
  const AllocatorCatalog catalog = load_catalog(manifest, added);
  std::cout << "manifest: " << catalog.manifest_path().string() << "\n";
  std::printf("%-18s %-8s %-9s %-12s %s\n", "allocator", "kind", "status", "version", "library / reason");
  for (const auto& s : catalog.all()) {
    const bool in_tree = s.kind == AllocatorKind::in_tree;
    const std::string version = in_tree ? "-" : debian_package_version(s.package);
    std::string where = in_tree ? "(in-tree backend)" : s.library_path;
    if (!in_tree && s.available() && required_preload(s).empty()) where += " (no preload: the process's own malloc)";
    if (!s.environment.empty()) where += " + " + environment_text(s.environment) + " (configuration: runs when named)";
    if (s.named_only) where += " (named-only: runs when named)";
    std::printf("%-18s %-8s %-9s %-12s %s\n", s.name.c_str(), in_tree ? "in-tree" : "drop-in",
                s.available() ? "found" : "missing", version.c_str(),
                s.available() ? where.c_str() : s.unavailable_reason.c_str());
  }
  std::cout << "configurations (a library with settings) run when --allocators names them, or with --allocators " << kAllAllocators
            << "; the default matrix runs the others\n";
  return 0;
}

}  // namespace allocstress
