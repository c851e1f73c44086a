// Locating the Python package and running its commands.
#include "cli/commands/python_commands.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "platform/process/child_process.hpp"
#include "results/results_output.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

constexpr double kReportTimeoutS = 900;  // a 1,000-cell report takes about 1.3 s here

// The folder that holds the `allocstress` package: the build tree, else the install prefix.
fs::path python_package_root() {
  std::error_code ec;
  const fs::path build_tree = ALLOCSTRESS_PYTHON_BUILD_DIR;
  if (fs::exists(build_tree / "allocstress" / "__init__.py", ec)) return build_tree;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = exe.parent_path().parent_path() / "lib" / "python3" / "dist-packages";
  if (fs::exists(installed / "allocstress" / "__init__.py", ec)) return installed;
  throw std::runtime_error("the Python analysis package is not built (looked in " + build_tree.string() + " and " +
                           installed.string() + "; build with -DALLOCSTRESS_BUILD_PYTHON=ON)");
}

EnvironmentChanges python_environment(const fs::path& root) {
  const char* old = std::getenv("PYTHONPATH");
  return {{"PYTHONPATH", root.string() + (old != nullptr && *old != '\0' ? ":" + std::string(old) : "")},
          {"LD_PRELOAD", std::nullopt}};
}

}  // namespace

int exec_python_command(const std::string& command, const std::vector<std::string>& args) {
  fs::path root;
  try {
    root = python_package_root();
  } catch (const std::runtime_error& e) {
    std::cerr << "allocstress: error: " << e.what() << "\n";
    return 1;
  }
  std::vector<std::string> argv = {ALLOCSTRESS_PYTHON, "-m", "allocstress", command};
  argv.insert(argv.end(), args.begin(), args.end());
  exec_with_environment(argv, python_environment(root));
  std::cerr << "allocstress: error: cannot run " << argv[0] << ": " << std::strerror(errno)
            << " (install Debian's python3; scripts/setup-deps.sh does)\n";
  return 1;
}

fs::path produce_report(const fs::path& results_json) {
  const fs::path root = python_package_root();
  fs::path dir = results_json;
  dir.replace_extension("");
  dir += "-report";
  const ChildOutcome o = run_child({ALLOCSTRESS_PYTHON, "-m", "allocstress", "report", results_json.string(), "-o", dir.string()},
                                   python_environment(root), kReportTimeoutS);
  if (!o.succeeded()) {  // the report's own error line says what failed (e.g. a full disk), without its prefix
    std::string why = o.end == ChildOutcome::End::exited ? o.err : "";
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
    why.erase(0, why.rfind('\n') + 1);  // its last line (npos + 1 = 0: the whole of one line)
    if (why.rfind("allocstress: error: ", 0) == 0) why.erase(0, std::string("allocstress: error: ").size());
    throw std::runtime_error(why.empty() ? describe_failure(o, kReportTimeoutS) : why);
  }
  return dir / "index.html";
}

int report_after_matrix(const fs::path& results_json, int exit_code) {
  if (exit_code != 0) return exit_code;
  try {
    const fs::path report = produce_report(results_json);
    std::cout << "report:  " << report.string() << "\n";
  } catch (const std::exception& e) {
    // The report went to a temporary folder, removed on failure (analysis/allocstress/report.py):
    // nothing half-written is left, and the command below writes it whole.
    std::cerr << "note: the HTML report was not written (" << e.what() << "); the results are safe in " << results_json.string() << " and "
              << table_path_for(results_json).string() << ": `allocstress report " << results_json.string() << "` writes the report\n";
  }
  return exit_code;
}

}  // namespace allocstress
