# Tests of the memory-phase workloads (phase-ramp, phase-plateau, phase-peak; included from
# tests/CMakeLists.txt): the shapes, counts and determinism of the loop, parameter validation, and
# a whole cell's record.
target_sources(allocstress_unit_tests PRIVATE unit/workloads/memory_phases_test.cpp)

# `allocstress run` of each shape on system and pool, determinism and bad parameters.
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.memory_phases COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/workloads/memory_phases.sh)
  set_tests_properties(cli.memory_phases PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>")
endif()
