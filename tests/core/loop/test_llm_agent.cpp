// The LLM agent against a real HTTP server on loopback (loopback_http_server.h): good and malformed
// replies, 429 then success, timeouts, 5xx until it gives up, refused connections, and the API key
// never leaving the request.
#include "loop/agent_factory.h"
#include "loop/llm_agent.h"
#include "loopback_http_server.h"

#include "util/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>

namespace ak {
namespace {

using json = nlohmann::json;
using test::LoopbackHttpServer;
using test::ScriptedResponse;

const char* kKeyEnv = "AK_TEST_LLM_KEY";
const char* kKey = "sk-test-5f1e2d3c4b5a69788796a5b4c3d2e1f0";

const std::string kCandidate =
    "// @autokernel type rmsnorm\n"
    "// @autokernel tunable VEC = 8 {1, 2, 4, 8} tier 2 -- elements per load\n"
    "#include <autokernel/contract.cuh>\n"
    "extern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args args) { /* 16-byte loads */ }\n";

std::string chat_body(const std::string& content, const std::string& finish = "stop") {
    json j = {{"id", "chatcmpl-1"},
              {"object", "chat.completion"},
              {"choices", json::array({{{"index", 0},
                                        {"message", {{"role", "assistant"}, {"content", content}}},
                                        {"finish_reason", finish}}})}};
    return j.dump();
}

std::string good_content() {
    return "Vectorise the loads.\n\n```cuda\n" + kCandidate + "```\n\nDESCRIPTION: 16-byte loads (VEC 8)\n";
}

AgentContext make_context() {
    AgentContext c;
    c.kernel = KernelEntry{"rmsnorm", "rmsnorm", "", 0.0};
    c.kernel_file = "kernels/rmsnorm.cu";
    c.best_source = "// @autokernel type rmsnorm\nextern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args a) { /* BEST-SOURCE-MARK */ }\n";
    c.playbook = "# Playbook\nPLAYBOOK-MARK: tier 1 first\n";
    c.contract = "# Contract\nCONTRACT-MARK\n";
    c.roofline = "memory-bound, ROOFLINE-MARK 61% of the copy ceiling";
    c.gpu = "NVIDIA H200";
    c.steering.hint = "HINT-MARK: try keeping the row in registers";
    Experiment e1;
    e1.number = 3;
    e1.outcome = Outcome::Failed;
    e1.correctness = Correctness::Fail;
    e1.description = "HISTORY-MARK-ONE: unrolled by 4";
    c.history.push_back(e1);
    c.failure_details[3] = "compile error: FAILURE-DETAIL-MARK identifier \"x\" is undefined";
    Experiment e2;
    e2.number = 4;
    e2.outcome = Outcome::Kept;
    e2.correctness = Correctness::Pass;
    e2.latency_us = 40.25;
    e2.speedup_vs_pytorch = 1.42;
    e2.description = "HISTORY-MARK-TWO: two rows per block";
    c.history.push_back(e2);
    c.best = e2;
    return c;
}

LlmSettings settings_for(const std::string& endpoint) {
    LlmSettings s;
    s.endpoint = endpoint;
    s.model = "test-model";
    s.timeout_s = 10;
    s.connect_timeout_s = 2;
    s.backoff_initial_s = 0.01;
    s.backoff_max_s = 5;
    return s;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(ChatCompletionsUrl, AcceptsEndpointsWithOrWithoutV1) {
    EXPECT_EQ(chat_completions_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080/v1/chat/completions");
    EXPECT_EQ(chat_completions_url("http://127.0.0.1:8080/"), "http://127.0.0.1:8080/v1/chat/completions");
    EXPECT_EQ(chat_completions_url("https://api.openai.com/v1"), "https://api.openai.com/v1/chat/completions");
    EXPECT_EQ(chat_completions_url("https://api.openai.com/v1/"), "https://api.openai.com/v1/chat/completions");
    EXPECT_EQ(chat_completions_url("http://h:1/v1/chat/completions"), "http://h:1/v1/chat/completions");
}

TEST(DecodeChatReply, ReadsContentAndNamesWhatIsMissing) {
    auto ok = decode_chat_reply(chat_body("hello", "length"));
    EXPECT_TRUE(ok.ok);
    EXPECT_EQ(ok.content, "hello");
    EXPECT_EQ(ok.finish_reason, "length");
    EXPECT_NE(decode_chat_reply("<html>busy</html>").failure.find("not JSON"), std::string::npos);
    EXPECT_NE(decode_chat_reply(R"({"choices":[]})").failure.find("no choices"), std::string::npos);
    EXPECT_NE(decode_chat_reply(R"({"object":"x"})").failure.find("no \"choices\""), std::string::npos);
    EXPECT_NE(decode_chat_reply(R"({"choices":[{"message":{"content":""}}]})").failure.find("empty"), std::string::npos);
    const auto parts = decode_chat_reply(R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]})");
    EXPECT_TRUE(parts.ok);
    EXPECT_EQ(parts.content, "ab");
}

TEST(LlmAgent, GoodReplyBecomesAProposalAndTheRequestCarriesTheWholeContext) {
    LoopbackHttpServer server({ScriptedResponse{200, chat_body(good_content())}});
    ::setenv(kKeyEnv, kKey, 1);
    auto s = settings_for(server.endpoint() + "/v1/");
    s.api_key_env = kKeyEnv;
    s.temperature = 0.4;
    s.max_tokens = 1234;
    LlmAgent agent(s);
    EXPECT_EQ(agent.name(), "llm:test-model");
    const Proposal p = agent.propose(make_context());
    ASSERT_TRUE(p.ok) << p.failure;
    EXPECT_EQ(p.source, kCandidate);
    EXPECT_EQ(p.description, "16-byte loads (VEC 8)");

    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 1u);
    const auto& r = requests[0];
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.path, "/v1/chat/completions");
    EXPECT_EQ(r.headers.at("authorization"), std::string("Bearer ") + kKey);
    EXPECT_EQ(r.headers.at("content-type"), "application/json");
    const json body = json::parse(r.body);
    EXPECT_EQ(body["model"], "test-model");
    EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.4);
    EXPECT_EQ(body["max_tokens"], 1234);
    ASSERT_EQ(body["messages"].size(), 2u);
    EXPECT_EQ(body["messages"][0]["role"], "system");
    EXPECT_EQ(body["messages"][1]["role"], "user");
    const std::string system = body["messages"][0]["content"];
    const std::string user = body["messages"][1]["content"];
    EXPECT_NE(system.find("PLAYBOOK-MARK"), std::string::npos);
    EXPECT_NE(system.find("CONTRACT-MARK"), std::string::npos);
    for (const char* mark : {"BEST-SOURCE-MARK", "HINT-MARK", "HISTORY-MARK-ONE", "HISTORY-MARK-TWO",
                             "FAILURE-DETAIL-MARK", "ROOFLINE-MARK", "NVIDIA H200", "rmsnorm", "```cuda",
                             "DESCRIPTION:", "40.25 us", "1.420x"})
        EXPECT_NE(user.find(mark), std::string::npos) << "the user message lacks " << mark;
    ::unsetenv(kKeyEnv);
}

TEST(LlmAgent, OnlyTheLastTenExperimentsAreSent) {
    LoopbackHttpServer server({ScriptedResponse{200, chat_body(good_content())}});
    AgentContext c = make_context();
    c.history.clear();
    for (int i = 0; i < 14; ++i) {
        Experiment e;
        e.number = i;
        e.outcome = Outcome::Reverted;
        e.description = "exp-desc-" + std::to_string(i) + ";";
        c.history.push_back(e);
    }
    LlmAgent agent(settings_for(server.endpoint()));
    ASSERT_TRUE(agent.propose(c).ok);
    const std::string user = json::parse(server.requests().at(0).body)["messages"][1]["content"];
    EXPECT_EQ(user.find("exp-desc-3;"), std::string::npos);
    EXPECT_NE(user.find("exp-desc-4;"), std::string::npos);
    EXPECT_NE(user.find("exp-desc-13;"), std::string::npos);
}

TEST(LlmAgent, MalformedRepliesFailTheProposalWithAReason) {
    struct Case {
        std::string body;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"this is not json", "not JSON"},
        {R"({"choices": []})", "no choices"},
        {chat_body("I would vectorise the loads, but here is no code."), "no fenced code block"},
        {chat_body("```cuda\n__global__ void my_kernel() {}\n```\n"), "no entry point"},
        {chat_body("```cuda\nextern \"C\" __global__ void ak_kernel0(ak_rmsnorm_args a) {\n", "length"), "cut off"},
    };
    for (const auto& c : cases) {
        LoopbackHttpServer server({ScriptedResponse{200, c.body}});
        LlmAgent agent(settings_for(server.endpoint()));
        const Proposal p = agent.propose(make_context());
        EXPECT_FALSE(p.ok) << c.body;
        EXPECT_NE(p.failure.find(c.expected), std::string::npos) << p.failure;
        EXPECT_TRUE(p.source.empty());
    }
}

TEST(LlmAgent, RetriesAfter429AndHonoursRetryAfter) {
    LoopbackHttpServer server({ScriptedResponse{429, R"({"error":{"message":"rate limited"}})", {"Retry-After: 1"}},
                               ScriptedResponse{200, chat_body(good_content())}});
    std::vector<std::string> logs;
    auto s = settings_for(server.endpoint());
    s.log = [&](const std::string& line) { logs.push_back(line); };
    LlmAgent agent(s);
    const auto start = std::chrono::steady_clock::now();
    const Proposal p = agent.propose(make_context());
    const double took = seconds_since(start);
    ASSERT_TRUE(p.ok) << p.failure;
    EXPECT_EQ(server.request_count(), 2u);
    EXPECT_GE(took, 0.95) << "Retry-After: 1 was not honoured (backoff alone is 0.01 s)";
    bool logged_retry = false;
    for (const auto& l : logs)
        if (l.find("HTTP 429") != std::string::npos && l.find("retry 1 of") != std::string::npos &&
            l.find("rate limited") != std::string::npos)
            logged_retry = true;
    EXPECT_TRUE(logged_retry);
}

TEST(LlmAgent, BacksOffExponentiallyOn5xxAndGivesUpAfterTheRetries) {
    LoopbackHttpServer server({ScriptedResponse{500, R"({"error":{"message":"model overloaded"}})"}});
    auto s = settings_for(server.endpoint());
    s.max_retries = 3;
    s.backoff_initial_s = 0.1;  // waits 0.1 + 0.2 + 0.4 s
    LlmAgent agent(s);
    const auto start = std::chrono::steady_clock::now();
    const Proposal p = agent.propose(make_context());
    const double took = seconds_since(start);
    EXPECT_FALSE(p.ok);
    EXPECT_EQ(server.request_count(), 4u);
    EXPECT_NE(p.failure.find("HTTP 500"), std::string::npos) << p.failure;
    EXPECT_NE(p.failure.find("gave up after 4 attempts"), std::string::npos) << p.failure;
    EXPECT_NE(p.failure.find("model overloaded"), std::string::npos) << p.failure;
    EXPECT_GE(took, 0.65);
    EXPECT_LT(took, 5.0);
}

TEST(LlmAgent, ClientErrorsAreNotRetried) {
    LoopbackHttpServer server({ScriptedResponse{400, R"({"error":{"message":"unknown model test-model"}})"}});
    LlmAgent agent(settings_for(server.endpoint()));
    const Proposal p = agent.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_EQ(server.request_count(), 1u);
    EXPECT_NE(p.failure.find("HTTP 400"), std::string::npos);
    EXPECT_NE(p.failure.find("unknown model test-model"), std::string::npos);
}

TEST(LlmAgent, TimesOutWhenTheServerIsSlowerThanTheTimeout) {
    ScriptedResponse slow{200, chat_body(good_content())};
    slow.delay_s = 4;
    LoopbackHttpServer server({slow});
    auto s = settings_for(server.endpoint());
    s.timeout_s = 0.5;
    LlmAgent agent(s);
    const auto start = std::chrono::steady_clock::now();
    const Proposal p = agent.propose(make_context());
    const double took = seconds_since(start);
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find("within 0.5 s"), std::string::npos) << p.failure;
    EXPECT_NE(p.failure.find(server.endpoint()), std::string::npos) << p.failure;
    EXPECT_LT(took, 3.0);
    EXPECT_EQ(server.request_count(), 1u);  // a timeout is not retried
}

TEST(LlmAgent, UnreachableEndpointNamesTheUrl) {
    const std::string endpoint = "http://127.0.0.1:" + std::to_string(LoopbackHttpServer::refused_port());
    LlmAgent agent(settings_for(endpoint));
    const Proposal p = agent.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find(endpoint + "/v1/chat/completions"), std::string::npos) << p.failure;
    EXPECT_NE(p.failure.find("cannot connect"), std::string::npos) << p.failure;
}

std::string echo_authorization(const std::map<std::string, std::string>& headers) {
    const auto it = headers.find("authorization");
    const std::string auth = it == headers.end() ? "" : it->second;
    return json{{"error", {{"message", "invalid key: " + auth}}}}.dump();
}

std::string echo_authorization_in_content(const std::map<std::string, std::string>& headers) {
    const auto it = headers.find("authorization");
    const std::string auth = it == headers.end() ? "" : it->second;
    return chat_body("```cuda\n// " + auth + "\n" + kCandidate + "```\nDESCRIPTION: uses " + auth + "\n");
}

TEST(LlmAgent, TheApiKeyNeverAppearsInWhatTheAgentReturnsOrLogs) {
    ::setenv(kKeyEnv, kKey, 1);
    std::vector<std::string> seen;  // every text the agent hands out
    auto collect = [&](const Proposal& p) {
        seen.push_back(p.source);
        seen.push_back(p.description);
        seen.push_back(p.failure);
        seen.push_back(p.config_key);
    };
    {
        // A server that echoes the Authorization header in an error, in a 5xx and in a good reply.
        ScriptedResponse unauthorized{401};
        unauthorized.body_from_headers = echo_authorization;
        ScriptedResponse overloaded{503};
        overloaded.body_from_headers = echo_authorization;
        ScriptedResponse echoing{200};
        echoing.body_from_headers = echo_authorization_in_content;
        for (const auto& script : std::vector<std::vector<ScriptedResponse>>{{unauthorized}, {overloaded}, {echoing}}) {
            LoopbackHttpServer server(script);
            auto s = settings_for(server.endpoint());
            s.api_key_env = kKeyEnv;
            s.max_retries = 1;
            s.log = [&](const std::string& line) { seen.push_back(line); };
            LlmAgent agent(s);
            seen.push_back(agent.name());
            seen.push_back(agent.url());
            collect(agent.propose(make_context()));
            // The key did go to the server (so the scan below is meaningful).
            ASSERT_FALSE(server.requests().empty());
            EXPECT_EQ(server.requests()[0].headers.at("authorization"), std::string("Bearer ") + kKey);
        }
    }
    // The good reply was still used, with the key scrubbed.
    bool had_proposal = false;
    for (const auto& text : seen) {
        EXPECT_EQ(text.find(kKey), std::string::npos) << "the key leaked into: " << text;
        if (text.find("[redacted]") != std::string::npos) had_proposal = true;
    }
    EXPECT_TRUE(had_proposal);
    ::unsetenv(kKeyEnv);

    // A missing variable names the variable, not a key.
    LoopbackHttpServer server({ScriptedResponse{200, chat_body(good_content())}});
    auto s = settings_for(server.endpoint());
    s.api_key_env = kKeyEnv;
    LlmAgent agent(s);
    const Proposal p = agent.propose(make_context());
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.failure.find(kKeyEnv), std::string::npos);
    EXPECT_EQ(server.request_count(), 0u);
}

TEST(LlmAgent, RefusesSettingsWithoutEndpointOrModel) {
    LlmSettings s;
    s.model = "m";
    EXPECT_THROW(LlmAgent{s}, Error);
    s.endpoint = "http://127.0.0.1:1";
    s.model = "";
    EXPECT_THROW(LlmAgent{s}, Error);
}

TEST(AgentFactory, MakesTheLlmAgentFromSettings) {
    LoopbackHttpServer server({ScriptedResponse{200, chat_body(good_content())}});
    AgentSettings settings;
    settings.kind = "llm";
    settings.llm_endpoint = server.endpoint();
    settings.llm_model = "factory-model";
    auto agent = make_agent(settings);
    EXPECT_EQ(agent->name(), "llm:factory-model");
    EXPECT_TRUE(agent->propose(make_context()).ok);
    const json body = json::parse(server.requests().at(0).body);
    EXPECT_EQ(body["model"], "factory-model");
    settings.llm_model.clear();
    EXPECT_THROW(make_agent(settings), Error);
}

}  // namespace
}  // namespace ak
