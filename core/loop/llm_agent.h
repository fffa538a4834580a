#pragma once
// The LLM agent: asks an OpenAI-compatible chat endpoint (POST {endpoint}/v1/chat/completions: OpenAI,
// vLLM, llama.cpp server, Ollama, ...) for a complete new kernel source.
//
// The prompt comes from prompt_builder.h, the source out of the reply from source_extraction.h.
// Every problem - unreachable endpoint, timeout, HTTP 429/5xx after bounded retries with exponential
// backoff (honouring Retry-After), other HTTP errors, malformed JSON, no choices, no usable code block -
// becomes Proposal{ok = false, failure = "..."} and the loop goes on.
//
// The API key is read from the environment variable named by api_key_env at request time and sent as
// "Authorization: Bearer <key>". It is never stored in the settings, and every text the agent returns
// or logs is scrubbed of it.
#include "loop/agent.h"
#include "loop/prompt_builder.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ak {

struct LlmSettings {
    std::string endpoint;              // http://127.0.0.1:8080, https://api.openai.com, or ending in /v1
    std::string model;
    double temperature = 0.2;
    int max_tokens = 8192;
    double timeout_s = 300;            // one request
    double connect_timeout_s = 10;
    std::string api_key_env;           // name of the environment variable with the key; "" = no key
    int max_retries = 4;               // after HTTP 429 or 5xx
    double backoff_initial_s = 2;      // doubled after each retry
    double backoff_max_s = 60;         // also caps a server's Retry-After
    PromptOptions prompt;
    std::function<void(const std::string&)> log;  // unset: dropped
};

class LlmAgent : public Agent {
public:
    // Throws Error(Usage) when endpoint or model is empty.
    explicit LlmAgent(LlmSettings settings);
    ~LlmAgent() override;

    std::string name() const override;  // "llm:<model>"
    Proposal propose(const AgentContext& context) override;

    const std::string& url() const { return url_; }  // the chat completions URL used

private:
    std::string redact(std::string text, const std::string& key) const;
    void log(const std::string& line, const std::string& key) const;
    LlmSettings settings_;
    std::string url_;
};

// "{endpoint}/v1/chat/completions", accepting endpoints given with or without /v1 (or already ending in
// /chat/completions) and with trailing slashes.
std::string chat_completions_url(std::string_view endpoint);

// The request body: {"model", "messages": [system, user], "temperature", "max_tokens"}.
std::string encode_chat_request(const Prompt& prompt, const LlmSettings& settings);

struct ChatReply {
    bool ok = false;
    std::string content;        // choices[0].message.content
    std::string finish_reason;  // "stop", "length", ...
    std::string failure;        // why !ok
};
// Decodes a chat completions response body.
ChatReply decode_chat_reply(std::string_view body);

}  // namespace ak
