// Whether LD_PRELOAD can reach a program: a dynamically linked ELF executable names an
// interpreter (the dynamic loader, PT_INTERP), which is what reads LD_PRELOAD; a statically linked
// one has none, so a preloaded allocator never runs in it.  A script ("#!") is judged by its
// interpreter.
#pragma once

#include <string>

namespace allocstress {

// Why a preloaded library cannot reach `path` ("statically linked: ... has no ELF interpreter,
// so LD_PRELOAD never runs in it"), or "" when it can (or when this cannot tell: not ELF, not
// readable -- the run itself says more).
std::string preload_unreachable_reason(const std::string& path);

}  // namespace allocstress
