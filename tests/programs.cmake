# Real programs as data: `allocstress bench -- CMD` and its server mode (cli/commands/bench_command.cpp),
# with a tiny key-value server and load client of the project's own (support/tiny_*.c).
# Included from tests/CMakeLists.txt after cli_env.
if(NOT ALLOCSTRESS_SANITIZE)
  add_executable(allocstress_test_tiny_server support/tiny_server.c)
  add_executable(allocstress_test_tiny_client support/tiny_client.c)
  set(program_env ${cli_env}
    "STATIC_PROGRAM=$<TARGET_FILE:allocstress_test_static_program>"
    "TINY_SERVER=$<TARGET_FILE:allocstress_test_tiny_server>"
    "TINY_CLIENT=$<TARGET_FILE:allocstress_test_tiny_client>")
  foreach(script bench bench_server)
    add_test(NAME cli.${script} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/${script}.sh)
    set_tests_properties(cli.${script} PROPERTIES ENVIRONMENT "${program_env}" LABELS cli TIMEOUT 600 RUN_SERIAL TRUE)
  endforeach()
endif()
