#pragma once
// A tiny real HTTP/1.1 server on 127.0.0.1 for the LLM agent's tests: it listens on a free port, serves
// one connection at a time from a thread, records every request, and answers from a script (one
// scripted response per request; the last one repeats). Connection: close after every response.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ak::test {

struct ScriptedResponse {
    int status = 200;
    std::string body;
    std::vector<std::string> headers;  // extra "Name: value" lines
    double delay_s = 0;                // wait this long before answering
    // When set, the response body is this function of the request's headers (e.g. to echo one back).
    std::string (*body_from_headers)(const std::map<std::string, std::string>& headers) = nullptr;
};

struct ReceivedRequest {
    std::string method;
    std::string path;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
};

class LoopbackHttpServer {
public:
    explicit LoopbackHttpServer(std::vector<ScriptedResponse> script) : script_(std::move(script)) {
        if (script_.empty()) throw std::invalid_argument("LoopbackHttpServer: empty script");
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (listen_fd_ < 0) throw std::runtime_error("socket failed");
        int one = 1;
        ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;  // the kernel picks a free port
        if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 8) != 0) {
            ::close(listen_fd_);
            throw std::runtime_error(std::string("bind/listen failed: ") + std::strerror(errno));
        }
        socklen_t len = sizeof addr;
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }

    ~LoopbackHttpServer() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
        ::close(listen_fd_);
    }

    int port() const { return port_; }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

    std::vector<ReceivedRequest> requests() const {
        std::lock_guard lock(mutex_);
        return requests_;
    }
    std::size_t request_count() const {
        std::lock_guard lock(mutex_);
        return requests_.size();
    }

    // A port on 127.0.0.1 where nothing listens (bound, then closed): connecting is refused.
    static int refused_port() {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        socklen_t len = sizeof addr;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
        ::close(fd);
        return ntohs(addr.sin_port);
    }

private:
    static std::string reason(int status) {
        switch (status) {
        case 200: return "OK";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 429: return "Too Many Requests";
        case 500: return "Internal Server Error";
        case 503: return "Service Unavailable";
        default: return "Status";
        }
    }

    static std::string lower(std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }

    // Reads one request; false when the client went away first.
    bool read_request(int fd, ReceivedRequest& request) {
        std::string data;
        char buffer[8192];
        std::size_t header_end = std::string::npos;
        while (header_end == std::string::npos) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) return false;
            data.append(buffer, static_cast<std::size_t>(n));
            header_end = data.find("\r\n\r\n");
        }
        const std::string head = data.substr(0, header_end);
        std::size_t line_end = head.find("\r\n");
        const std::string request_line = head.substr(0, line_end);
        const auto sp1 = request_line.find(' ');
        const auto sp2 = request_line.find(' ', sp1 + 1);
        request.method = request_line.substr(0, sp1);
        request.path = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
        std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
        while (pos < head.size()) {
            std::size_t end = head.find("\r\n", pos);
            if (end == std::string::npos) end = head.size();
            const std::string line = head.substr(pos, end - pos);
            if (const auto colon = line.find(':'); colon != std::string::npos) {
                std::string value = line.substr(colon + 1);
                while (!value.empty() && value.front() == ' ') value.erase(value.begin());
                request.headers[lower(line.substr(0, colon))] = value;
            }
            pos = end + 2;
        }
        std::size_t length = 0;
        if (auto it = request.headers.find("content-length"); it != request.headers.end()) length = std::stoul(it->second);
        request.body = data.substr(header_end + 4);
        while (request.body.size() < length) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) return false;
            request.body.append(buffer, static_cast<std::size_t>(n));
        }
        return true;
    }

    void serve() {
        while (!stop_) {
            pollfd p{listen_fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            const int fd = ::accept(listen_fd_, nullptr, nullptr);
            if (fd < 0) continue;
            ReceivedRequest request;
            if (read_request(fd, request)) {
                std::size_t index;
                {
                    std::lock_guard lock(mutex_);
                    index = requests_.size();
                    requests_.push_back(request);
                }
                const ScriptedResponse& r = script_[std::min(index, script_.size() - 1)];
                const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(r.delay_s);
                while (!stop_ && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                const std::string body = r.body_from_headers ? r.body_from_headers(request.headers) : r.body;
                std::string response = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
                response += "Content-Type: application/json\r\nConnection: close\r\n";
                response += "Content-Length: " + std::to_string(body.size()) + "\r\n";
                for (const auto& h : r.headers) response += h + "\r\n";
                response += "\r\n" + body;
                std::size_t sent = 0;
                while (sent < response.size()) {
                    const ssize_t n = ::send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
                    if (n <= 0) break;  // the client gave up (timeout): fine
                    sent += static_cast<std::size_t>(n);
                }
            }
            ::close(fd);
        }
    }

    std::vector<ScriptedResponse> script_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::vector<ReceivedRequest> requests_;
    std::thread thread_;
};

}  // namespace ak::test
