#include "loop/http_client.h"

#include "util/text.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace ak {

namespace {

constexpr std::size_t kMaxBodyBytes = 64u << 20;  // a chat reply is kilobytes; refuse anything absurd

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* response = static_cast<HttpResponse*>(user);
    const std::size_t bytes = size * count;
    if (response->body.size() + bytes > kMaxBodyBytes) return 0;  // aborts the transfer
    response->body.append(data, bytes);
    return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* response = static_cast<HttpResponse*>(user);
    const std::size_t bytes = size * count;
    const std::string_view line(data, bytes);
    if (starts_with(line, "HTTP/")) {
        response->headers.clear();  // a new response (after 100 Continue or a redirect)
    } else if (const auto colon = line.find(':'); colon != std::string_view::npos) {
        response->headers[lower(trim(line.substr(0, colon)))] = std::string(trim(line.substr(colon + 1)));
    }
    return bytes;
}

struct CurlHandle {
    CURL* curl = curl_easy_init();
    curl_slist* headers = nullptr;
    ~CurlHandle() {
        if (headers) curl_slist_free_all(headers);
        if (curl) curl_easy_cleanup(curl);
    }
};

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
    const auto it = headers.find(lower(name));
    return it == headers.end() ? std::string() : it->second;
}

double retry_after_seconds(std::string_view value) {
    const auto v = parse_double(trim(value));
    return v && *v >= 0 ? *v : -1;
}

HttpResponse http_post(const HttpRequest& request) {
    global_init();
    HttpResponse response;
    CurlHandle h;
    if (!h.curl) {
        response.failure = HttpFailure::Other;
        response.error = "libcurl could not create a handle";
        return response;
    }
    for (const auto& header : request.headers) h.headers = curl_slist_append(h.headers, header.c_str());
    h.headers = curl_slist_append(h.headers, "Expect:");  // no 100-continue round trip
    char error[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(h.curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h.curl, CURLOPT_POST, 1L);
    curl_easy_setopt(h.curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(h.curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(h.curl, CURLOPT_HTTPHEADER, h.headers);
    curl_easy_setopt(h.curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
    curl_easy_setopt(h.curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
    curl_easy_setopt(h.curl, CURLOPT_NOSIGNAL, 1L);  // safe in threads; timeouts still apply
    curl_easy_setopt(h.curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h.curl, CURLOPT_WRITEDATA, &response);
    curl_easy_setopt(h.curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h.curl, CURLOPT_HEADERDATA, &response);
    curl_easy_setopt(h.curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(h.curl, CURLOPT_FOLLOWLOCATION, 0L);  // a POST must not wander off (nor take the key along)
    curl_easy_setopt(h.curl, CURLOPT_USERAGENT, "autokernel-workbench");

    const CURLcode rc = curl_easy_perform(h.curl);
    if (rc != CURLE_OK) {
        switch (rc) {
        case CURLE_OPERATION_TIMEDOUT: response.failure = HttpFailure::Timeout; break;
        case CURLE_COULDNT_CONNECT: response.failure = HttpFailure::ConnectionRefused; break;
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY: response.failure = HttpFailure::Resolve; break;
        default: response.failure = HttpFailure::Other; break;
        }
        response.error = error[0] ? std::string(error) : std::string(curl_easy_strerror(rc));
        while (!response.error.empty() && (response.error.back() == '\n' || response.error.back() == ' '))
            response.error.pop_back();
        if (rc == CURLE_WRITE_ERROR && response.body.size() >= kMaxBodyBytes / 2)
            response.error = "the reply is larger than " + std::to_string(kMaxBodyBytes >> 20) + " MB";
        return response;
    }
    curl_easy_getinfo(h.curl, CURLINFO_RESPONSE_CODE, &response.status);
    return response;
}

}  // namespace ak
