# Tests of the misuse battery, the conformance preflight and the safety properties (included from
# tests/CMakeLists.txt, after cli_env).  Their controls are preloadable libraries (never measured):
# catch_all_malloc catches every misuse of the battery, catch_none_malloc none of them, and
# offset_malloc, built twice, hands out blocks 8 mod 16 (align8) and 1 mod 16 (misalign1), which
# the conformance check must find.  Sanitizer builds have no probe (allocators/CMakeLists.txt).
if(NOT ALLOCSTRESS_SANITIZE)
  add_library(allocstress_test_catch_all_malloc SHARED support/catch_all_malloc.c)
  add_library(allocstress_test_catch_none_malloc SHARED support/catch_none_malloc.c)
  add_library(allocstress_test_align8_malloc SHARED support/offset_malloc.c)
  target_compile_definitions(allocstress_test_align8_malloc PRIVATE OFFSET=8)
  add_library(allocstress_test_misalign1_malloc SHARED support/offset_malloc.c)
  target_compile_definitions(allocstress_test_misalign1_malloc PRIVATE OFFSET=1)
  foreach(control catch_all catch_none align8 misalign1)
    target_link_libraries(allocstress_test_${control}_malloc PRIVATE allocstress_warnings)
    set_target_properties(allocstress_test_${control}_malloc PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  endforeach()

  set(safety_env ${cli_env}
    "CATCH_ALL_MALLOC=$<TARGET_FILE:allocstress_test_catch_all_malloc>"
    "CATCH_NONE_MALLOC=$<TARGET_FILE:allocstress_test_catch_none_malloc>"
    "ALIGN8_MALLOC=$<TARGET_FILE:allocstress_test_align8_malloc>"
    "MISALIGN1_MALLOC=$<TARGET_FILE:allocstress_test_misalign1_malloc>"
    "SAFETY_PROBE=$<TARGET_FILE:allocstress-safety-probe>")

  # The probe itself (no CLI) under both controls, every case, and its conformance check under
  # glibc and the two misaligning allocators.
  add_test(NAME safety.controls COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/safety_controls.sh)
  set_tests_properties(safety.controls PROPERTIES LABELS cli RUN_SERIAL TRUE TIMEOUT 300 ENVIRONMENT "${safety_env}")
endif()

# The battery through the CLI: the controls as added drop-ins, the default allocators twice (the
# same table), the conformance preflight of a matrix, matrix --misuse, and bad input.
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.misuse COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/misuse.sh)
  set_tests_properties(cli.misuse PROPERTIES LABELS cli RUN_SERIAL TRUE TIMEOUT 600 ENVIRONMENT "${safety_env}")
endif()
