# Tests of issue 29's input checks and end-of-run findings (included from tests/CMakeLists.txt,
# after cli_env):
#  - cli.plan_validation: plan and cell files checked before anything runs (plan/cell_check.hpp);
#  - cli.count_options: counts on the command line refused as what they are (-3, 1e3, 2.5);
#  - cli.run_lock: a second run on the same --out refused while the first runs;
#  - cli.report_full_disk: a disk that fills during the report (an injected ENOSPC), the results
#    file or the journal (a file size limit): what is safe, and the command that finishes;
#  - cli.trace_exits: exiting threads' last calls, and _exit racing busy threads.
# Units: counts read from JSON, the run lock.
target_sources(allocstress_unit_tests PRIVATE unit/platform/json_numbers_test.cpp unit/platform/process_lock_test.cpp)

# _exit while threads allocate, counting the calls that returned (-O0 -fno-builtin: none dropped).
add_executable(allocstress_test_exit_race trace/exit_race.cpp)
target_link_libraries(allocstress_test_exit_race PRIVATE allocstress_warnings Threads::Threads)
target_compile_options(allocstress_test_exit_race PRIVATE -O0 -fno-builtin)
if(NOT ALLOCSTRESS_SANITIZE)
  foreach(script plan_validation count_options run_lock report_full_disk)
    add_test(NAME cli.${script} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/${script}.sh)
    set_tests_properties(cli.${script} PROPERTIES ENVIRONMENT "${cli_env}" LABELS cli TIMEOUT 600 RUN_SERIAL TRUE)
  endforeach()
  add_test(NAME cli.trace_exits COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_exits.sh)
  set_tests_properties(cli.trace_exits PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>;TRACER=$<TARGET_FILE:allocstress_trace>;DUMP_TRACE=$<TARGET_FILE:allocstress_test_dump_trace>;KNOWN_SEQUENCE=$<TARGET_FILE:allocstress_test_known_sequence>;EXIT_RACE=$<TARGET_FILE:allocstress_test_exit_race>;COUNT_MALLOC=$<TARGET_FILE:allocstress_test_count_malloc>")
endif()
