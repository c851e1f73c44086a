/* allocstress-safety-probe: which heap misuses does the malloc of this process catch, and does
 * it honour the C library's contract?  The runner preloads one allocator and runs one mode.
 *
 * Model: this process may sit on a broken or hostile malloc, so it allocates nothing except what
 * a case allocates on purpose: no stdio, no locale; every line is formatted on the stack and
 * written with one write(2), unbuffered; every run ends with _exit (no atexit handlers or
 * destructors that could crash after the last line and change the verdict).
 *
 * Contract (stdout lines; the runner parses exactly these):
 *   every mode first:  provider <realpath of the object defining the malloc this process calls>
 *   list:              name TAB group TAB scored(1|0) TAB description    (exit 0)
 *   case NAME:         step setup|misuse|follow|check   (a phase starts; follow/check optional)
 *                      fault target|elsewhere <step> <signo> 0x<addr>   (SIGSEGV/SIGBUS; exit 70)
 *                      outcome silent|error|corrupted <detail>          (last line; exit 0)
 *                      An `error` detail starts with errno's name (or the code returned), "0"
 *                      when unset.  Nothing is ever written to stderr in case mode: stderr is
 *                      the allocator's.  If the allocator aborts, the process just dies.
 *   conformance:       check <kind>, then ok <kind> | fail <kind>: <reason> | skip <kind>: <why>;
 *                      last line `done` (exit 0).  No fault handler: a crash kills the process.
 *   properties:        address, gap, guard, header, freed-link lines, then `done` (exit 0).
 *                      A case runs without address-space randomisation (the probe re-executes
 *                      itself once with ADDR_NO_RANDOMIZE): where a case's outcome hangs on the
 *                      layout (glibc's mangled free-list link, the page before an mmap), the same
 *                      machine then gives the same outcome on every run.  properties keeps it on:
 *                      it measures it.
 *   unknown case NAME: "unknown case NAME; `list` shows them" on stderr, exit 2 (no stdout).
 *   anything else:     a usage line on stderr, exit 2. */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

/* ---- modes ---- */

static void print_list(void) {
  for (size_t i = 0; i < safety_case_count; i++) {
    struct line l;
    line_start(&l, safety_cases[i].name);
    line_str(&l, "\t");
    line_str(&l, safety_cases[i].group);
    line_str(&l, safety_cases[i].scored ? "\t1\t" : "\t0\t");
    line_str(&l, safety_cases[i].description);
    line_emit(&l, STDOUT_FILENO);
  }
}

static _Noreturn void usage(void) {
  struct line l;
  line_start(&l, "usage: allocstress-safety-probe list | case NAME | conformance | properties");
  line_emit(&l, STDERR_FILENO);
  _exit(2);
}

int main(int argc, char** argv) {
  if (argc < 2) usage();
  const char* mode = argv[1];
  resolve_heap();
  if (strcmp(mode, "list") == 0 && argc == 2) {
    print_provider();
    print_list();
    _exit(0);
  }
  if (strcmp(mode, "conformance") == 0 && argc == 2) {
    print_provider();
    run_conformance();
  }
  if (strcmp(mode, "properties") == 0 && argc == 2) {
    print_provider();
    run_properties();
  }
  if (strcmp(mode, "case") != 0 || argc != 3) usage();
  const int persona = personality(0xffffffff);
  if (persona != -1 && (persona & ADDR_NO_RANDOMIZE) == 0 && personality((unsigned long)persona | ADDR_NO_RANDOMIZE) != -1) {
    execv("/proc/self/exe", argv);  /* returns only on failure: then the case runs randomised */
  }
  for (size_t i = 0; i < safety_case_count; i++) {
    if (strcmp(argv[2], safety_cases[i].name) != 0) continue;
    print_provider();
    install_fault_handler();
    safety_cases[i].run();
    outcome("silent", "the case ended without an outcome of its own");
  }
  struct line l;
  line_start(&l, "unknown case ");
  line_str(&l, argv[2]);
  line_str(&l, "; `list` shows them");
  line_emit(&l, STDERR_FILENO);
  _exit(2);
}
