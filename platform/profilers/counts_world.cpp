// The counts world's library and its place in LD_PRELOAD (counts_world.hpp).
#include "platform/profilers/counts_world.hpp"

#include <stdexcept>

namespace allocstress {

std::filesystem::path counts_world_library() {
  const std::filesystem::path p = beside_this_executable("liballocstress_counts_world.so");
  if (!std::filesystem::exists(p))
    throw std::runtime_error("the counts tier needs " + p.string() +
                             " (its virtual clock and fixed entropy, built with allocstress: cmake --build --preset release)");
  return p;
}

EnvironmentChanges in_counts_world(EnvironmentChanges env, const std::filesystem::path& library) {
  const std::optional<std::string>& preload = env["LD_PRELOAD"];
  env["LD_PRELOAD"] = preload && !preload->empty() ? library.string() + ":" + *preload : library.string();
  return env;
}

}  // namespace allocstress
