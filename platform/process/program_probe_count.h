/* What the counting probe (program_probe_count.c) gives the reporting one (program_probe.c),
 * both in liballocstress_probe_count.so: the tally its exit line writes and the resolution of the
 * next malloc family that its constructor runs first. */
#ifndef ALLOCSTRESS_PROGRAM_PROBE_COUNT_H
#define ALLOCSTRESS_PROGRAM_PROBE_COUNT_H

#include <stdatomic.h>

extern atomic_ulong g_calls;  /* allocation calls of this process (relaxed: a tally, no ordering) */
void resolve_next(void);      /* idempotent; the constructor calls it before anything else */

#endif
