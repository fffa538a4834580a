#pragma once
// Takes a complete kernel source and a one-line description out of a model's reply.
//
// The reply is asked for ONE complete source in a fenced block (```cuda, ```cpp or ```c++) and a line
// "DESCRIPTION: ...". The source is the longest closed fenced block that holds an entry point
// (ak_kernel0 .. ak_kernel3); failing that, the longest one with a __global__ function, then the longest
// block at all, and the reply is rejected when that block has no entry point. A reply without a
// closed block is malformed (an unclosed one usually means the reply was cut off at max_tokens).
#include <string>
#include <string_view>
#include <vector>

namespace ak {

struct FencedBlock {
    std::string info;     // the text after the opening fence, e.g. "cuda"
    std::string body;     // the lines between the fences, each ending in '\n'
    bool closed = false;  // false: the text ended before the closing fence
};

// Every fenced block (``` or ~~~, three or more, any indentation), in order.
std::vector<FencedBlock> fenced_blocks(std::string_view text);

// True when `source` defines one of the contract's entry points ak_kernel0 .. ak_kernel3.
bool has_entry_point(std::string_view source);

struct ExtractedSource {
    bool ok = false;
    std::string source;
    std::string description;  // one line, valid UTF-8, at most 200 bytes
    std::string failure;      // why !ok, naming what is missing
};

// `default_description` is used when the reply has no usable DESCRIPTION: line.
ExtractedSource extract_source(std::string_view reply, std::string_view default_description);

// The text of the last line starting "DESCRIPTION:" (case-insensitive; markdown bullets and bold
// around it are ignored) outside fenced blocks, cleaned to one short line; "" when there is none.
std::string description_line(std::string_view reply);

}  // namespace ak
