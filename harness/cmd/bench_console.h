// Google Benchmark's own display, with its "Library was built as DEBUG" warning said once in ciot's words.
#ifndef CIOT_BENCH_CONSOLE_H
#define CIOT_BENCH_CONSOLE_H

#include <benchmark/benchmark.h>

namespace ciot_bench {

// The display reporter the flags choose (CreateDefaultDisplayReporter), whose context block has the
// library's DEBUG warning replaced by what it means here: Debian builds the library without NDEBUG, and
// ciot times every call itself (manual time), so the library's build touches none of the figures.
class Console : public benchmark::BenchmarkReporter {
  public:
    Console();
    bool ReportContext(const Context &context) override;
    void ReportRuns(const std::vector<Run> &runs) override;
    void Finalize() override;

  private:
    benchmark::BenchmarkReporter *inner_;
};

}  // namespace ciot_bench

#endif
