#pragma once
// A small strict JSON parser for profile.json, several times faster than a general-purpose library
// on its large record arrays, so a 50,000-kernel profile opens in a fraction of a second: the document
// is one array of 16-byte nodes (the children of an array or object stored next to each other) and one
// buffer of string bytes. RFC 8259: no comments, no trailing commas, UTF-8 checked, integers kept as
// unsigned or signed 64-bit like the text says (others as double). Only profile_json.cpp uses it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ak::profile::fastjson {

enum class Kind : std::uint8_t { Null, Bool, Unsigned, Signed, Float, String, Array, Object };

struct Node {
    Kind kind = Kind::Null;
    std::uint32_t count = 0;      // array elements, object members, string bytes
    union {
        std::uint64_t u;
        std::int64_t i;
        double d;
        std::uint64_t offset;     // String: into Document::strings; Array/Object: first child node
        bool b;
    };
    Node() : u(0) {}
};

struct Document {
    std::vector<Node> nodes;      // the root is the last
    std::string strings;
};

// A read-only view of one node; cheap to copy. Object members are stored as key, value node pairs.
// The Value parse() returns owns the document; the Values reached from it are views that must not
// outlive it.
class Value {
public:
    Value(const Document* doc, std::uint64_t index) : doc_(doc), index_(index) {}
    Value(std::shared_ptr<const Document> owner, std::uint64_t index)
        : owner_(std::move(owner)), doc_(owner_.get()), index_(index) {}

    Kind kind() const { return node().kind; }
    bool is_null() const { return kind() == Kind::Null; }
    bool is_object() const { return kind() == Kind::Object; }
    bool is_array() const { return kind() == Kind::Array; }
    bool is_string() const { return kind() == Kind::String; }
    bool is_number() const { return kind() == Kind::Unsigned || kind() == Kind::Signed || kind() == Kind::Float; }
    bool is_number_unsigned() const { return kind() == Kind::Unsigned; }
    bool is_number_integer() const { return kind() == Kind::Unsigned || kind() == Kind::Signed; }
    bool is_number_float() const { return kind() == Kind::Float; }
    const char* type_name() const;  // "null", "boolean", "number", "string", "array", "object"

    std::size_t size() const { return is_array() || is_object() ? node().count : 0; }
    Value operator[](std::size_t i) const { return Value(doc_, node().offset + i); }  // arrays only
    std::optional<Value> find(std::string_view key) const;                             // objects only
    std::vector<std::pair<std::string, Value>> items() const;                          // object members

    std::string_view text() const { return std::string_view(doc_->strings).substr(node().offset, node().count); }
    std::uint64_t as_u64() const { return node().u; }
    std::int64_t as_i64() const { return kind() == Kind::Unsigned ? static_cast<std::int64_t>(node().u) : node().i; }
    double as_double() const;
    template <class T>
    T get() const {
        if constexpr (std::is_same_v<T, std::string>) return std::string(text());
        else if constexpr (std::is_same_v<T, double>) return as_double();
        else if constexpr (std::is_same_v<T, std::uint64_t>) return as_u64();
        else return static_cast<T>(as_i64());
    }
    std::string dump() const;  // compact JSON of a scalar ("[...]" / "{...}" for containers), for messages

private:
    const Node& node() const { return doc_->nodes[index_]; }
    std::shared_ptr<const Document> owner_;  // the root only
    const Document* doc_;
    std::uint64_t index_;
};

struct ParseError {
    std::size_t line = 1, column = 1;
    std::string what;
    std::string message() const {
        return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
    }
};

// Parses `text`; throws ParseError on anything that is not JSON.
Value parse(std::string_view text);

}  // namespace ak::profile::fastjson
