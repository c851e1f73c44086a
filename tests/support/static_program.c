/* A statically linked program (built with -static): LD_PRELOAD never runs in it, so `bench`
   and the program cells must refuse it with the reason before measuring anything. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  char* p = malloc(64);
  puts(p != NULL ? "static program ran" : "no memory");
  free(p);
  return 0;
}
