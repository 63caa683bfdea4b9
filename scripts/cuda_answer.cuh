// How the CUDA programs of the GPU check answer when they cannot measure: one JSON object on
// stdout, {"status": "failed", "reason": ...}, exit 1, which cuda_reference.py reads (a crash or
// a loader error would leave it only text). Included by cuda_datapath.cu and cuda_memory.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

// `text` as a JSON string literal: quotes and backslashes escaped, control characters as \u00XX.
static std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// The failed answer with `reason`, and the end of the program.
[[noreturn]] static void fail(const std::string& reason) {
    std::printf("{\"status\": \"failed\", \"reason\": %s}\n", json_string(reason).c_str());
    std::exit(1);
}

// Fails, naming `what` and CUDA's words, unless `status` is cudaSuccess.
static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        fail(std::string(what) + ": " + cudaGetErrorString(status));
    }
}
