# Tests of the cross-thread workloads xthread and larson (included from tests/CMakeLists.txt):
# the loops and the hand-off queue on real threads (unit), and the cells through the CLI.
target_sources(allocstress_unit_tests PRIVATE unit/workloads/cross_thread_test.cpp unit/workloads/larson_test.cpp)

if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.cross_thread COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/workloads/cross_thread.sh)
  set_tests_properties(cli.cross_thread PROPERTIES LABELS cli TIMEOUT 600 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>")
endif()
