// Manifest parsing, library resolution and package versions for the allocator catalogue.
#include "allocator_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "in_tree_registry.hpp"
#include "platform/errors.hpp"
#include "platform/suggest.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

#if defined(__x86_64__)
constexpr const char* kMultiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr const char* kMultiarch = "aarch64-linux-gnu";
#else
constexpr const char* kMultiarch = "";
#endif

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

bool valid_variable(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// A piece of NAME=PATH,... that starts a new setting (else it continues the value before it).
bool starts_setting(const std::string& piece) {
  const auto eq = piece.find('=');
  return eq != std::string::npos && valid_variable(piece.substr(0, eq));
}

constexpr const char* kSettingAccepted =
    "accepted: VAR=VALUE, VAR of letters, digits and '_' not starting with a digit, e.g. MALLOC_CONF=background_thread:true";

void mark_availability(AllocatorSpec& spec) {
  spec.library_path = resolve_library(spec.library).string();
  if (!spec.library_path.empty()) return;
  spec.unavailable_reason = "library " + spec.library + " not found";
  if (spec.package != "-") spec.unavailable_reason += " (install Debian package " + spec.package + ")";
}

}  // namespace

std::pair<std::string, std::string> parse_environment_setting(const std::string& text) {
  const auto eq = text.find('=');
  const std::string name = text.substr(0, eq);
  if (eq == std::string::npos || !valid_variable(name))
    throw std::invalid_argument("'" + text + "' is not an environment setting (" + kSettingAccepted + ")");
  if (name == "LD_PRELOAD" || name == "ALLOCSTRESS_CELL_PRELOAD")
    throw std::invalid_argument("'" + text + "': " + name + " is set by allocstress from the allocator's library (" + kSettingAccepted +
                                ", any variable but LD_PRELOAD and ALLOCSTRESS_CELL_PRELOAD)");
  return {name, text.substr(eq + 1)};
}

AddedAllocatorText parse_added_allocator(const std::string& text) {
  const auto eq = text.find('=');
  const auto comma = text.find(',', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size() || comma == eq + 1)
    throw std::invalid_argument("expected NAME=/path/to/lib.so[,VAR=VALUE...], got '" + text + "'");
  AddedAllocatorText out;
  out.name = text.substr(0, eq);
  out.library = text.substr(eq + 1, comma == std::string::npos ? std::string::npos : comma - eq - 1);
  std::string last;  // the variable a piece without VAR= continues (a value with commas)
  for (std::size_t at = comma; at != std::string::npos;) {
    const std::size_t next = text.find(',', at + 1);
    const std::string piece = text.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next;
    if (!starts_setting(piece) && !last.empty()) {
      out.environment[last] += "," + piece;
      continue;
    }
    auto [name, value] = parse_environment_setting(piece);
    if (out.environment.count(name)) throw std::invalid_argument("'" + text + "' sets " + name + " twice (accepted: each VAR once)");
    out.environment[name] = value;
    last = name;
  }
  return out;
}

std::string added_allocator_value(const AllocatorSpec& spec) {
  std::string out = spec.library_path.empty() ? spec.library : spec.library_path;
  for (const auto& [name, value] : spec.environment) out += "," + name + "=" + value;
  return out;
}

std::string environment_text(const std::map<std::string, std::string>& environment) {
  std::string out;
  for (const auto& [name, value] : environment) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

fs::path default_manifest_path() {
  if (const char* env = std::getenv("ALLOCSTRESS_MANIFEST"); env != nullptr && *env != '\0') return env;
  return ALLOCSTRESS_MANIFEST_DEFAULT;
}

fs::path resolve_library(const std::string& library) {
  std::error_code ec;
  if (library.find('/') != std::string::npos) {
    if (fs::is_regular_file(library, ec)) return fs::canonical(library, ec);
    return {};
  }
  const std::string arch = kMultiarch;
  const std::vector<std::string> dirs = {"/usr/local/lib", "/usr/lib/" + arch, "/lib/" + arch, "/usr/lib64",
                                         "/lib64", "/usr/lib", "/lib"};
  for (const auto& dir : dirs) {
    const fs::path candidate = fs::path(dir) / library;
    if (fs::is_regular_file(candidate, ec)) return fs::canonical(candidate, ec);
  }
  return {};
}

std::string debian_package_version(const std::string& package) {
  if (package.empty() || package == "-") return "unknown";
  for (char c : package)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+')) return "unknown";
  const std::string cmd = "dpkg-query -W -f='${Version}' " + package + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "unknown";
  char buf[256] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  const int rc = pclose(p);
  return rc == 0 && n > 0 ? std::string(buf, n) : "unknown";
}

AllocatorSpec with_installed_version(AllocatorSpec spec) {
  if (spec.kind != AllocatorKind::in_tree) spec.version = debian_package_version(spec.package);
  return spec;
}

AllocatorCatalog::AllocatorCatalog(const fs::path& manifest) : manifest_(manifest) {
  for (const auto& name : in_tree_allocator_names())
    specs_.push_back(AllocatorSpec{name, AllocatorKind::in_tree, "", "", "-", "allocstress " ALLOCSTRESS_VERSION, "in-tree", "", {}});

  std::ifstream in(manifest);
  if (!in) throw std::runtime_error("cannot read allocator manifest " + manifest.string() +
                                    " (set --manifest or ALLOCSTRESS_MANIFEST to a readable file)");
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    AllocatorSpec spec;
    if (!(fields >> spec.name)) continue;  // blank or comment
    const std::string where = manifest.string() + ":" + std::to_string(lineno);
    if (!(fields >> spec.library >> spec.package) || !valid_name(spec.name) || spec.name == kAllAllocators)
      throw std::runtime_error(where + ": expected 'name library debian-package [named-only] [VAR=VALUE ...]' (accepted: a name of letters, digits, _-. other than '" +
                               kAllAllocators + "')");
    std::string setting;
    for (int field = 4; fields >> setting; ++field) try {
        if (setting == kNamedOnlyMark) {
          spec.named_only = true;
          continue;
        }
        auto [name, value] = parse_environment_setting(setting);
        if (!spec.environment.emplace(name, value).second)
          throw std::invalid_argument("'" + setting + "' sets " + name + " a second time (accepted: each VAR once)");
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(where + ": field " + std::to_string(field) + ": " + e.what());
      }
    for (const auto& s : specs_)
      if (s.name == spec.name)
        throw std::runtime_error(where + ": allocator '" + spec.name + "' is declared twice");
    spec.kind = AllocatorKind::drop_in;
    spec.origin = "manifest " + where;
    mark_availability(spec);
    specs_.push_back(std::move(spec));
  }
}

void AllocatorCatalog::add_user_library(const std::string& text) {
  AddedAllocatorText added;
  try {
    added = parse_added_allocator(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("added allocator: ") + e.what());
  }
  AllocatorSpec spec;
  spec.name = added.name;
  spec.library = added.library;
  spec.environment = added.environment;
  if (!valid_name(spec.name) || spec.name == kAllAllocators)
    throw std::invalid_argument("allocator name '" + spec.name + "' may hold only letters, digits, '_', '-', '.' (and is not '" +
                                kAllAllocators + "')");
  for (const auto& s : specs_)
    if (s.name == spec.name)
      throw std::invalid_argument("allocator name '" + spec.name + "' is already taken by " + s.origin +
                                  "; choose another name");
  spec.kind = AllocatorKind::drop_in;
  spec.package = "-";
  spec.origin = "command line";
  mark_availability(spec);
  if (!spec.available())
    throw std::invalid_argument("preload library for '" + spec.name + "' does not exist: " + spec.library +
                                " (accepted: a path to an existing shared library)");
  specs_.push_back(std::move(spec));
}

const AllocatorSpec& AllocatorCatalog::find_or_suggest(const std::string& name, NameIn in) const {
  for (const auto& s : specs_)
    if (s.name == name) return s;
  const std::string all = in == NameIn::kList ? std::string("; or ") + kAllAllocators : std::string();
  throw UsageError(unknown_name_message("allocator", name, names(), all + "; or NAME=/path/lib.so[,VAR=VALUE...]"));
}

std::vector<std::string> AllocatorCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& s : specs_) out.push_back(s.name);
  return out;
}

void check_resolved(const AllocatorSpec& spec) {
  const std::string not_installed = "allocator '" + spec.name + "' is not installed: ";
  if (!spec.available()) throw UsageError(not_installed + spec.unavailable_reason);
  const std::vector<std::string>& in_tree = in_tree_allocator_names();
  if (spec.kind == AllocatorKind::in_tree && std::find(in_tree.begin(), in_tree.end(), spec.name) == in_tree.end())
    throw UsageError(not_installed + "this allocstress has no in-tree backend of that name (plan the matrix again)");
  std::error_code ec;
  if (spec.kind == AllocatorKind::drop_in && (spec.library_path.empty() || !fs::is_regular_file(spec.library_path, ec)))
    throw UsageError(not_installed + "its library " + (spec.library_path.empty() ? spec.library : spec.library_path) +
                     " is gone since the matrix was planned (plan the matrix again)");
}

AllocatorCatalog load_catalog(const std::string& manifest, const std::vector<std::string>& added_libraries) {
  try {
    EqClassAllocator::hot_blocks_from_environment();  // a bad tuning variable is bad input, before anything runs
    AllocatorCatalog catalog(manifest.empty() ? default_manifest_path() : std::filesystem::path(manifest));
    for (const auto& lib : added_libraries) catalog.add_user_library(lib);
    return catalog;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

}  // namespace allocstress
