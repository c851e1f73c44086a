// The allocstress command lines of child processes (see child_command.hpp).
#include "run/child_command.hpp"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "plan/presets.hpp"
#include "plan/workload_params.hpp"

namespace allocstress {

std::string allocstress_executable() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable via /proc/self/exe: " + ec.message());
  return p.string();
}

std::vector<std::string> run_cell_command(const std::string& executable, const std::string& cell_file, bool verify_only) {
  std::vector<std::string> argv = {executable, "run", "--cell", cell_file};
  if (verify_only) argv.push_back("--verify-only");
  return argv;
}

std::vector<std::string> probe_one_command(const std::string& executable, const Cell& cell) {
  std::vector<std::string> argv = {executable, "probe", "--one", cell.allocator};
  if (!cell.manifest.empty()) argv.insert(argv.end(), {"--manifest", cell.manifest});
  if (!cell.allocator_library.empty()) argv.push_back("--add-allocator=" + cell.allocator + "=" + cell.allocator_library);
  return argv;
}

std::vector<std::string> slurm_run_cell_command(const std::string& executable, const std::string& results_dir) {
  return {executable, "slurm", "run-cell", results_dir};
}

Cell verify_only_cell(const AllocatorSpec& a) {
  Cell cell;
  cell.allocator = a.name;
  if (a.origin == "command line") cell.allocator_library = added_allocator_value(a);
  cell.resolved = a;
  cell.workload = "alloc-test";
  cell.params = workload_params(cell.workload, find_preset("quick").params, {}, {});
  return cell;
}

}  // namespace allocstress
