# The plot scripts (plots/): every plot on a synthetic run folder and on the committed reference runs,
# plotted values against the raw JSON, broken inputs. Python + matplotlib run on the build machine,
# so only the native Release build runs it (under qemu or the sanitizers it would only repeat itself).
if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_plots COMMAND ${PROJECT_SOURCE_DIR}/plots/test-plots)
  # COST: the longest test starts first, so the other core runs the rest beside it (a fresh clone has no
  # timings of its own for ctest to order by)
  set_tests_properties(test_plots PROPERTIES TIMEOUT 900 COST 1000)
endif()
