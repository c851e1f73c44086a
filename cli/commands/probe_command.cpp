// `allocstress probe`: the fingerprint of each drop-in allocator (allocator_fingerprint.hpp),
// each measured in its own fresh process under LD_PRELOAD, printed as one table per allocator
// and optionally written as JSON.  In-tree backends are not malloc libraries: their classes are
// documented in their headers.
#include <iostream>
#include <sstream>

#include "allocators/drop_in/allocator_fingerprint.hpp"
#include "platform/process/child_process.hpp"
#include "cli/commands.hpp"
#include "platform/machine_context.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "results/results_journal.hpp"
#include "platform/json_text.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace {

constexpr double kProbeTimeoutS = 120;

std::string bytes_text(const nlohmann::json& v) {
  if (!v.is_number()) return "n/a";
  const auto b = v.get<std::uint64_t>();
  if (b >= (1u << 20) && b % 1024 == 0) return std::to_string(b) + " B (" + std::to_string(b / 1024) + " KiB)";
  return std::to_string(b) + " B";
}

// "24..65544 step 16" for runs of three or more equal steps, else the values.
std::string compact_classes(const nlohmann::json& classes) {
  std::vector<std::uint64_t> v;
  for (const auto& c : classes) v.push_back(c.at("usable").get<std::uint64_t>());
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    while (j + 1 < v.size() + 1 && j < v.size() && v[j] - v[j - 1] == v[i + 1 < v.size() ? i + 1 : i] - v[i]) ++j;
    const std::string sep = out.empty() ? "" : ", ";
    if (j - i >= 3) {
      out += sep + std::to_string(v[i]) + ".." + std::to_string(v[j - 1]) + " step " + std::to_string(v[i + 1] - v[i]);
      i = j;
    } else {
      out += sep + std::to_string(v[i]);
      ++i;
    }
  }
  return out;
}

std::string table_for(const AllocatorSpec& a, const nlohmann::json& fp) {
  std::ostringstream t;
  t << "## " << a.name << " (" << fp.value("malloc_provider", a.library_path) << ", " << a.version << ")\n\n";
  t << "| property | value |\n|---|---|\n";
  t << "| style | " << fp.value("style", "?") << " (" << fp.value("style_evidence", "") << ") |\n";
  t << "| minimum alignment | " << bytes_text(fp["min_alignment"]) << " |\n";
  if (fp["large_threshold_at_start"].is_number()) {
    t << "| large-object threshold at start | " << bytes_text(fp["large_threshold_at_start"]) << " |\n";
    t << "| large-object threshold after freeing a block of " << bytes_text(fp["large_threshold_after_free_of"]) << " | "
      << bytes_text(fp["large_threshold_after_free"]) << " |\n";
  } else {
    t << "| large-object threshold | " << fp.value("large_threshold_reason", "n/a") << " |\n";
  }
  if (fp["size_classes"].is_array()) {
    t << "| size classes up to 64 KiB (" << fp["size_class_count"] << ", usable bytes) | " << compact_classes(fp["size_classes"]) << " |\n";
  } else {
    t << "| size classes | " << fp.value("size_classes_reason", "n/a") << " |\n";
  }
  return t.str() + "\n";
}

}  // namespace

void ProbeCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("probe", "Fingerprint drop-in allocators: size classes, BiBOP or sequential, large-object threshold, alignment");
  cmd->add_option("allocators", names, "Allocators to probe (default: every installed drop-in but the configurations)");
  cmd->add_option("--out", out, "Also write the fingerprints as JSON to this file (.json)");
  cmd->add_flag("--force", force, "Overwrite an existing --out file");
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)");
  cmd->add_option("--add-allocator", added, "Also probe NAME=/path/lib.so (repeatable)");
  cmd->add_option("--allocator", added_old, "Deprecated: use --add-allocator")->group("Deprecated spellings");
  cmd->add_option("--one", one, "(internal) fingerprint this process's malloc as allocator NAME and print JSON")->group("");
}

int ProbeCommand::execute() {
  if (warn_if_deprecated(*cmd, "--allocator", "--add-allocator NAME=/path/lib.so")) added.insert(added.end(), added_old.begin(), added_old.end());
  const AllocatorCatalog catalog = load_catalog(manifest, added);
  if (!one.empty()) {  // the child: LD_PRELOAD is already in place
    const AllocatorSpec& spec = catalog.find_or_suggest(one);
    if (const std::string bad = verify_malloc_provider(spec); !bad.empty()) {
      std::cerr << "allocstress: error: preload verification failed: " << bad << "\n";
      return kExitCellFailed;
    }
    nlohmann::json fp = fingerprint_process_malloc();
    fp["allocator"] = spec.name;
    std::cout << json_text(fp) << std::endl;
    return 0;
  }

  std::vector<const AllocatorSpec*> chosen;
  for (const auto& name : names) {
    const AllocatorSpec& s = catalog.find_or_suggest(name);
    if (s.kind == AllocatorKind::in_tree)
      throw UsageError("'" + name + "' is an in-tree backend, not a malloc library: its size classes are in allocators/" + name +
                       "_allocator.hpp (accepted: drop-in allocators, see allocstress list)");
    if (!s.available()) throw UsageError("allocator '" + name + "' is not installed: " + s.unavailable_reason);
    chosen.push_back(&s);
  }
  for (const auto& lib : added) chosen.push_back(&catalog.find_or_suggest(lib.substr(0, lib.find('='))));
  if (names.empty() && added.empty())
    for (const auto& s : catalog.all())
      if (s.kind == AllocatorKind::drop_in && s.available() && s.in_default_matrix()) chosen.push_back(&s);  // configurations when named
  if (!out.empty()) check_new_output_file(out, force);

  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  nlohmann::json fingerprints = nlohmann::json::array();
  int failures = 0;
  for (const AllocatorSpec* s : chosen) {
    AllocatorSpec spec = *s;
    spec.version = debian_package_version(spec.package);
    std::vector<std::string> argv = {exe, "probe", "--one", spec.name, "--manifest", catalog.manifest_path().string()};
    if (spec.origin == "command line") argv.push_back("--add-allocator=" + spec.name + "=" + added_allocator_value(spec));
    const ChildOutcome o = run_child(argv, preload_environment(spec), kProbeTimeoutS);
    nlohmann::json fp = o.succeeded() ? last_json_line(o.out) : nlohmann::json();
    if (!fp.is_object()) {
      std::cerr << "allocstress: " << spec.name << ": probe failed: " << describe_failure(o, kProbeTimeoutS) << "\n";
      ++failures;
      continue;
    }
    fp["version"] = spec.version;
    std::cout << table_for(spec, fp);
    fingerprints.push_back(std::move(fp));
  }
  if (!out.empty()) {
    const nlohmann::json doc = {{"schema", "allocstress-fingerprints"}, {"schema_version", 1},
                                {"date", iso_utc_now()}, {"fingerprints", fingerprints}};
    write_file_atomically(out, json_text(doc, 2) + "\n");
    std::cout << "fingerprints: " << out << "\n";
  }
  return failures == 0 ? 0 : kExitCellFailed;
}

}  // namespace allocstress
