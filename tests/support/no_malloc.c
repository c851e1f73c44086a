/* A shared library that defines no malloc: preloading it must fail the harness's preload check. */
int allocstress_test_library_without_malloc(void) { return 42; }
