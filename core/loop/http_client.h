#pragma once
// A minimal HTTP POST over libcurl for the LLM agent. libcurl stays private to this file's .cpp.
//
// Never throws for network problems: they come back as a failure kind with curl's message, so the
// caller can turn them into a failed proposal and the loop goes on.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ak {

struct HttpRequest {
    std::string url;
    std::vector<std::string> headers;  // "Name: value"
    std::string body;
    double timeout_s = 60;             // the whole transfer (CURLOPT_TIMEOUT)
    double connect_timeout_s = 10;
};

enum class HttpFailure {
    None,               // a status line came back (any status)
    Timeout,            // the transfer took longer than timeout_s
    ConnectionRefused,  // nothing listens at the host and port (or the connect timed out)
    Resolve,            // the host name could not be resolved
    Other,              // TLS, protocol, reset, ...
};

struct HttpResponse {
    HttpFailure failure = HttpFailure::None;
    std::string error;                          // curl's message when failure != None
    long status = 0;
    std::string body;
    std::map<std::string, std::string> headers;  // lower-case names, the final response's headers
    // A header's value ("" when absent); `name` is matched case-insensitively.
    std::string header(std::string_view name) const;
};

// POSTs `request.body` (Content-Type is whatever the headers say). Thread-safe.
HttpResponse http_post(const HttpRequest& request);

// Seconds from a Retry-After header value (delta-seconds form only); negative when absent or in the
// HTTP-date form.
double retry_after_seconds(std::string_view value);

}  // namespace ak
