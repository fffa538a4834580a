#include "profile/profile_json.h"

#include "profile/json_value.h"

#include "util/durable_file.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <sys/stat.h>
#include <unordered_map>

// The layout (docs/profile-json.md): small objects for the origin, iterations, overhead and ceilings;
// the bulk (ops, kernels, memory records) as one JSON array per record, one record a line, with every
// string (kernel names, op names, module paths, NVTX ranges, dtypes) interned in the top-level
// "strings" table. A 50,000-kernel profile is about 5 MB and parses in a fraction of a second.

namespace ak::profile {
namespace {

using nlohmann::json;

// Column names of the record arrays, written into the file and checked on reading.
constexpr std::array<std::string_view, 7> kOpColumns{"id", "name", "stack", "module_path", "nvtx_range", "iteration",
                                                     "inputs"};
constexpr std::array<std::string_view, 22> kKernelColumns{
    "name",        "start_ns",       "end_ns",          "device",        "stream",   "grid_x",
    "grid_y",      "grid_z",         "block_x",         "block_y",       "block_z",  "cluster_x",
    "cluster_y",   "cluster_z",      "registers",       "static_smem",   "dynamic_smem", "correlation_id",
    "op_id",       "nvtx_range",     "graph_id",        "iteration"};
constexpr std::array<std::string_view, 7> kMemoryColumns{"kind", "bytes", "start_ns", "end_ns", "stream", "op_id",
                                                         "iteration"};
// One op input: [dtype, sizes, strides, values].
constexpr std::array<std::string_view, 4> kInputColumns{"dtype", "sizes", "strides", "values"};

// ---------------------------------------------------------------- writing

// Interns strings in first-seen order.
class StringTable {
public:
    std::size_t index(const std::string& s) {
        const auto [it, inserted] = index_.try_emplace(s, strings_.size());
        if (inserted) strings_.push_back(s);
        return it->second;
    }
    const std::vector<std::string>& strings() const { return strings_; }

private:
    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::string> strings_;
};

// A JSON string literal; invalid UTF-8 is replaced (U+FFFD) rather than failing the whole write.
std::string quoted(const std::string& s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

template <class Int>
void put_int(std::string& out, Int value) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

void put_columns(std::string& out, std::string_view key, auto const& columns) {
    out += "  \"";
    out += key;
    out += "\": [";
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i) out += ", ";
        out += '"';
        out += columns[i];
        out += '"';
    }
    out += "],\n";
}

void put_int_list(std::string& out, const std::vector<std::int64_t>& values) {
    out += '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        put_int(out, values[i]);
    }
    out += ']';
}

void put_optional_id(std::string& out, const std::optional<std::uint64_t>& id) {
    if (id)
        put_int(out, *id);
    else
        out += "null";
}

nlohmann::ordered_json origin_json(const Origin& o) {
    nlohmann::ordered_json j;
    j["kind"] = std::string(to_string(o.kind));
    j["model"] = o.model;
    j["inputs"] = o.inputs;
    j["command"] = o.command;
    j["batch"] = o.batch;
    j["seq"] = o.seq;
    j["dtype"] = o.dtype;
    j["mode"] = o.mode;
    j["warmup_iterations"] = o.warmup_iterations;
    j["measured_iterations"] = o.measured_iterations;
    j["gpu_name"] = o.gpu_name;
    j["driver_version"] = o.driver_version;
    j["cuda_version"] = o.cuda_version;
    j["torch_version"] = o.torch_version;
    j["tool_version"] = o.tool_version;
    j["recorded_utc"] = o.recorded_utc;
    return j;
}

std::string dump(const nlohmann::ordered_json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string to_json(const Profile& p) {
    StringTable strings;
    std::string ops, kernels, memory;

    // Records first (they fill the string table), then the file in its documented order.
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
        const OpCall& op = p.ops[i];
        ops += i ? ",\n    [" : "\n    [";
        put_int(ops, op.id);
        ops += ',';
        put_int(ops, strings.index(op.name));
        ops += ",[";
        for (std::size_t s = 0; s < op.stack.size(); ++s) {
            if (s) ops += ',';
            put_int(ops, strings.index(op.stack[s]));
        }
        ops += "],";
        put_int(ops, strings.index(op.module_path));
        ops += ',';
        put_int(ops, strings.index(op.nvtx_range));
        ops += ',';
        put_int(ops, op.iteration);
        ops += ",[";
        for (std::size_t a = 0; a < op.inputs.size(); ++a) {
            const TensorArg& arg = op.inputs[a];
            if (a) ops += ',';
            ops += '[';
            put_int(ops, strings.index(arg.dtype));
            ops += ',';
            put_int_list(ops, arg.sizes);
            ops += ',';
            put_int_list(ops, arg.strides);
            ops += ',';
            ops += dump(json(arg.values));
            ops += ']';
        }
        ops += "]]";
    }
    for (std::size_t i = 0; i < p.kernels.size(); ++i) {
        const KernelRecord& k = p.kernels[i];
        kernels += i ? ",\n    [" : "\n    [";
        put_int(kernels, strings.index(k.name));
        for (const std::uint64_t v : {k.start_ns, k.end_ns, std::uint64_t{k.device}, std::uint64_t{k.stream}}) {
            kernels += ',';
            put_int(kernels, v);
        }
        for (const auto* dims : {&k.grid, &k.block, &k.cluster})
            for (const std::uint32_t v : *dims) {
                kernels += ',';
                put_int(kernels, v);
            }
        for (const int v : {k.registers_per_thread, k.static_smem_bytes, k.dynamic_smem_bytes}) {
            kernels += ',';
            put_int(kernels, v);
        }
        kernels += ',';
        put_int(kernels, k.correlation_id);
        kernels += ',';
        put_optional_id(kernels, k.op_id);
        kernels += ',';
        put_int(kernels, strings.index(k.nvtx_range));
        kernels += ',';
        put_int(kernels, k.graph_id);
        kernels += ',';
        put_int(kernels, k.iteration);
        kernels += ']';
    }
    for (std::size_t i = 0; i < p.memory.size(); ++i) {
        const MemoryRecord& m = p.memory[i];
        memory += i ? ",\n    [\"" : "\n    [\"";
        memory += to_string(m.kind);
        memory += "\"";
        for (const std::uint64_t v : {m.bytes, m.start_ns, m.end_ns, std::uint64_t{m.stream}}) {
            memory += ',';
            put_int(memory, v);
        }
        memory += ',';
        put_optional_id(memory, m.op_id);
        memory += ',';
        put_int(memory, m.iteration);
        memory += ']';
    }

    std::string out;
    out.reserve(ops.size() + kernels.size() + memory.size() + 4096);
    out += "{\n  \"format\": \"autokernel-profile\",\n  \"format_version\": ";
    put_int(out, p.format_version);
    out += ",\n  \"origin\": " + dump(origin_json(p.origin)) + ",\n";

    nlohmann::ordered_json iterations = nlohmann::ordered_json::array();
    for (const IterationRecord& it : p.iterations) {
        nlohmann::ordered_json j;
        j["index"] = it.index;
        j["wall_ms"] = it.wall_ms;
        j["event_ms"] = it.event_ms;
        j["gpu_start_ns"] = it.gpu_start_ns;
        j["gpu_end_ns"] = it.gpu_end_ns;
        iterations.push_back(std::move(j));
    }
    out += "  \"iterations\": " + dump(iterations) + ",\n";
    if (p.overhead) {
        nlohmann::ordered_json j;
        j["profiled_iteration_ms"] = p.overhead->profiled_iteration_ms;
        j["unprofiled_iteration_ms"] = p.overhead->unprofiled_iteration_ms;
        out += "  \"overhead\": " + dump(j) + ",\n";
    } else {
        out += "  \"overhead\": null,\n";
    }
    if (p.ceilings) {
        nlohmann::ordered_json j;
        j["device_name"] = p.ceilings->device_name;
        j["measured_utc"] = p.ceilings->measured_utc;
        j["copy_gb_s"] = nlohmann::ordered_json::array();
        for (const auto& [bytes, gb_s] : p.ceilings->copy_gb_s) j["copy_gb_s"].push_back({bytes, gb_s});
        j["gemm_tflops"] = nlohmann::ordered_json::object();
        for (const auto& [dtype, tflops] : p.ceilings->gemm_tflops) j["gemm_tflops"][std::string(to_string(dtype))] = tflops;
        out += "  \"ceilings\": " + dump(j) + ",\n";
    } else {
        out += "  \"ceilings\": null,\n";
    }
    out += "  \"warnings\": " + dump(json(p.warnings)) + ",\n";

    out += "  \"strings\": [";
    const auto& table = strings.strings();
    for (std::size_t i = 0; i < table.size(); ++i) {
        out += i ? ",\n    " : "\n    ";
        out += quoted(table[i]);
    }
    out += table.empty() ? "],\n" : "\n  ],\n";
    put_columns(out, "op_columns", kOpColumns);
    put_columns(out, "op_input_columns", kInputColumns);
    out += "  \"ops\": [" + ops + (ops.empty() ? "],\n" : "\n  ],\n");
    put_columns(out, "kernel_columns", kKernelColumns);
    out += "  \"kernels\": [" + kernels + (kernels.empty() ? "],\n" : "\n  ],\n");
    put_columns(out, "memory_columns", kMemoryColumns);
    out += "  \"memory\": [" + memory + (memory.empty() ? "]\n" : "\n  ]\n");
    out += "}\n";
    return out;
}

// ---------------------------------------------------------------- reading

using JValue = fastjson::Value;


namespace {

// A JSON path built on the stack ("kernels" -> "kernels[12]" -> "kernels[12].end_ns"); turned into
// text only when an error is reported, so reading a large profile allocates nothing per field.
struct Path {
    const Path* parent = nullptr;
    std::string_view key;                                  // ".key" (or the root's name)
    std::size_t index = std::numeric_limits<std::size_t>::max();  // "[index]" when set

    Path operator[](std::size_t i) const { return Path{this, {}, i}; }
    Path operator/(std::string_view k) const { return Path{this, k}; }
    std::string str() const {
        std::string out = parent ? parent->str() : std::string();
        if (index != std::numeric_limits<std::size_t>::max()) {
            out += "[" + std::to_string(index) + "]";
        } else if (!key.empty()) {
            if (!out.empty()) out += '.';
            out += key;
        }
        return out;
    }
};

// Reads one JSON document with every error naming the source and the JSON path.
class Reader {
public:
    explicit Reader(std::string_view source) : source_(source) {}

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw Error(ErrorKind::BadFormat, std::string(source_) + ": " + (path.empty() ? "" : path + ": ") + problem);
    }
    [[noreturn]] void fail(const Path& path, const std::string& problem) const { fail(path.str(), problem); }

    static std::string kind(const JValue& j) {
        if (j.is_number_unsigned() || j.is_number_integer()) return "an integer";
        if (j.is_number_float()) return "a number with a fraction";
        return std::string("a JSON ") + j.type_name();
    }

    JValue member(const JValue& object, const Path& path, const char* key) const {
        auto it = object.find(key);
        if (!it) fail(path / key, "missing (required)");
        return *it;
    }
    static std::optional<JValue> optional_member(const JValue& object, const char* key) {
        auto it = object.find(key);
        if (!it || it->is_null()) return std::nullopt;
        return it;
    }
    JValue object(const JValue& j, const Path& path) const {
        if (!j.is_object()) fail(path, "must be an object, found " + kind(j));
        return j;
    }
    JValue array(const JValue& j, const Path& path) const {
        if (!j.is_array()) fail(path, "must be an array, found " + kind(j));
        return j;
    }
    JValue array(const JValue& j, const Path& path, std::size_t size) const {
        array(j, path);
        if (j.size() != size)
            fail(path, "must have " + std::to_string(size) + " elements, found " + std::to_string(j.size()));
        return j;
    }
    std::string string(const JValue& j, const Path& path) const {
        if (!j.is_string()) fail(path, "must be a string, found " + kind(j));
        return j.get<std::string>();
    }
    double number(const JValue& j, const Path& path) const {
        if (!j.is_number()) fail(path, "must be a number, found " + kind(j));
        const double v = j.get<double>();
        if (!std::isfinite(v)) fail(path, "must be finite");
        return v;
    }
    double non_negative(const JValue& j, const Path& path) const {
        const double v = number(j, path);
        if (v < 0) fail(path, "must not be negative, found " + j.dump());
        return v;
    }
    std::uint64_t u64(const JValue& j, const Path& path) const {
        if (j.is_number_unsigned()) return j.get<std::uint64_t>();
        if (j.is_number_integer()) fail(path, "must not be negative, found " + j.dump());
        fail(path, "must be a whole number, found " + kind(j));
    }
    std::uint32_t u32(const JValue& j, const Path& path) const {
        const std::uint64_t v = u64(j, path);
        if (v > std::numeric_limits<std::uint32_t>::max()) fail(path, "is out of range (" + j.dump() + ")");
        return static_cast<std::uint32_t>(v);
    }
    int int_at_least(const JValue& j, const Path& path, int minimum) const {
        if (!j.is_number_integer()) fail(path, "must be a whole number, found " + kind(j));
        if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<int>::max()))
            fail(path, "is out of range (" + j.dump() + ")");
        const std::int64_t v = j.get<std::int64_t>();
        if (v < minimum) fail(path, "must be at least " + std::to_string(minimum) + ", found " + j.dump());
        if (v > std::numeric_limits<int>::max()) fail(path, "is out of range (" + j.dump() + ")");
        return static_cast<int>(v);
    }
    std::int64_t i64(const JValue& j, const Path& path) const {
        if (!j.is_number_integer()) fail(path, "must be a whole number, found " + kind(j));
        if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            fail(path, "is out of range (" + j.dump() + ")");
        return j.get<std::int64_t>();
    }
    std::vector<std::string> strings(const JValue& j, const Path& path) const {
        array(j, path);
        std::vector<std::string> out;
        out.reserve(j.size());
        for (std::size_t i = 0; i < j.size(); ++i) out.push_back(string(j[i], path[i]));
        return out;
    }
    // Optional string member, "" when absent.
    std::string opt_string(const JValue& object, const Path& path, const char* key) const {
        const auto j = optional_member(object, key);
        return j ? string(*j, path / key) : std::string();
    }
    int opt_int(const JValue& object, const Path& path, const char* key, int minimum) const {
        const auto j = optional_member(object, key);
        return j ? int_at_least(*j, path / key, minimum) : 0;
    }

private:
    std::string_view source_;
};

void check_columns(const Reader& r, const JValue& root, const char* key, auto const& expected) {
    const std::optional<JValue> j = Reader::optional_member(root, key);
    if (!j) return;  // the columns are self-description; the layout is fixed by format_version
    const Path path{nullptr, key};
    r.array(*j, path);
    bool same = j->size() == expected.size();
    for (std::size_t i = 0; same && i < expected.size(); ++i)
        same = (*j)[i].is_string() && (*j)[i].template get<std::string>() == expected[i];
    if (!same) {
        std::string want;
        for (auto c : expected) want += (want.empty() ? "" : ", ") + std::string(c);
        r.fail(path, "does not match format_version 1's columns (" + want + ")");
    }
}

Origin read_origin(const Reader& r, const JValue& j) {
    const Path path{nullptr, "origin"};
    r.object(j, path);
    Origin o;
    const std::string kind = r.string(r.member(j, path, "kind"), path / "kind");
    const auto parsed = parse_source_kind(kind);
    if (!parsed) r.fail(path / "kind", "must be \"builtin\", \"torchscript\" or \"command\", found \"" + kind + "\"");
    o.kind = *parsed;
    o.model = r.opt_string(j, path, "model");
    if (const std::optional<JValue> v = Reader::optional_member(j, "inputs")) o.inputs = r.strings(*v, path / "inputs");
    if (const std::optional<JValue> v = Reader::optional_member(j, "command")) o.command = r.strings(*v, path / "command");
    o.batch = r.opt_int(j, path, "batch", 0);
    o.seq = r.opt_int(j, path, "seq", 0);
    o.dtype = r.opt_string(j, path, "dtype");
    o.mode = r.opt_string(j, path, "mode");
    o.warmup_iterations = r.opt_int(j, path, "warmup_iterations", 0);
    o.measured_iterations = r.int_at_least(r.member(j, path, "measured_iterations"), path / "measured_iterations", 1);
    o.gpu_name = r.opt_string(j, path, "gpu_name");
    o.driver_version = r.opt_string(j, path, "driver_version");
    o.cuda_version = r.opt_string(j, path, "cuda_version");
    o.torch_version = r.opt_string(j, path, "torch_version");
    o.tool_version = r.opt_string(j, path, "tool_version");
    o.recorded_utc = r.opt_string(j, path, "recorded_utc");
    return o;
}

std::optional<std::uint64_t> read_op_ref(const Reader& r, const JValue& j, const Path& path,
                                         const std::unordered_set<std::uint64_t>& op_ids) {
    if (j.is_null()) return std::nullopt;
    const std::uint64_t id = r.u64(j, path);
    if (!op_ids.contains(id)) r.fail(path, "names op " + std::to_string(id) + ", which is not in \"ops\"");
    return id;
}

template <std::size_t N>
Path column(const Path& row, const std::array<std::string_view, N>& columns, std::size_t c) {
    return row / columns[c];
}

}  // namespace

Profile profile_from_json(std::string_view text, std::string_view source_name) {
    const Reader r(source_name);
    const JValue root = [&] {
        try {
            return fastjson::parse(text);
        } catch (const fastjson::ParseError& e) {
            r.fail(std::string(), "not valid JSON (" + e.message() + ")");
        }
    }();
    const Path top{};
    r.object(root, Path{nullptr, "the document"});

    Profile p;
    if (const std::optional<JValue> format = Reader::optional_member(root, "format")) {
        const std::string f = r.string(*format, top / "format");
        if (f != "autokernel-profile") r.fail(top / "format", "must be \"autokernel-profile\", found \"" + f + "\"");
    }
    p.format_version = r.int_at_least(r.member(root, top, "format_version"), top / "format_version", 1);
    if (p.format_version != kFormatVersion)
        r.fail(top / "format_version", std::to_string(p.format_version) + " is not supported (this build reads version " +
                                           std::to_string(kFormatVersion) + ")");
    p.origin = read_origin(r, r.member(root, top, "origin"));

    check_columns(r, root, "op_columns", kOpColumns);
    check_columns(r, root, "op_input_columns", kInputColumns);
    check_columns(r, root, "kernel_columns", kKernelColumns);
    check_columns(r, root, "memory_columns", kMemoryColumns);

    const std::vector<std::string> strings = r.strings(r.member(root, top, "strings"), top / "strings");
    const auto str = [&](const JValue& j, const Path& path) -> const std::string& {
        const std::uint64_t index = r.u64(j, path);
        if (index >= strings.size())
            r.fail(path, "string index " + std::to_string(index) + " is outside \"strings\" (" +
                             std::to_string(strings.size()) + " entries)");
        return strings[index];
    };

    // ops
    const Path ops_path = top / "ops";
    const JValue& ops = r.array(r.member(root, top, "ops"), ops_path);
    std::unordered_set<std::uint64_t> op_ids;
    op_ids.reserve(ops.size());
    p.ops.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Path row_path = ops_path[i];
        const JValue& row = r.array(ops[i], row_path, kOpColumns.size());
        const auto field = [&](std::size_t c) { return column(row_path, kOpColumns, c); };
        OpCall op;
        op.id = r.u64(row[0], field(0));
        if (!op_ids.insert(op.id).second) r.fail(field(0), "op id " + std::to_string(op.id) + " appears twice");
        op.name = str(row[1], field(1));
        if (op.name.empty()) r.fail(field(1), "must not be empty");
        const Path stack_path = field(2);
        const JValue& stack = r.array(row[2], stack_path);
        op.stack.reserve(stack.size());
        for (std::size_t s = 0; s < stack.size(); ++s) op.stack.push_back(str(stack[s], stack_path[s]));
        op.module_path = str(row[3], field(3));
        op.nvtx_range = str(row[4], field(4));
        op.iteration = r.int_at_least(row[5], field(5), -1);
        const Path inputs_path = field(6);
        const JValue& inputs = r.array(row[6], inputs_path);
        op.inputs.reserve(inputs.size());
        for (std::size_t a = 0; a < inputs.size(); ++a) {
            const Path apath = inputs_path[a];
            const JValue& in = r.array(inputs[a], apath, kInputColumns.size());
            TensorArg arg;
            arg.dtype = str(in[0], apath / "dtype");
            const Path sizes_path = apath / "sizes";
            const JValue& sizes = r.array(in[1], sizes_path);
            arg.sizes.reserve(sizes.size());
            for (std::size_t d = 0; d < sizes.size(); ++d) {
                arg.sizes.push_back(r.i64(sizes[d], sizes_path[d]));
                if (arg.sizes.back() < 0) r.fail(sizes_path[d], "must not be negative");
            }
            const Path strides_path = apath / "strides";
            const JValue& strides = r.array(in[2], strides_path);
            for (std::size_t d = 0; d < strides.size(); ++d) arg.strides.push_back(r.i64(strides[d], strides_path[d]));
            if (!arg.strides.empty() && arg.strides.size() != arg.sizes.size())
                r.fail(strides_path, "has " + std::to_string(arg.strides.size()) + " entries for " +
                                         std::to_string(arg.sizes.size()) + " sizes");
            const Path values_path = apath / "values";
            const JValue& values = r.array(in[3], values_path);
            for (std::size_t v = 0; v < values.size(); ++v) arg.values.push_back(r.number(values[v], values_path[v]));
            if (arg.dtype.empty() && !arg.sizes.empty())
                r.fail(apath / "dtype", "is empty for a tensor with sizes (a non-tensor argument has no sizes)");
            op.inputs.push_back(std::move(arg));
        }
        p.ops.push_back(std::move(op));
    }

    // kernels
    const Path kernels_path = top / "kernels";
    const JValue& kernels = r.array(r.member(root, top, "kernels"), kernels_path);
    p.kernels.reserve(kernels.size());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const Path row_path = kernels_path[i];
        const JValue& row = r.array(kernels[i], row_path, kKernelColumns.size());
        const auto field = [&](std::size_t c) { return column(row_path, kKernelColumns, c); };
        KernelRecord k;
        k.name = str(row[0], field(0));
        if (k.name.empty()) r.fail(field(0), "must not be empty");
        k.start_ns = r.u64(row[1], field(1));
        k.end_ns = r.u64(row[2], field(2));
        if (k.end_ns < k.start_ns)
            r.fail(field(2), std::to_string(k.end_ns) + " is before start_ns " + std::to_string(k.start_ns));
        k.device = r.u32(row[3], field(3));
        k.stream = r.u32(row[4], field(4));
        for (std::size_t d = 0; d < 3; ++d) {
            k.grid[d] = r.u32(row[5 + d], field(5 + d));
            k.block[d] = r.u32(row[8 + d], field(8 + d));
            k.cluster[d] = r.u32(row[11 + d], field(11 + d));
        }
        k.registers_per_thread = r.int_at_least(row[14], field(14), 0);
        k.static_smem_bytes = r.int_at_least(row[15], field(15), 0);
        k.dynamic_smem_bytes = r.int_at_least(row[16], field(16), 0);
        k.correlation_id = r.u64(row[17], field(17));
        k.op_id = read_op_ref(r, row[18], field(18), op_ids);
        k.nvtx_range = str(row[19], field(19));
        k.graph_id = r.u32(row[20], field(20));
        k.iteration = r.int_at_least(row[21], field(21), -1);
        p.kernels.push_back(std::move(k));
    }

    // memory
    const Path memory_path = top / "memory";
    const JValue& memory = r.array(r.member(root, top, "memory"), memory_path);
    p.memory.reserve(memory.size());
    for (std::size_t i = 0; i < memory.size(); ++i) {
        const Path row_path = memory_path[i];
        const JValue& row = r.array(memory[i], row_path, kMemoryColumns.size());
        const auto field = [&](std::size_t c) { return column(row_path, kMemoryColumns, c); };
        MemoryRecord m;
        const std::string kind = r.string(row[0], field(0));
        const auto parsed = parse_memory_kind(kind);
        if (!parsed)
            r.fail(field(0), "must be memcpy_htod, memcpy_dtoh, memcpy_dtod, memcpy or memset, found \"" + kind + "\"");
        m.kind = *parsed;
        m.bytes = r.u64(row[1], field(1));
        m.start_ns = r.u64(row[2], field(2));
        m.end_ns = r.u64(row[3], field(3));
        if (m.end_ns < m.start_ns)
            r.fail(field(3), std::to_string(m.end_ns) + " is before start_ns " + std::to_string(m.start_ns));
        m.stream = r.u32(row[4], field(4));
        m.op_id = read_op_ref(r, row[5], field(5), op_ids);
        m.iteration = r.int_at_least(row[6], field(6), -1);
        p.memory.push_back(m);
    }

    // iterations
    const Path iterations_path = top / "iterations";
    const JValue& iterations = r.array(r.member(root, top, "iterations"), iterations_path);
    for (std::size_t i = 0; i < iterations.size(); ++i) {
        const Path path = iterations_path[i];
        const JValue& j = r.object(iterations[i], path);
        IterationRecord it;
        it.index = r.int_at_least(r.member(j, path, "index"), path / "index", 0);
        it.wall_ms = r.non_negative(r.member(j, path, "wall_ms"), path / "wall_ms");
        if (const std::optional<JValue> v = Reader::optional_member(j, "event_ms")) it.event_ms = r.non_negative(*v, path / "event_ms");
        if (const std::optional<JValue> v = Reader::optional_member(j, "gpu_start_ns")) it.gpu_start_ns = r.u64(*v, path / "gpu_start_ns");
        if (const std::optional<JValue> v = Reader::optional_member(j, "gpu_end_ns")) it.gpu_end_ns = r.u64(*v, path / "gpu_end_ns");
        if (it.gpu_end_ns < it.gpu_start_ns)
            r.fail(path / "gpu_end_ns", std::to_string(it.gpu_end_ns) + " is before gpu_start_ns " +
                                            std::to_string(it.gpu_start_ns));
        p.iterations.push_back(it);
    }

    if (const std::optional<JValue> j = Reader::optional_member(root, "overhead")) {
        const Path path = top / "overhead";
        r.object(*j, path);
        Overhead o;
        o.profiled_iteration_ms = r.non_negative(r.member(*j, path, "profiled_iteration_ms"), path / "profiled_iteration_ms");
        o.unprofiled_iteration_ms =
            r.non_negative(r.member(*j, path, "unprofiled_iteration_ms"), path / "unprofiled_iteration_ms");
        p.overhead = o;
    }
    if (const std::optional<JValue> j = Reader::optional_member(root, "ceilings")) {
        const Path path = top / "ceilings";
        r.object(*j, path);
        MeasuredCeilings c;
        c.device_name = r.opt_string(*j, path, "device_name");
        c.measured_utc = r.opt_string(*j, path, "measured_utc");
        if (const std::optional<JValue> copy = Reader::optional_member(*j, "copy_gb_s")) {
            const Path copy_path = path / "copy_gb_s";
            r.array(*copy, copy_path);
            for (std::size_t i = 0; i < copy->size(); ++i) {
                const Path pair_path = copy_path[i];
                const JValue& pair = r.array((*copy)[i], pair_path, 2);
                const double gb_s = r.number(pair[1], pair_path[1]);
                if (gb_s <= 0) r.fail(pair_path[1], "GB/s must be positive");
                c.copy_gb_s[r.u64(pair[0], pair_path[0])] = gb_s;
            }
        }
        if (const std::optional<JValue> gemm = Reader::optional_member(*j, "gemm_tflops")) {
            const Path gemm_path = path / "gemm_tflops";
            r.object(*gemm, gemm_path);
            for (const auto& [key, value] : gemm->items()) {
                const Path entry = gemm_path / key;
                const auto dtype = parse_dtype(key);
                if (!dtype) r.fail(entry, "unknown dtype \"" + key + "\"");
                const double tflops = r.number(value, entry);
                if (tflops <= 0) r.fail(entry, "TFLOP/s must be positive");
                c.gemm_tflops[*dtype] = tflops;
            }
        }
        p.ceilings = c;
    }
    if (const std::optional<JValue> j = Reader::optional_member(root, "warnings")) p.warnings = r.strings(*j, top / "warnings");
    return p;
}

void write_profile_json(const Profile& profile, const std::filesystem::path& path) {
    replace_durably(path, to_json(profile));
}

Profile read_profile_json(const std::filesystem::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        if (errno == ENOENT) throw Error(ErrorKind::NotFound, "profile not found: " + path.string());
        throw Error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode)) throw Error(ErrorKind::Io, "cannot read " + path.string() + ": not a regular file");
    if (static_cast<std::uint64_t>(info.st_size) > (std::uint64_t{2} << 30))
        throw Error(ErrorKind::BadFormat, path.string() + ": larger than 2 GiB, not a profile this build reads");
    return profile_from_json(read_file(path), path.string());
}

}  // namespace ak::profile
