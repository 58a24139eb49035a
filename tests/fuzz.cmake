# Fuzz targets: every tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput and has a seed corpus in
# tests/fuzz/corpus/<name>/. With -DCIOT_FUZZ=ON (the `fuzz` preset: everything compiled with
# -fsanitize=fuzzer-no-link,address,undefined) each becomes a libFuzzer program, all built by the target
# `fuzz` and run by scripts/fuzz. In every other build each becomes fuzz_<name>_corpus, a test that
# replays the committed corpus (natively, under the sanitizers and under qemu).
option(CIOT_FUZZ "Build the libFuzzer targets of tests/fuzz (clang; see the fuzz preset)" OFF)
file(GLOB fuzz_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_*.c)
if(CIOT_FUZZ)
  add_custom_target(fuzz)
endif()
foreach(src IN LISTS fuzz_sources)
  get_filename_component(target ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${target})
  if(CIOT_FUZZ)
    add_executable(${target} EXCLUDE_FROM_ALL ${src})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    add_dependencies(fuzz ${target})
  else()
    set(target ${target}_corpus)
    add_executable(${target} ${src} ${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus_main.c)
    add_test(NAME ${target} COMMAND ${target} ${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus/${name})
    set_tests_properties(${target} PROPERTIES TIMEOUT 300)
  endif()
  target_link_libraries(${target} PRIVATE ciot_cmd)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_LIST_DIR})   # the tests' shared headers
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
endforeach()
