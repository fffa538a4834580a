#include "engine/candidate_compiler.h"

#include "util/error.h"
#include "util/source_text.h"

#include <algorithm>
#include <cstdio>

namespace ak {

namespace {

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s + "  ";
}

std::string bytes(int n) { return std::to_string(n) + " B"; }

std::string milliseconds(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    return buf;
}

}  // namespace

bool CandidateCompileReport::ok() const {
    return !compiles.empty() && errors.empty() &&
           std::all_of(compiles.begin(), compiles.end(), [](const CandidateCompile& c) { return c.result.ok; });
}

CandidateCompileReport compile_candidate(NvrtcCompiler& compiler, std::string_view source, std::string_view source_name,
                                         const CandidateCompileOptions& options) {
    CandidateCompileReport report;
    report.source_name = std::string(source_name);
    report.arch = options.arch;
    if (const auto problem = source_text_problem(source))
        throw Error(ErrorKind::Usage, report.source_name + ": " + *problem);
    report.contract = parse_contract(source);
    if (!report.contract.ok())
        throw Error(ErrorKind::Usage, "the @autokernel contract of " + report.source_name + " has errors:\n" +
                                          report.contract.error_text(source_name));
    if (options.type && report.contract.type && *options.type != *report.contract.type)
        throw Error(ErrorKind::Usage, report.source_name + ":" + std::to_string(report.contract.type_line) +
                                          ": the source declares type " + std::string(to_string(*report.contract.type)) +
                                          " but " + std::string(to_string(*options.type)) + " was asked for");
    report.type = options.type ? options.type : report.contract.type;
    if (options.dtypes.empty()) throw Error(ErrorKind::Usage, "no dtype to compile " + report.source_name + " for");

    for (DType dtype : options.dtypes) {
        CompileOptions o;
        o.arch = options.arch;
        o.include_dirs.push_back(kernels_include_dir());
        o.include_dirs.insert(o.include_dirs.end(), options.include_dirs.begin(), options.include_dirs.end());
        o.options = contract_options(report.contract, dtype);
        o.options.insert(o.options.end(), options.extra_options.begin(), options.extra_options.end());
        o.use_cache = options.use_cache;
        report.compiles.push_back({dtype, compiler.compile(source, source_name, o)});
    }

    // The launcher looks for extern "C" entry points ak_kernel0 .. ak_kernel3 (contract.cuh).
    for (const auto& c : report.compiles) {
        if (!c.result.ok) continue;
        const bool has_entry = std::any_of(c.result.kernels.begin(), c.result.kernels.end(), [](const KernelResources& k) {
            return k.name.rfind("ak_kernel", 0) == 0;
        });
        if (!has_entry)
            report.errors.push_back(report.source_name + ": no entry point named ak_kernel0..ak_kernel3 for " +
                                    std::string(to_string(c.dtype)) +
                                    ": the launcher only launches extern \"C\" __global__ ak_kernel<i>");
        break;
    }
    return report;
}

CompileRecord to_compile_record(DType dtype, const CompileResult& r) {
    CompileRecord c;
    c.dtype = dtype;
    c.ok = r.ok;
    c.log = r.log;
    c.compile_ms = r.compile_ms;
    c.cache_hit = r.cache_hit != CacheHit::none;
    for (const auto& k : r.kernels) {
        FunctionResources f;
        f.name = k.name;
        f.registers = k.registers;
        f.spill_bytes = k.spill_store_bytes + k.spill_load_bytes;
        f.shared_bytes = k.shared_bytes;
        c.registers = std::max(c.registers, f.registers);
        c.spills = std::max(c.spills, f.spill_bytes);
        c.shared_bytes = std::max(c.shared_bytes, f.shared_bytes);
        c.functions.push_back(std::move(f));
    }
    return c;
}

std::string format_compile_report(const CandidateCompileReport& report, bool include_logs) {
    std::string out = report.source_name + ": ";
    out += report.type ? std::string(to_string(*report.type)) : std::string("no kernel type");
    out += ", " + report.arch;
    if (!report.contract.tunables.empty()) {
        out += ", tunables";
        for (const auto& t : report.contract.tunables) out += " " + t.name + "=" + t.value;
    }
    out += "\n";

    std::size_t width = std::string_view("entry point").size();
    for (const auto& c : report.compiles)
        for (const auto& k : c.result.kernels) width = std::max(width, k.demangled.size());
    out += pad("dtype", 5) + pad("entry point", width) + pad("registers", 9) + pad("spill stores", 12) +
           pad("spill loads", 11) + pad("shared", 8) + pad("stack", 7) + "compile\n";
    for (const auto& c : report.compiles) {
        const std::string dtype(to_string(c.dtype));
        const std::string time = c.result.cache_hit == CacheHit::none ? milliseconds(c.result.compile_ms) : "cached";
        if (!c.result.ok) {
            out += pad(dtype, 5) + "does not compile (" + time + ")\n";
            continue;
        }
        if (c.result.kernels.empty()) out += pad(dtype, 5) + pad("(no __global__ entry points)", width) + "\n";
        for (std::size_t i = 0; i < c.result.kernels.size(); ++i) {
            const auto& k = c.result.kernels[i];
            out += pad(dtype, 5) + pad(k.demangled, width) + pad(std::to_string(k.registers), 9) +
                   pad(bytes(k.spill_store_bytes), 12) + pad(bytes(k.spill_load_bytes), 11) + pad(bytes(k.shared_bytes), 8) +
                   pad(bytes(k.stack_frame_bytes), 7) + (i == 0 ? time : std::string()) + "\n";
        }
    }
    for (const auto& w : report.warnings) out += "warning: " + w + "\n";
    for (const auto& e : report.errors) out += "error: " + e + "\n";
    if (include_logs) {
        for (const auto& c : report.compiles) {
            if (c.result.ok) continue;
            out += "\n" + std::string(to_string(c.dtype)) + " compiler log:\n" + c.result.log;
            if (!c.result.log.empty() && c.result.log.back() != '\n') out += "\n";
        }
    }
    return out;
}

}  // namespace ak
