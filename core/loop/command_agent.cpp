#include "loop/command_agent.h"

#include "loop/agent_factory.h"
#include "loop/shell_command.h"
#include "loop/source_extraction.h"
#include "util/error.h"
#include "util/text.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

#include <unistd.h>

namespace ak {

namespace {

std::string seconds_text(double s) {
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, s, std::chars_format::fixed, 1);
    return std::string(buffer, r.ptr) + " s";
}

std::string read_if_exists(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw Error(ErrorKind::Io, "cannot write " + path.string() + ": " + std::strerror(errno));
}

// The last `n` non-empty lines of `text`, joined by " | ".
std::string tail_lines(std::string_view text, std::size_t n) {
    std::vector<std::string_view> lines;
    for (auto line : split(text, '\n'))
        if (!trim(line).empty()) lines.push_back(trim(line));
    std::string out;
    for (std::size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i)
        out += (out.empty() ? "" : " | ") + std::string(lines[i].substr(0, 300));
    return out;
}

std::string program_of(const std::string& command_template) {
    const auto t = trim(command_template);
    const auto end = t.find_first_of(" \t");
    std::string program(t.substr(0, end));
    if (const auto slash = program.rfind('/'); slash != std::string::npos) program = program.substr(slash + 1);
    return program;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
        text.replace(pos, from.size(), to);
    return text;
}

}  // namespace

std::string expand_command_template(const std::string& command_template, const std::filesystem::path& kernel,
                                    const std::filesystem::path& context, const std::filesystem::path& workdir) {
    std::string out = command_template;
    out = replace_all(std::move(out), "{kernel}", shell_quote(kernel.string()));
    out = replace_all(std::move(out), "{context}", shell_quote(context.string()));
    out = replace_all(std::move(out), "{workdir}", shell_quote(workdir.string()));
    return out;
}

CommandAgent::CommandAgent(CommandSettings settings) : settings_(std::move(settings)) {
    if (trim(settings_.command_template).empty())
        throw Error(ErrorKind::Usage,
                    "the command agent needs a command template, e.g. \"my-agent --file {kernel} --context {context}\"");
    if (settings_.scratch_root.empty()) {
        std::string pattern = (std::filesystem::temp_directory_path() / "autokernel-command-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw Error(ErrorKind::Io, "cannot create a scratch folder " + pattern + ": " + std::strerror(errno));
        root_ = pattern;
        own_root_ = true;
    } else {
        root_ = std::filesystem::absolute(settings_.scratch_root);
        std::error_code ec;
        std::filesystem::create_directories(root_, ec);
        if (ec) throw Error(ErrorKind::Io, "cannot create the scratch folder " + root_.string() + ": " + ec.message());
    }
}

CommandAgent::~CommandAgent() {
    if (own_root_) {
        std::error_code ec;
        std::filesystem::remove_all(root_, ec);
    }
}

std::string CommandAgent::name() const { return "command"; }

void CommandAgent::log(const std::string& line) const {
    if (settings_.log) settings_.log(line);
}

Proposal CommandAgent::propose(const AgentContext& context) {
    Proposal p;
    const std::filesystem::path workdir = root_ / "scratch";
    const std::string file_name =
        context.kernel_file.empty() ? context.kernel.name + ".cu" : std::filesystem::path(context.kernel_file).filename().string();
    const std::filesystem::path kernel = workdir / file_name;
    const std::filesystem::path context_file = workdir / "context.md";
    const std::filesystem::path stdout_log = root_ / "stdout.log";
    const std::filesystem::path stderr_log = root_ / "stderr.log";
    try {
        std::error_code ec;
        std::filesystem::remove_all(workdir, ec);
        std::filesystem::create_directories(workdir, ec);
        if (ec) throw Error(ErrorKind::Io, "cannot create " + workdir.string() + ": " + ec.message());
        write_file(kernel, context.best_source);
        write_file(context_file, context_document(context, settings_.prompt));
    } catch (const std::exception& e) {
        p.failure = std::string("command: ") + e.what();
        return p;
    }

    ShellCommand cmd;
    cmd.command = expand_command_template(settings_.command_template, kernel, context_file, workdir);
    cmd.workdir = workdir;
    cmd.env = {{"AK_KERNEL_FILE", kernel.string()},
               {"AK_CONTEXT_FILE", context_file.string()},
               {"AK_WORKDIR", workdir.string()},
               {"AK_KERNEL_NAME", context.kernel.name},
               {"AK_KERNEL_TYPE", context.kernel.type}};
    cmd.stdout_file = stdout_log;
    cmd.stderr_file = stderr_log;
    cmd.timeout_s = settings_.timeout_s;
    cmd.kill_grace_s = settings_.kill_grace_s;
    log("command: running " + cmd.command + " (timeout " + seconds_text(settings_.timeout_s) + ")");
    const ShellResult run = run_shell_command(cmd);
    const std::string out = read_if_exists(stdout_log);
    const std::string err = read_if_exists(stderr_log);
    const std::string where = "; output in " + stdout_log.string() + " and " + stderr_log.string();

    if (!run.started) {
        p.failure = "command: " + run.error;
        return p;
    }
    if (run.timed_out) {
        p.failure = "command: timed out after " + seconds_text(settings_.timeout_s) + "; its process group was killed" + where;
        return p;
    }
    if (run.signal) {
        p.failure = "command: killed by signal " + std::to_string(*run.signal) + " (" + strsignal(*run.signal) + ")" + where;
        return p;
    }
    if (run.exit_code && *run.exit_code != 0) {
        const std::string last = tail_lines(err.empty() ? out : err, 5);
        p.failure = "command: exited with status " + std::to_string(*run.exit_code) +
                    (last.empty() ? std::string() : ": " + last) + where;
        return p;
    }
    log("command: finished in " + seconds_text(run.seconds) + where);
    std::error_code ec;
    if (!std::filesystem::exists(kernel, ec)) {
        p.failure = "command: the command removed the kernel file " + kernel.string();
        return p;
    }
    std::string candidate = read_if_exists(kernel);
    if (trim(candidate).empty()) {
        p.failure = "command: the command left the kernel file empty";
        return p;
    }
    if (candidate == context.best_source) {
        p.failure = "command: the command left the kernel unchanged";
        return p;
    }
    p.ok = true;
    p.source = std::move(candidate);
    p.description = description_line(out);
    if (p.description.empty()) p.description = "command: " + program_of(settings_.command_template);
    return p;
}

std::unique_ptr<Agent> make_command_agent(const AgentSettings& settings) {
    CommandSettings s;
    s.command_template = settings.command_template;
    s.timeout_s = settings.command_timeout_s;
    if (!settings.session_dir.empty()) s.scratch_root = settings.session_dir / ".autokernel" / "command-agent";
    s.log = settings.log;
    return std::make_unique<CommandAgent>(std::move(s));
}

}  // namespace ak
