// The ELF program headers of an executable, read for PT_INTERP (see elf_linkage.hpp).
#include "platform/process/elf_linkage.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace allocstress {

namespace {

enum class Linkage { dynamic, static_, unknown };

Linkage elf_linkage(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header)) return Linkage::unknown;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) return Linkage::unknown;
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0) return Linkage::unknown;
  std::vector<Elf64_Phdr> phdrs(header.e_phnum);
  in.seekg(std::streamoff(header.e_phoff));
  if (!in.read(reinterpret_cast<char*>(phdrs.data()), std::streamsize(phdrs.size() * sizeof(Elf64_Phdr)))) return Linkage::unknown;
  for (const Elf64_Phdr& p : phdrs)
    if (p.p_type == PT_INTERP) return Linkage::dynamic;
  return Linkage::static_;
}

}  // namespace

std::string preload_unreachable_reason(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[256] = {};
  in.read(head, sizeof head - 1);
  if (head[0] == '#' && head[1] == '!') {  // a script: its interpreter is what runs
    std::string line(head + 2);
    line = line.substr(0, line.find('\n'));
    const std::size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos) return "";
    const std::string interpreter = line.substr(begin, line.find_first_of(" \t", begin) - begin);
    const std::string why = interpreter == path ? "" : preload_unreachable_reason(interpreter);
    return why.empty() ? "" : path + " runs " + why;
  }
  if (elf_linkage(path) == Linkage::static_)
    return "statically linked: " + path + " has no ELF interpreter (PT_INTERP), so no LD_PRELOAD library, and no allocator but its own, ever runs in it";
  return "";
}

}  // namespace allocstress
