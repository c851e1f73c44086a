# Tests of trace import, trace-info and the trace reader's bad-input handling (included from
# tests/CMakeLists.txt): unit tests and the CLI script (the reader's and the importers' fuzz
# targets are in fuzz.cmake).
target_sources(allocstress_unit_tests PRIVATE unit/trace/trace_import_test.cpp unit/trace/trace_reader_test.cpp)

if(NOT ALLOCSTRESS_SANITIZE)
  add_test(NAME cli.trace_import COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/traces/trace_import.sh)
  # This file is included before tests/CMakeLists.txt defines cli_env: the script needs only these.
  set_tests_properties(cli.trace_import PROPERTIES
    ENVIRONMENT "ALLOCSTRESS=$<TARGET_FILE:allocstress>;TRACE_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data/traces"
    LABELS cli TIMEOUT 300 RUN_SERIAL TRUE)
endif()
