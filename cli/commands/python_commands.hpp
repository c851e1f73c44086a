// The analysis commands (report, compare, fidelity) live in the Python package `allocstress`; the CLI runs
// them with Debian's interpreter and the package from the build tree, or from the install prefix
// beside the executable (<prefix>/lib/python3/dist-packages).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace allocstress {

// Replaces this process with `python3 -m allocstress <command> <args...>`; returns only when that
// cannot start, with the exit code to use (after printing one error line).
int exec_python_command(const std::string& command, const std::vector<std::string>& args);

// The matrix's last step: writes the HTML report of `results_json` into `<stem>-report/` beside
// it.  Returns the report's index.html, or throws std::runtime_error with the reason it could not.
std::filesystem::path produce_report(const std::filesystem::path& results_json);

// After a matrix wrote `results_json`: produces its report and prints where, or prints a note
// saying why not (the results are complete either way).  Returns `exit_code` unchanged.
int report_after_matrix(const std::filesystem::path& results_json, int exit_code);

}  // namespace allocstress
