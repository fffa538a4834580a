#include "loop/llm_agent.h"

#include "loop/agent_factory.h"
#include "loop/http_client.h"
#include "loop/source_extraction.h"
#include "util/error.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace ak {

namespace {

using json = nlohmann::json;

std::string seconds_text(double s) {
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, s, std::chars_format::fixed, 1);
    return std::string(buffer, r.ptr) + " s";
}

std::string excerpt(std::string_view text, std::size_t max_chars = 300) {
    std::string out(trim(text).substr(0, max_chars));
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();  // whole UTF-8
    std::replace(out.begin(), out.end(), '\n', ' ');
    if (trim(text).size() > max_chars) out += "...";
    return out;
}

// The server's own explanation in an error body ({"error": {"message": ...}} or {"error": "..."}),
// else the body's start.
std::string error_message_of(std::string_view body) {
    try {
        const json j = json::parse(body);
        if (j.is_object() && j.contains("error")) {
            const json& e = j["error"];
            if (e.is_object() && e.contains("message") && e["message"].is_string()) return excerpt(e["message"].get<std::string>());
            if (e.is_string()) return excerpt(e.get<std::string>());
        }
        if (j.is_object() && j.contains("message") && j["message"].is_string()) return excerpt(j["message"].get<std::string>());
    } catch (const json::exception&) {
    }
    return excerpt(body);
}

}  // namespace

std::string chat_completions_url(std::string_view endpoint) {
    std::string url(trim(endpoint));
    while (!url.empty() && url.back() == '/') url.pop_back();
    constexpr std::string_view suffix = "/chat/completions";
    if (url.size() >= suffix.size() && url.compare(url.size() - suffix.size(), suffix.size(), suffix) == 0) return url;
    if (url.size() >= 3 && url.compare(url.size() - 3, 3, "/v1") == 0) return url + std::string(suffix);
    return url + "/v1" + std::string(suffix);
}

std::string encode_chat_request(const Prompt& prompt, const LlmSettings& settings) {
    json j;
    j["model"] = settings.model;
    j["messages"] = json::array({
        {{"role", "system"}, {"content", prompt.system}},
        {{"role", "user"}, {"content", prompt.user}},
    });
    j["temperature"] = settings.temperature;
    j["max_tokens"] = settings.max_tokens;
    j["stream"] = false;
    // Invalid UTF-8 (e.g. a compile log with stray bytes) is replaced rather than aborting the request.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

ChatReply decode_chat_reply(std::string_view body) {
    ChatReply r;
    json j;
    try {
        j = json::parse(body);
    } catch (const json::exception& e) {
        r.failure = "malformed reply: not JSON (" + excerpt(e.what(), 120) + "); it starts with: " + excerpt(body, 120);
        return r;
    }
    if (!j.is_object()) {
        r.failure = "malformed reply: expected a JSON object, got: " + excerpt(body, 120);
        return r;
    }
    if (!j.contains("choices") || !j["choices"].is_array()) {
        r.failure = j.contains("error") ? "the endpoint returned an error: " + error_message_of(body)
                                        : "malformed reply: no \"choices\" array";
        return r;
    }
    const json& choices = j["choices"];
    if (choices.empty()) {
        r.failure = "the reply has no choices (empty \"choices\" array)";
        return r;
    }
    const json& choice = choices[0];
    if (choice.is_object() && choice.contains("finish_reason") && choice["finish_reason"].is_string())
        r.finish_reason = choice["finish_reason"].get<std::string>();
    if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
        r.failure = "malformed reply: choices[0] has no \"message\" object";
        return r;
    }
    const json& message = choice["message"];
    if (message.contains("content") && message["content"].is_string()) {
        r.content = message["content"].get<std::string>();
    } else if (message.contains("content") && message["content"].is_array()) {
        // Content given as parts: [{"type": "text", "text": "..."}].
        for (const json& part : message["content"])
            if (part.is_object() && part.contains("text") && part["text"].is_string()) r.content += part["text"].get<std::string>();
    }
    if (trim(r.content).empty()) {
        r.failure = "the reply's message is empty" +
                    (r.finish_reason.empty() ? std::string() : " (finish_reason: " + r.finish_reason + ")");
        return r;
    }
    r.ok = true;
    return r;
}

LlmAgent::LlmAgent(LlmSettings settings) : settings_(std::move(settings)) {
    if (trim(settings_.endpoint).empty())
        throw Error(ErrorKind::Usage, "the LLM agent needs an endpoint (e.g. http://127.0.0.1:8080 or https://api.openai.com)");
    if (trim(settings_.model).empty()) throw Error(ErrorKind::Usage, "the LLM agent needs a model name");
    if (settings_.max_retries < 0) settings_.max_retries = 0;
    url_ = chat_completions_url(settings_.endpoint);
}

LlmAgent::~LlmAgent() = default;

std::string LlmAgent::name() const { return "llm:" + settings_.model; }

std::string LlmAgent::redact(std::string text, const std::string& key) const {
    if (key.empty()) return text;
    for (std::size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos))
        text.replace(pos, key.size(), "[redacted]");
    return text;
}

void LlmAgent::log(const std::string& line, const std::string& key) const {
    if (settings_.log) settings_.log(redact(line, key));
}

Proposal LlmAgent::propose(const AgentContext& context) {
    Proposal p;
    // The key lives only in this function's locals and the request's header list.
    std::string key;
    if (!settings_.api_key_env.empty()) {
        const char* value = std::getenv(settings_.api_key_env.c_str());
        if (!value || !*value) {
            p.failure = "llm: the environment variable " + settings_.api_key_env +
                        " (api_key_env) is not set; export the API key there";
            return p;
        }
        key = value;
    }
    auto fail = [&](const std::string& why) {
        Proposal failed;
        failed.failure = redact("llm: " + why, key);
        return failed;
    };

    const Prompt prompt = build_prompt(context, settings_.prompt);
    HttpRequest request;
    request.url = url_;
    request.headers = {"Content-Type: application/json", "Accept: application/json"};
    if (!key.empty()) request.headers.push_back("Authorization: Bearer " + key);
    request.body = encode_chat_request(prompt, settings_);
    request.timeout_s = settings_.timeout_s;
    request.connect_timeout_s = settings_.connect_timeout_s;
    log("llm: asking " + settings_.model + " at " + url_ + " (" + std::to_string(request.body.size()) + " bytes of prompt)", key);

    double backoff = settings_.backoff_initial_s;
    HttpResponse response;
    for (int attempt = 0;; ++attempt) {
        const auto started = std::chrono::steady_clock::now();
        response = http_post(request);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        switch (response.failure) {
        case HttpFailure::None: break;
        case HttpFailure::Timeout:
            return fail("no reply from " + url_ + " within " + seconds_text(settings_.timeout_s) +
                        " (timeout_s); the request was abandoned");
        case HttpFailure::ConnectionRefused:
            return fail("cannot connect to " + url_ + ": " + response.error + " (is the server running?)");
        case HttpFailure::Resolve: return fail("cannot resolve the host of " + url_ + ": " + response.error);
        case HttpFailure::Other: return fail("request to " + url_ + " failed: " + response.error);
        }
        const bool retryable = response.status == 429 || (response.status >= 500 && response.status <= 599);
        if (!retryable) {
            log("llm: HTTP " + std::to_string(response.status) + " from " + url_ + " after " + seconds_text(took), key);
            break;
        }
        if (attempt >= settings_.max_retries)
            return fail("HTTP " + std::to_string(response.status) + " from " + url_ + ", gave up after " +
                        std::to_string(attempt + 1) + " attempts: " + error_message_of(response.body));
        double wait = backoff;
        const double retry_after = retry_after_seconds(response.header("Retry-After"));
        if (retry_after >= 0) wait = std::max(wait, retry_after);
        wait = std::min(wait, settings_.backoff_max_s);
        log("llm: HTTP " + std::to_string(response.status) + " from " + url_ + " (" + error_message_of(response.body) +
                "); retry " + std::to_string(attempt + 1) + " of " + std::to_string(settings_.max_retries) + " in " +
                seconds_text(wait),
            key);
        std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, wait)));
        backoff = std::min(backoff * 2, settings_.backoff_max_s);
    }

    if (response.status < 200 || response.status > 299)
        return fail("HTTP " + std::to_string(response.status) + " from " + url_ + ": " + error_message_of(response.body));
    const ChatReply reply = decode_chat_reply(response.body);
    if (!reply.ok) return fail(reply.failure + " (from " + url_ + ")");
    ExtractedSource extracted = extract_source(reply.content, "llm: " + settings_.model + " proposal");
    if (!extracted.ok) {
        std::string why = extracted.failure;
        if (reply.finish_reason == "length") why += " (finish_reason: length, the reply hit max_tokens)";
        return fail(why);
    }
    p.ok = true;
    p.source = redact(std::move(extracted.source), key);
    p.description = redact(std::move(extracted.description), key);
    log("llm: proposal: " + p.description, key);
    return p;
}

std::unique_ptr<Agent> make_llm_agent(const AgentSettings& settings) {
    LlmSettings s;
    s.endpoint = settings.llm_endpoint;
    s.model = settings.llm_model;
    s.api_key_env = settings.llm_key_env;
    s.timeout_s = settings.llm_timeout_s;
    s.temperature = settings.llm_temperature;
    s.max_tokens = settings.llm_max_tokens;
    s.log = settings.log;
    return std::make_unique<LlmAgent>(std::move(s));
}

}  // namespace ak
