# Tests of trace capture (owned by that part; included from tests/CMakeLists.txt).
#  - unit: the event codec, TraceWriter -> read_trace round trip (label unit).
#  - cli.trace_capture: the preloaded tracer and `allocstress trace` on test programs whose exact
#    allocation sequence is known (tests/trace/), on real programs (sort, python3), on top of
#    jemalloc, killed, aborted, forked and exec'd (label cli).
target_sources(allocstress_unit_tests PRIVATE unit/trace/trace_codec_test.cpp)

add_executable(allocstress_test_dump_trace trace/dump_trace.cpp)
target_link_libraries(allocstress_test_dump_trace PRIVATE allocstress_trace_io allocstress_warnings)
add_executable(allocstress_test_known_sequence trace/known_sequence.cpp)
target_include_directories(allocstress_test_known_sequence PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(allocstress_test_known_sequence PRIVATE allocstress_warnings Threads::Threads ${CMAKE_DL_LIBS})
# Exact sequences: no optimisation may merge, drop or reorder the allocation calls.  The program
# records the addresses of freed blocks as numbers (never dereferenced): -Wno-use-after-free.
target_compile_options(allocstress_test_known_sequence PRIVATE -O0 -fno-builtin -fsized-deallocation -faligned-new -Wno-use-after-free)

# Process changes and fatal signals (cli.trace_spawn): a C program that vforks, spawns, clones,
# forks, execs and crashes, counting its own marked allocations; an independent counter preloaded
# before the tracer for real programs (gcc, python3).  -O0 -fno-builtin: no malloc/free pair removed.
add_executable(allocstress_test_spawn_helper trace/spawn_helper.c)
target_compile_options(allocstress_test_spawn_helper PRIVATE -O0 -fno-builtin)
add_library(allocstress_test_count_malloc SHARED support/count_malloc.c)
target_link_libraries(allocstress_test_count_malloc PRIVATE ${CMAKE_DL_LIBS})

# (cli_env of tests/CMakeLists.txt is defined after this file is included: the variables this
# test needs are set here.)
if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.trace_capture COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_capture.sh)
  set_tests_properties(cli.trace_capture PROPERTIES LABELS cli TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>;TRACER=$<TARGET_FILE:allocstress_trace>;DUMP_TRACE=$<TARGET_FILE:allocstress_test_dump_trace>;KNOWN_SEQUENCE=$<TARGET_FILE:allocstress_test_known_sequence>")
  add_test(NAME cli.trace_spawn COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_spawn.sh)
  set_tests_properties(cli.trace_spawn PROPERTIES LABELS cli TIMEOUT 600 RUN_SERIAL TRUE ENVIRONMENT
    "ALLOCSTRESS=$<TARGET_FILE:allocstress>;TRACER=$<TARGET_FILE:allocstress_trace>;DUMP_TRACE=$<TARGET_FILE:allocstress_test_dump_trace>;SPAWN_HELPER=$<TARGET_FILE:allocstress_test_spawn_helper>;COUNT_MALLOC=$<TARGET_FILE:allocstress_test_count_malloc>")
endif()
