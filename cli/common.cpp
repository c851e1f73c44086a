// Shared pieces of the CLI commands (see common.hpp).
#include "cli/common.hpp"

#include <cmath>
#include <ctime>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <optional>

#include "platform/durations.hpp"

namespace allocstress {

// Digits only: CLI11 would otherwise read "-1" into an unsigned option as 2^64 - 1.
const CLI::Validator kWholeNumber(
    [](std::string& text) -> std::string {
      if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) return "";
      return "'" + text + "' is not a whole number >= 0";
    },
    "WHOLE NUMBER");

double parse_duration_seconds(const std::string& option, const std::string& text) {
  const std::optional<double> seconds = duration_seconds(text);
  if (!seconds) throw UsageError(option + " '" + text + "' is not a duration (accepted: " + kDurationAccepted + ")");
  return *seconds;
}

void check_new_output_file(const std::filesystem::path& path, bool force) {
  if (path.extension() != ".json") throw UsageError("--out " + path.string() + " must end in .json");
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  if (!std::filesystem::is_directory(folder)) throw UsageError("output folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK) != 0) throw UsageError("output folder " + folder.string() + " is not writable");
  if (std::filesystem::exists(path) && !force)
    throw UsageError("output file " + path.string() + " already exists (pass --force to overwrite, or choose another --out)");
}

bool warn_if_deprecated(const CLI::App& cmd, const std::string& old_flag, const std::string& instead) {
  if (cmd.count(old_flag) == 0) return false;
  std::cerr << "allocstress: warning: " << cmd.get_name() << " " << old_flag << " is deprecated: write " << instead << "\n";
  return true;
}

std::string file_time_stamp() {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  return stamp;
}

}  // namespace allocstress
