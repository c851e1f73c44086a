// `allocstress import --format steve|heaptrack INPUT -o OUT.ast [--force]`: one summary line on
// stdout; bad input (missing or malformed input, unknown format, existing output without
// --force, unwritable folder) is one error line and exit 2, with no output file left behind.
#include "cli/commands/import_command.hpp"

#include <unistd.h>

#include <iostream>

#include "trace/import_heaptrack.hpp"
#include "trace/import_steve.hpp"

namespace allocstress {

namespace {

// The output is checked before the input is read, so that a long import does not fail at its end.
void check_output(const std::filesystem::path& path, bool force) {
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw UsageError("output folder " + folder.string() + (std::filesystem::exists(folder, ec) ? " is not a folder" : " does not exist"));
  if (access(folder.c_str(), W_OK) != 0) throw UsageError("output folder " + folder.string() + " is not writable");
  if (std::filesystem::is_directory(path, ec)) throw UsageError("output " + path.string() + " is a folder (accepted: a file name, e.g. OUT.ast)");
  if (std::filesystem::exists(path, ec) && !force)
    throw UsageError("output file " + path.string() + " already exists (pass --force to overwrite, or choose another -o)");
}

}  // namespace

void ImportCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("import", "Convert a trace from another format (steve ops text, heaptrack data) into an allocstress trace");
  cmd->add_option("--format", format, "Input format: steve (ops text: HANDLE N|F|L|U ADDRESS SIZE) or heaptrack (heaptrack.NAME.PID.zst or its text)")
      ->required();
  cmd->add_option("input", input, "The file to convert")->required();
  cmd->add_option("-o,--out", out, "The allocstress trace to write (e.g. OUT.ast)")->required();
  cmd->add_flag("--force", force, "Overwrite OUT if it exists");
}

int ImportCommand::execute() {
  if (format != "steve" && format != "heaptrack") throw UsageError("unknown --format '" + format + "' (accepted: steve, heaptrack)");
  check_output(out, force);
  std::string summary;
  try {
    summary = format == "steve" ? trace::import_steve(input, out, force).summary() : trace::import_heaptrack(input, out, force).summary();
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());  // bad input or an output that cannot be written: nothing was left behind
  }
  std::cout << "imported " << input << " (" << format << ") into " << out << ": " << summary << "\n";
  return 0;
}

}  // namespace allocstress
