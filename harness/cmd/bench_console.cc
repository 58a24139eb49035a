// Google Benchmark's display with its DEBUG warning said in ciot's words (bench_console.h).
#include "bench_console.h"

#include <sstream>
#include <string>

namespace ciot_bench {

Console::Console() : inner_(benchmark::CreateDefaultDisplayReporter()) {}

bool Console::ReportContext(const Context &context) {
    inner_->SetOutputStream(&GetOutputStream());
    std::ostringstream held;
    inner_->SetErrorStream(&held);
    const bool ok = inner_->ReportContext(context);
    inner_->SetErrorStream(&GetErrorStream());
    std::istringstream lines(held.str());
    for (std::string line; std::getline(lines, line);) {
        if (line.find("Library was built as DEBUG") != std::string::npos)
            line = "ciot bench: this Google Benchmark library was built without NDEBUG (as Debian builds it); ciot times "
                   "every call itself and hands the library that time (manual time), so its build does not touch "
                   "these figures";
        GetErrorStream() << line << '\n';
    }
    return ok;
}

void Console::ReportRuns(const std::vector<Run> &runs) { inner_->ReportRuns(runs); }

void Console::Finalize() { inner_->Finalize(); }

}  // namespace ciot_bench
