#include "loop/agent_factory.h"

#include "util/error.h"

namespace ak {

std::vector<std::string> built_agent_kinds() {
    std::vector<std::string> kinds;
#if AK_HAVE_SEARCH_AGENT
    kinds.push_back("search");
#endif
#if AK_HAVE_LLM_AGENT
    kinds.push_back("llm");
#endif
#if AK_HAVE_COMMAND_AGENT
    kinds.push_back("command");
#endif
    return kinds;
}

std::unique_ptr<Agent> make_agent(const AgentSettings& settings) {
    const std::string& kind = settings.kind;
    if (kind == "search") {
#if AK_HAVE_SEARCH_AGENT
        return make_search_agent(settings);
#endif
    } else if (kind == "llm") {
#if AK_HAVE_LLM_AGENT
        return make_llm_agent(settings);
#endif
    } else if (kind == "command") {
#if AK_HAVE_COMMAND_AGENT
        return make_command_agent(settings);
#endif
    } else {
        throw Error(ErrorKind::Usage, "unknown agent '" + kind + "' (use search, llm or command)");
    }
    throw Error(ErrorKind::Usage, "agent " + kind + " is not built yet");
}

}  // namespace ak
