#include "profile/json_value.h"

#include "util/utf8.h"

#include <charconv>
#include <cmath>

namespace ak::profile::fastjson {

const char* Value::type_name() const {
    switch (kind()) {
    case Kind::Null: return "null";
    case Kind::Bool: return "boolean";
    case Kind::Unsigned:
    case Kind::Signed:
    case Kind::Float: return "number";
    case Kind::String: return "string";
    case Kind::Array: return "array";
    case Kind::Object: return "object";
    }
    return "?";
}

double Value::as_double() const {
    switch (kind()) {
    case Kind::Float: return node().d;
    case Kind::Unsigned: return static_cast<double>(node().u);
    case Kind::Signed: return static_cast<double>(node().i);
    default: return 0;
    }
}

std::optional<Value> Value::find(std::string_view key) const {
    if (!is_object()) return std::nullopt;
    const Node& n = node();
    for (std::uint64_t m = 0; m < n.count; ++m) {
        const Value k(doc_, n.offset + 2 * m);
        if (k.text() == key) return Value(doc_, n.offset + 2 * m + 1);
    }
    return std::nullopt;
}

std::vector<std::pair<std::string, Value>> Value::items() const {
    std::vector<std::pair<std::string, Value>> out;
    if (!is_object()) return out;
    const Node& n = node();
    for (std::uint64_t m = 0; m < n.count; ++m)
        out.emplace_back(std::string(Value(doc_, n.offset + 2 * m).text()), Value(doc_, n.offset + 2 * m + 1));
    return out;
}

std::string Value::dump() const {
    switch (kind()) {
    case Kind::Null: return "null";
    case Kind::Bool: return node().b ? "true" : "false";
    case Kind::Unsigned: return std::to_string(node().u);
    case Kind::Signed: return std::to_string(node().i);
    case Kind::Float: {
        char buffer[32];
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, node().d);
        return std::string(buffer, r.ptr);
    }
    case Kind::String: return "\"" + std::string(text()) + "\"";
    case Kind::Array: return "[...]";
    case Kind::Object: return "{...}";
    }
    return "?";
}

class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    Value document() {
        if (const auto bad = first_invalid_utf8(s_)) {
            pos_ = *bad;
            fail("the text is not valid UTF-8");
        }
        doc_->nodes.reserve(s_.size() / 6);
        skip_space();
        const Node root = value(0);
        skip_space();
        if (pos_ != s_.size()) fail("unexpected text after the JSON value");
        doc_->nodes.push_back(root);
        const std::uint64_t index = doc_->nodes.size() - 1;
        return Value(doc_, index);
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        ParseError e;
        for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
            if (s_[i] == '\n') {
                ++e.line;
                e.column = 1;
            } else {
                ++e.column;
            }
        }
        e.what = what;
        throw e;
    }
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
    }
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'" + found());
        ++pos_;
    }
    std::string found() const {
        if (pos_ >= s_.size()) return ", found the end of the text";
        return std::string(", found '") + s_[pos_] + "'";
    }
    void literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) fail("invalid literal" + found());
        pos_ += word.size();
    }

    Node value(int depth) {
        if (depth > 64) fail("nested deeper than 64 levels");
        Node n;
        switch (peek()) {
        case '{': return object(depth);
        case '[': return array(depth);
        case '"': return string_node();
        case 't':
            literal("true");
            n.kind = Kind::Bool;
            n.b = true;
            return n;
        case 'f':
            literal("false");
            n.kind = Kind::Bool;
            n.b = false;
            return n;
        case 'n': literal("null"); return n;
        default: return number();
        }
    }

    // The children collected on stack_ since `base` move to the end of the document, next to each other.
    Node container(Kind kind, std::size_t base, std::uint32_t count) {
        Node n;
        n.kind = kind;
        n.count = count;
        n.offset = doc_->nodes.size();
        doc_->nodes.insert(doc_->nodes.end(), stack_.begin() + std::ptrdiff_t(base), stack_.end());
        stack_.resize(base);
        return n;
    }

    Node array(int depth) {
        ++pos_;
        skip_space();
        const std::size_t base = stack_.size();
        if (peek() == ']') {
            ++pos_;
            return container(Kind::Array, base, 0);
        }
        while (true) {
            stack_.push_back(value(depth + 1));
            skip_space();
            if (peek() == ',') {
                ++pos_;
                skip_space();
                continue;
            }
            if (peek() == ']') {
                ++pos_;
                return container(Kind::Array, base, std::uint32_t(stack_.size() - base));
            }
            fail("expected ',' or ']' in an array" + found());
        }
    }

    Node object(int depth) {
        ++pos_;
        skip_space();
        const std::size_t base = stack_.size();
        if (peek() == '}') {
            ++pos_;
            return container(Kind::Object, base, 0);
        }
        while (true) {
            if (peek() != '"') fail("expected a member name in quotes" + found());
            stack_.push_back(string_node());
            skip_space();
            expect(':');
            skip_space();
            stack_.push_back(value(depth + 1));
            skip_space();
            if (peek() == ',') {
                ++pos_;
                skip_space();
                continue;
            }
            if (peek() == '}') {
                ++pos_;
                return container(Kind::Object, base, std::uint32_t((stack_.size() - base) / 2));
            }
            fail("expected ',' or '}' in an object" + found());
        }
    }

    Node string_node() {
        Node n;
        n.kind = Kind::String;
        n.offset = doc_->strings.size();
        string(doc_->strings);
        const std::size_t length = doc_->strings.size() - n.offset;
        if (length > 0xFFFFFFFFu) fail("a string longer than 4 GiB");
        n.count = std::uint32_t(length);
        return n;
    }

    unsigned hex4() {
        if (pos_ + 4 > s_.size()) fail("a \\u escape needs four hex digits");
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = s_[pos_++];
            value <<= 4;
            if (c >= '0' && c <= '9') value |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') value |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') value |= unsigned(c - 'A' + 10);
            else fail("a \\u escape needs four hex digits");
        }
        return value;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    void string(std::string& out) {
        ++pos_;  // the opening quote
        std::size_t start = pos_;
        while (true) {
            if (pos_ >= s_.size()) fail("a string is not closed");
            const char c = s_[pos_];
            if (c == '"') {
                out.append(s_.data() + start, pos_ - start);
                ++pos_;
                return;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string (escape it)");
            if (c != '\\') {
                ++pos_;
                continue;
            }
            out.append(s_.data() + start, pos_ - start);
            ++pos_;
            if (pos_ >= s_.size()) fail("a string is not closed");
            const char e = s_[pos_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (s_.substr(pos_, 2) != "\\u") fail("a high surrogate without its low surrogate");
                    pos_ += 2;
                    const unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate without its low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail("a low surrogate without its high surrogate");
                }
                append_utf8(out, cp);
                break;
            }
            default: fail(std::string("unknown escape '\\") + e + "'");
            }
            start = pos_;
        }
    }

    Node number() {
        Node n;
        const std::size_t start = pos_;
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') ++pos_;
        } else {
            fail("expected a JSON value" + found());
        }
        bool is_float = false;
        if (peek() == '.') {
            is_float = true;
            ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) fail("a digit must follow the decimal point");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            is_float = true;
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) fail("a digit must follow the exponent");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        const char* first = s_.data() + start;
        const char* last = s_.data() + pos_;
        if (!is_float) {
            if (*first == '-') {
                if (std::from_chars(first, last, n.i).ec == std::errc()) {
                    n.kind = Kind::Signed;
                    return n;
                }
            } else if (std::from_chars(first, last, n.u).ec == std::errc()) {
                n.kind = Kind::Unsigned;
                return n;
            }
            // outside the 64-bit range: kept as a double, as other parsers do
        }
        const auto r = std::from_chars(first, last, n.d);
        if (r.ec != std::errc() || !std::isfinite(n.d)) fail("a number out of range");
        n.kind = Kind::Float;
        return n;
    }

    std::shared_ptr<Document> doc_ = std::make_shared<Document>();
    std::vector<Node> stack_;
    std::string_view s_;
    std::size_t pos_ = 0;
};

Value parse(std::string_view text) { return Parser(text).document(); }

}  // namespace ak::profile::fastjson
