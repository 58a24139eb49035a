# GGUF files: tests/gguf/make_gguf.py writes a small model (every ternary type, F32, F16, v2, v3) and broken
# variants into the build tree; the reader's C test and the command tests (tests/gguf/test_gguf.py) read
# them. Under the aarch64 preset the commands run through the cross emulator.
find_program(CIOT_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CIOT_PYTHON3)
  message(WARNING "ciot: /usr/bin/python3 not found: the GGUF tests are not registered")
  return()
endif()
set(gguf_dir ${CMAKE_BINARY_DIR}/gguf-files)
add_test(NAME gguf_files COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/gguf/make_gguf.py --out ${gguf_dir})
set_tests_properties(gguf_files PROPERTIES FIXTURES_SETUP gguf_files)

ciot_test(test_gguf_reader ${CMAKE_CURRENT_LIST_DIR}/test_gguf_reader.c LINK ciot_io)
set_tests_properties(test_gguf_reader PROPERTIES FIXTURES_REQUIRED gguf_files TIMEOUT 600)
set_property(TEST test_gguf_reader APPEND PROPERTY ENVIRONMENT "CIOT_GGUF_DIR=${gguf_dir}")

string(JOIN " " gguf_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
set(gguf_parts list check run broken replay)
if(NOT CMAKE_CROSSCOMPILING)   # bench needs two 1 GiB buffers: natively only, not under the emulator
  list(APPEND gguf_parts bench)
endif()
foreach(part IN LISTS gguf_parts)
  add_test(NAME test_gguf_${part} COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/gguf/test_gguf.py ${part}
           --dir ${gguf_dir} --ciot $<TARGET_FILE:ciot> --emulator "${gguf_emulator}")
  set_tests_properties(test_gguf_${part} PROPERTIES FIXTURES_REQUIRED gguf_files TIMEOUT 900)
endforeach()
