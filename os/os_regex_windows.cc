// The OS seam's regular expressions (os.h) on Windows, whose C runtime has no regcomp: std::regex with the
// POSIX extended grammar.
#include <cstdio>
#include <new>
#include <regex>

extern "C" {
#include "os.h"
}

struct ciot_os_regex {
    std::regex re;
};

extern "C" ciot_os_regex *ciot_os_regex_compile(const char *pattern, char *err, size_t len) {
    ciot_os_regex *r = new (std::nothrow) ciot_os_regex;
    if (!r) return std::snprintf(err, len, "out of memory"), nullptr;
    try {
        r->re.assign(pattern, std::regex::extended | std::regex::nosubs);
    } catch (const std::regex_error &e) {
        std::snprintf(err, len, "%s", e.what());
        delete r;
        return nullptr;
    }
    return r;
}

extern "C" int ciot_os_regex_search(const ciot_os_regex *r, const char *text) { return std::regex_search(text, r->re); }

extern "C" void ciot_os_regex_free(ciot_os_regex *r) { delete r; }
