# The plot scripts (plots/): every plot on a synthetic run folder and on the committed reference runs,
# plotted values against the raw JSON, broken inputs. Python + matplotlib run on the build machine,
# so only native builds run it (an aarch64 build's tests run under qemu, which has nothing to add here).
if(NOT CMAKE_CROSSCOMPILING)
  add_test(NAME plots COMMAND ${PROJECT_SOURCE_DIR}/plots/test-plots)
  set_tests_properties(plots PROPERTIES TIMEOUT 900)
endif()
