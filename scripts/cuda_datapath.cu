// The datapath suite's requests through CUDA's own API, as the reference gpubench's datapath rows
// stand beside on an NVIDIA card: the same bytes, the same kernel arithmetic and the same exact
// check as crates/gpubench-suites/src/datapath (request.rs, reference.rs, datapath.wgsl), moved
// with what CUDA has and wgpu does not: pinned host memory (cudaHostAlloc) and two streams.
// Prints one JSON object on stdout, also when it fails (status and reason).
//
//   nvcc -O2 -o cuda_datapath scripts/cuda_datapath.cu
//   ./cuda_datapath SEED SERIAL_REQUESTS OVERLAP_SAMPLES NAME:IN_BYTES:OUT_BYTES:STEPS ...
//
// For each workload, after a warm-up (one request whose every output word is compared, then a
// few on each stream):
//   stages    each alone, repeated until a sample lasts about a millisecond: prepare (the host
//             writes the input into pinned memory) and check (the host compares 4096 evenly
//             spaced output words with the predicted answer) on the host clock; h2d, compute
//             and d2h between CUDA events. Median over samples, us per request.
//   serial    one request at a time, one host-clock span per request from the start of its
//             preparation to the end of its check; p50/p95/p99/max over the requests.
//   overlap   two requests in flight, each in a slot of its own (pinned buffers, device buffers,
//             stream): while one computes, the next is prepared and uploaded. A sample runs 18
//             requests and times the 16 intervals after the first completion, as gpubench's
//             overlap rows do (the last drains untimed); each timed request's own latency
//             (prepare to check) is recorded.
// A percentile is stated only from enough requests (p95 from 20, p99 from 100), else null.
// Every request's output is checked; a wrong one fails its row, never counts as throughput.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_answer.cuh"

using Clock = std::chrono::steady_clock;

// The step each FMA adds, as datapath.wgsl's uniform block holds it (2^-10).
static const float STEP = 1.0f / 1024.0f;
// Output words the timed check compares (reference.rs CHECKED_WORDS).
static const size_t CHECKED_WORDS = 4096;
// Requests per overlapped sample after the one that fills the pipeline (flow.rs REQUESTS).
static const int OVERLAP_REQUESTS = 16;
static const int STREAMS = 2;
static const int THREADS = 64;  // datapath.wgsl's workgroup size
static const int STAGE_SAMPLES = 9;
static const double STAGE_SAMPLE_US = 1000.0;
static const int MAX_STAGE_REPS = 4096;
// Fewest requests a percentile is stated from (gpubench-results stats.rs).
static const size_t MIN_N_P95 = 20, MIN_N_P99 = 100;

static double us_since(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// ---- The request's device work: datapath.wgsl, line for line -----------------------------

__host__ __device__ inline float chain_start(uint32_t h, uint32_t c, float b) {
    return -1.5f + static_cast<float>((h >> (8u * c)) & 255u) * b;
}

// An f32 sum, not contracted into an FMA, and the bits of an f32, on either side.
__host__ __device__ inline float add_rn(float x, float y) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(x, y);
#else
    return x + y;
#endif
}

__host__ __device__ inline uint32_t bits_of(float x) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    return bits;
#endif
}

__host__ __device__ inline uint4 fold(uint4 f, uint4 g) {
    return make_uint4(f.x ^ g.x, f.y ^ g.y, f.z ^ g.z, f.w ^ g.w);
}

// Output word t: fold the input groups t, t + n_out, ... by xor into h, advance four FMA chains
// by `steps` steps (x = fma(x, a, b), a = 1, b = 2^-10: exact in f32) and return
// h ^ bits((x0 + x1) + (x2 + x3)). The kernel runs it on the device; --self-test on the host.
__host__ __device__ inline uint32_t request_word(const uint4* __restrict__ input, uint32_t t,
                                                 uint32_t n_in, uint32_t n_out, uint32_t steps,
                                                 float a, float b) {
    size_t stride = n_out, j = t;
    uint4 f0 = make_uint4(0, 0, 0, 0), f1 = f0, f2 = f0, f3 = f0;
    for (; j + 3 * stride < n_in; j += 4 * stride) {
        f0 = fold(f0, input[j]);
        f1 = fold(f1, input[j + stride]);
        f2 = fold(f2, input[j + 2 * stride]);
        f3 = fold(f3, input[j + 3 * stride]);
    }
    for (; j < n_in; j += stride) f0 = fold(f0, input[j]);
    uint4 f = fold(fold(f0, f1), fold(f2, f3));
    uint32_t h = (f.x ^ f.y) ^ (f.z ^ f.w);
    float x0 = chain_start(h, 0, b), x1 = chain_start(h, 1, b);
    float x2 = chain_start(h, 2, b), x3 = chain_start(h, 3, b);
    for (uint32_t i = 0; i < steps; i += 4) {
#pragma unroll
        for (int s = 0; s < 4; ++s) {
            x0 = fmaf(x0, a, b);
            x1 = fmaf(x1, a, b);
            x2 = fmaf(x2, a, b);
            x3 = fmaf(x3, a, b);
        }
    }
    return h ^ bits_of(add_rn(add_rn(x0, x1), add_rn(x2, x3)));
}

// One invocation per output word, 64 to a block (datapath.wgsl's workgroup size).
__global__ void request_kernel(const uint4* __restrict__ input, uint32_t* __restrict__ out,
                               uint32_t n_in, uint32_t n_out, uint32_t steps, float a, float b) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n_out) out[t] = request_word(input, t, n_in, n_out, steps, a, b);
}

// ---- The CPU side: reference.rs ---------------------------------------------------------

static uint64_t splitmix(uint64_t* state) {
    *state += 0x9e3779b97f4a7c15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The salt of request number k: never zero.
static uint32_t salt_of(uint64_t k) {
    uint64_t state = k ^ 0x9e3779b97f4a7c15ull;
    return static_cast<uint32_t>(splitmix(&state)) | 1u;
}

// The exact f32 sum of the four chains started from the bytes of h, after `steps` steps.
static float chains_sum(uint32_t h, uint64_t steps) {
    double c[4];
    for (int i = 0; i < 4; ++i) {
        c[i] = -1.5 + static_cast<double>((h >> (8 * i)) & 255) / 1024.0 +
               static_cast<double>(steps) / 1024.0;
    }
    return static_cast<float>((c[0] + c[1]) + (c[2] + c[3]));
}

struct Workload {
    std::string name;
    size_t in_bytes, out_bytes;
    uint32_t steps;
    size_t groups() const { return in_bytes / 16; }
    size_t n_out() const { return out_bytes / 4; }
    double flops() const { return static_cast<double>(n_out()) * 4.0 * steps * 2.0; }
};

struct Found {
    size_t checked = 0, wrong = 0, first = 0;
    uint32_t got = 0, want = 0;
};

// The seeded base pattern and the xor fold of each output word's share of it.
struct Reference {
    std::vector<uint32_t> base, folds;
    size_t groups, n_out;
    uint32_t steps;

    Reference(const Workload& w, uint64_t seed)
        : base(w.in_bytes / 4), folds(w.n_out(), 0), groups(w.groups()), n_out(w.n_out()),
          steps(w.steps) {
        uint64_t state = seed;
        for (auto& word : base) word = static_cast<uint32_t>(splitmix(&state));
        for (size_t g = 0; g < groups; ++g) {
            const uint32_t* q = &base[4 * g];
            folds[g % n_out] ^= q[0] ^ q[1] ^ q[2] ^ q[3];
        }
    }

    // The host's preparation: request `salt`'s input written once, in order; the first word
    // of the first group of each output word's share (groups 0 .. n_out) carries the salt.
    void prepare(uint32_t* dst, uint32_t salt) const {
        for (size_t g = 0; g < groups; ++g) {
            const uint32_t* q = &base[4 * g];
            dst[4 * g] = g < n_out ? q[0] ^ salt : q[0];
            dst[4 * g + 1] = q[1];
            dst[4 * g + 2] = q[2];
            dst[4 * g + 3] = q[3];
        }
    }

    uint32_t expected(size_t t, uint32_t salt) const {
        uint32_t h = folds[t] ^ (t < groups ? salt : 0u);
        float sum = chains_sum(h, steps);
        uint32_t bits;
        std::memcpy(&bits, &sum, 4);
        return h ^ bits;
    }

    // Every word, or CHECKED_WORDS evenly spaced ones (the last included).
    Found mismatches(const uint32_t* out, uint32_t salt, bool every_word) const {
        Found found;
        bool all = every_word || n_out <= CHECKED_WORDS;
        size_t count = all ? n_out : CHECKED_WORDS;
        for (size_t i = 0; i < count; ++i) {
            size_t t = all ? i : i * (n_out - 1) / (CHECKED_WORDS - 1);
            uint32_t want = expected(t, salt);
            found.checked++;
            if (out[t] != want) {
                if (found.wrong++ == 0) {
                    found.first = t;
                    found.got = out[t];
                    found.want = want;
                }
            }
        }
        return found;
    }
};

// What a check found wrong: "W of C output words wrong; word t is ..., expected ...".
static std::string mismatch_text(const Found& found) {
    char buf[192];
    std::snprintf(buf, sizeof buf,
                  "%zu of %zu output words wrong; word %zu is 0x%08x, expected 0x%08x",
                  found.wrong, found.checked, found.first, found.got, found.want);
    return buf;
}

// Why request k's output is wrong, or "" when it is right.
static std::string wrong_answer(const Found& found, uint64_t k) {
    if (found.wrong == 0) return "";
    return "request " + std::to_string(k) + " returned a wrong answer: " + mismatch_text(found);
}

// ---- One request's buffers and its path -------------------------------------------------

struct Slot {
    uint32_t *host_in = nullptr, *host_out = nullptr;  // pinned
    uint4* dev_in = nullptr;
    uint32_t* dev_out = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
};

static Slot make_slot(const Workload& w) {
    Slot s;
    check(cudaHostAlloc(reinterpret_cast<void**>(&s.host_in), w.in_bytes, cudaHostAllocDefault),
          "cudaHostAlloc");
    check(cudaHostAlloc(reinterpret_cast<void**>(&s.host_out), w.out_bytes,
                        cudaHostAllocDefault),
          "cudaHostAlloc");
    check(cudaMalloc(reinterpret_cast<void**>(&s.dev_in), w.in_bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&s.dev_out), w.out_bytes), "cudaMalloc");
    check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming), "cudaEventCreate");
    return s;
}

static void free_slot(Slot& s) {
    cudaFreeHost(s.host_in);
    cudaFreeHost(s.host_out);
    cudaFree(s.dev_in);
    cudaFree(s.dev_out);
    cudaStreamDestroy(s.stream);
    cudaEventDestroy(s.done);
}

static void enqueue_upload(const Workload& w, Slot& s) {
    check(cudaMemcpyAsync(s.dev_in, s.host_in, w.in_bytes, cudaMemcpyHostToDevice, s.stream),
          "cudaMemcpyAsync H2D");
}

static void enqueue_compute(const Workload& w, Slot& s) {
    unsigned blocks = static_cast<unsigned>((w.n_out() + THREADS - 1) / THREADS);
    request_kernel<<<std::max(blocks, 1u), THREADS, 0, s.stream>>>(
        s.dev_in, s.dev_out, static_cast<uint32_t>(w.groups()), static_cast<uint32_t>(w.n_out()),
        w.steps, 1.0f, STEP);
    check(cudaGetLastError(), "request_kernel launch");
}

static void enqueue_download(const Workload& w, Slot& s) {
    check(cudaMemcpyAsync(s.host_out, s.dev_out, w.out_bytes, cudaMemcpyDeviceToHost, s.stream),
          "cudaMemcpyAsync D2H");
}

// Upload, kernel and download on the slot's stream, then its done event.
static void enqueue_request(const Workload& w, Slot& s) {
    enqueue_upload(w, s);
    enqueue_compute(w, s);
    enqueue_download(w, s);
    check(cudaEventRecord(s.done, s.stream), "cudaEventRecord");
}

// The requests of one workload, numbered so each gets a salt of its own.
struct Path {
    const Workload& w;
    const Reference& ref;
    std::vector<Slot> slots;
    uint64_t next = 0;
};

// One whole request through slot i, untimed, checked (every word when every_word).
static std::string one_request(Path& p, int i, bool every_word, size_t* checked = nullptr) {
    uint64_t k = p.next++;
    uint32_t salt = salt_of(k);
    Slot& s = p.slots[i];
    p.ref.prepare(s.host_in, salt);
    enqueue_request(p.w, s);
    check(cudaEventSynchronize(s.done), "cudaEventSynchronize");
    Found found = p.ref.mismatches(s.host_out, salt, every_word);
    if (checked) *checked = found.checked;
    return wrong_answer(found, k);
}

// ---- Statistics ---------------------------------------------------------------------------

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Nearest rank: the smallest value with at least p percent of the values at or below it.
static double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    size_t rank = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * v.size())));
    return v[std::min(rank, v.size()) - 1];
}

static std::string number_or_null(bool stated, double value) {
    if (!stated) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", value);
    return buf;
}

// {"n", "p50", "p95", "p99", "max"} in us; p95 and p99 null below their minimum count.
static std::string latency_json(const std::vector<double>& us) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "{\"n\": %zu, \"p50\": %.3f, ", us.size(), percentile(us, 50));
    return std::string(buf) +
           "\"p95\": " + number_or_null(us.size() >= MIN_N_P95, percentile(us, 95)) +
           ", \"p99\": " + number_or_null(us.size() >= MIN_N_P99, percentile(us, 99)) +
           ", \"max\": " + number_or_null(true, *std::max_element(us.begin(), us.end())) + "}";
}

// ---- Stages, each alone ---------------------------------------------------------------------

enum Stage { PREPARE, H2D, COMPUTE, D2H, CHECK, STAGES };
static const char* STAGE_NAMES[STAGES] = {"prepare", "h2d", "compute", "d2h", "check"};

static bool on_host(int stage) { return stage == PREPARE || stage == CHECK; }

// `reps` repetitions of a device stage between two events on slot 0's stream: us each.
static double device_stage_us(Path& p, int stage, int reps) {
    Slot& s = p.slots[0];
    cudaEvent_t begin, end;
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    check(cudaEventRecord(begin, s.stream), "cudaEventRecord");
    for (int r = 0; r < reps; ++r) {
        if (stage == H2D) enqueue_upload(p.w, s);
        if (stage == COMPUTE) enqueue_compute(p.w, s);
        if (stage == D2H) enqueue_download(p.w, s);
    }
    check(cudaEventRecord(end, s.stream), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    return ms * 1e3 / reps;
}

// `reps` repetitions of a host stage on the host clock: us each. Both work on request `salt`,
// the one slot 0 holds: prepare rewrites its input, check compares its output with its answer.
// Each check reads an output just downloaded, the download untimed, as a request's check does
// (and gpubench's stage/check): one output checked again and again would be timed from the
// CPU's caches after the first pass.
static double host_stage_us(Path& p, int stage, int reps, uint32_t salt, std::string* wrong) {
    Slot& s = p.slots[0];
    Found found;
    double total_us = 0;
    for (int r = 0; r < reps; ++r) {
        if (stage == CHECK) {
            enqueue_download(p.w, s);
            check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
        }
        auto start = Clock::now();
        if (stage == PREPARE) p.ref.prepare(s.host_in, salt);
        if (stage == CHECK) found = p.ref.mismatches(s.host_out, salt, false);
        total_us += us_since(start);
    }
    double us = total_us / reps;
    if (stage == CHECK && found.wrong) *wrong = "the output changed: " + mismatch_text(found);
    return us;
}

struct StageTime {
    double us;
    int reps;
};

// The stage's median time per request over STAGE_SAMPLES samples, each repeated until it lasts
// about STAGE_SAMPLE_US.
static StageTime time_stage(Path& p, int stage, uint32_t salt, std::string* wrong) {
    auto sample = [&](int reps) {
        return on_host(stage) ? host_stage_us(p, stage, reps, salt, wrong)
                              : device_stage_us(p, stage, reps);
    };
    double first = std::max(sample(1), 1e-3);
    double wanted = std::ceil(STAGE_SAMPLE_US / first);
    int reps = static_cast<int>(std::min<double>(MAX_STAGE_REPS, wanted));
    std::vector<double> us;
    for (int i = 0; i < STAGE_SAMPLES; ++i) us.push_back(sample(reps));
    return {median(us), reps};
}

// ---- Whole requests -----------------------------------------------------------------------

struct Row {
    std::string status = "ok", reason;
    std::vector<double> latencies_us;
    double interval_us = 0;
};

// One request at a time through slot 0: a host span from its preparation to its check.
static Row serial(Path& p, int requests) {
    Row row;
    for (int r = 0; r < requests; ++r) {
        auto start = Clock::now();
        std::string wrong = one_request(p, 0, false);
        row.latencies_us.push_back(us_since(start));
        if (!wrong.empty()) return {"failed", wrong, {}, 0};
    }
    return row;
}

struct InFlight {
    int slot;
    uint64_t number;
    uint32_t salt;
    Clock::time_point start;
};

// OVERLAP_REQUESTS + depth requests through the slots in turn, timed from the first completion
// over the next OVERLAP_REQUESTS: the window holds as many preparations as checks, as gpubench's
// overlap rows do (flow.rs `overlapped`); the last depth - 1 requests drain untimed.
static std::string overlap_sample(Path& p, Row& row, std::vector<double>& intervals) {
    const int depth = static_cast<int>(p.slots.size());
    const int total = OVERLAP_REQUESTS + depth;
    std::vector<InFlight> queue;
    Clock::time_point first_done;
    double interval_us = 0.0;
    int retired = 0;
    for (int r = 0; r < total + depth; ++r) {
        if (static_cast<int>(queue.size()) == depth || (r >= total && !queue.empty())) {
            InFlight done = queue.front();
            queue.erase(queue.begin());
            Slot& s = p.slots[done.slot];
            check(cudaEventSynchronize(s.done), "cudaEventSynchronize");
            std::string wrong = wrong_answer(p.ref.mismatches(s.host_out, done.salt, false),
                                             done.number);
            if (!wrong.empty()) return wrong;
            if (retired == 0) {
                first_done = Clock::now();
            } else if (retired <= OVERLAP_REQUESTS) {
                row.latencies_us.push_back(us_since(done.start));
            }
            if (retired == OVERLAP_REQUESTS) interval_us = us_since(first_done) / OVERLAP_REQUESTS;
            ++retired;
        }
        if (r >= total) continue;
        InFlight next{r % depth, p.next, salt_of(p.next), Clock::now()};
        p.next++;
        Slot& s = p.slots[next.slot];
        p.ref.prepare(s.host_in, next.salt);
        enqueue_request(p.w, s);
        queue.push_back(next);
    }
    intervals.push_back(interval_us);
    return "";
}

static Row overlapped(Path& p, int samples) {
    Row row;
    std::vector<double> intervals;
    for (int i = 0; i < samples; ++i) {
        std::string wrong = overlap_sample(p, row, intervals);
        if (!wrong.empty()) return {"failed", wrong, {}, 0};
    }
    row.interval_us = median(intervals);
    return row;
}

// ---- One workload, as JSON ----------------------------------------------------------------

static std::string failed_json(const std::string& reason) {
    return "{\"status\": \"failed\", \"reason\": " + json_string(reason) + "}";
}

static std::string serial_json(const Row& row) {
    if (row.status != "ok") return failed_json(row.reason);
    char buf[96];
    std::snprintf(buf, sizeof buf, ", \"requests_per_s\": %.3f}",
                  1e6 / median(row.latencies_us));
    return "{\"status\": \"ok\", \"latency_us\": " + latency_json(row.latencies_us) + buf;
}

// What bounds the overlapped interval, as gpubench's bound row reckons it (bound.rs): the
// slowest stage, or preparing and checking together where they take longer, since one host
// thread does both for every request while the streams' device stages may overlap.
struct IntervalBound {
    const char* slowest;
    double slowest_us;
    const char* name;
    double us;
};

static IntervalBound interval_bound(const StageTime* times) {
    int slowest = 0;
    double host_us = 0;
    for (int i = 0; i < STAGES; ++i) {
        slowest = times[i].us > times[slowest].us ? i : slowest;
        host_us += on_host(i) ? times[i].us : 0;
    }
    IntervalBound b{STAGE_NAMES[slowest], times[slowest].us, STAGE_NAMES[slowest],
                    times[slowest].us};
    if (host_us > b.us) {
        b.name = "prepare+check";
        b.us = host_us;
    }
    return b;
}

static std::string overlap_json(const Row& row, double serial_us, const IntervalBound& b,
                                int samples) {
    if (row.status != "ok") return failed_json(row.reason);
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "{\"status\": \"ok\", \"streams\": %d, \"in_flight\": %d, \"samples\": %d, "
                  "\"requests_per_sample\": %d, \"interval_us\": %.3f, \"requests_per_s\": %.3f, "
                  "\"overlap_achieved\": %.4f, \"overlap_ideal\": %.4f, \"slowest_stage\": \"%s\", "
                  "\"slowest_stage_us\": %.3f, \"bound\": \"%s\", \"bound_us\": %.3f, "
                  "\"latency_us\": ",
                  STREAMS, STREAMS, samples, OVERLAP_REQUESTS, row.interval_us,
                  1e6 / row.interval_us, serial_us / row.interval_us, serial_us / b.us,
                  b.slowest, b.slowest_us, b.name, b.us);
    return buf + latency_json(row.latencies_us) + "}";
}

static std::string stages_json(const StageTime* times, const std::string& wrong) {
    std::string out = "{";
    for (int i = 0; i < STAGES; ++i) {
        char buf[192];
        std::snprintf(buf, sizeof buf, "%s\"%s\": {\"us\": %.4f, \"reps\": %d, \"clock\": \"%s\"}",
                      i ? ", " : "", STAGE_NAMES[i], times[i].us, times[i].reps,
                      on_host(i) ? "host" : "cuda-events");
        out += buf;
    }
    if (!wrong.empty()) out += ", \"check_failure\": " + json_string(wrong);
    return out + "}";
}

// Warm-up, the stages, the serial and the overlapped path of one workload.
static std::string run_workload(const Workload& w, uint64_t seed, int serial_n, int samples) {
    Reference ref(w, seed);
    Path p{w, ref, {}, 0};
    for (int i = 0; i < STREAMS; ++i) p.slots.push_back(make_slot(w));
    size_t verified = 0;
    std::string wrong = one_request(p, 0, true, &verified);
    for (int i = 0; i < 3 && wrong.empty(); ++i) {
        for (int s = 0; s < STREAMS && wrong.empty(); ++s) wrong = one_request(p, s, false);
    }
    char head[512];
    std::snprintf(head, sizeof head,
                  "{\"name\": %s, \"input_bytes\": %zu, \"output_bytes\": %zu, \"steps\": %u, "
                  "\"flops\": %.0f, \"verified_words\": %zu, ",
                  json_string(w.name).c_str(), w.in_bytes, w.out_bytes, w.steps, w.flops(),
                  verified);
    if (!wrong.empty()) {
        for (auto& s : p.slots) free_slot(s);
        return head + std::string("\"status\": \"failed\", \"reason\": ") +
               json_string(wrong) + "}";
    }
    // The warm-up's last turn ran slot 0, then the other slots: slot 0 holds request
    // next - STREAMS, whose input the prepare stage rewrites so the stages after it still hold
    // that request's answer.
    uint32_t last_salt = salt_of(p.next - STREAMS);
    StageTime times[STAGES];
    std::string check_wrong;
    for (int i = 0; i < STAGES; ++i) times[i] = time_stage(p, i, last_salt, &check_wrong);
    Row ser = serial(p, serial_n);
    Row ovl = overlapped(p, samples);
    double serial_us = ser.status == "ok" ? median(ser.latencies_us) : 0;
    std::string out = head + std::string("\"status\": \"ok\", \"stages\": ") +
                      stages_json(times, check_wrong) + ", \"serial\": " + serial_json(ser) +
                      ", \"overlap\": " +
                      (ser.status == "ok" ? overlap_json(ovl, serial_us, interval_bound(times),
                                                         samples)
                                          : failed_json("no serial time to compare with: " +
                                                        ser.reason)) +
                      "}";
    for (auto& s : p.slots) free_slot(s);
    return out;
}

// NAME:IN_BYTES:OUT_BYTES:STEPS, with the request grammar's rules (request.rs).
static Workload parse_workload(const char* text) {
    char name[128];
    unsigned long long in = 0, out = 0, steps = 0;
    if (std::sscanf(text, "%127[^:]:%llu:%llu:%llu", name, &in, &out, &steps) != 4 ||
        in == 0 || in % 16 || out == 0 || out % 4 || steps == 0 || steps % 4 ||
        steps > (1u << 22) || out / 4 > 0xffffffffull || in / 16 > 0xffffffffull) {
        fail(std::string("bad workload '") + text +
             "': NAME:IN_BYTES:OUT_BYTES:STEPS, in a multiple of 16, out of 4, steps of 4");
    }
    return {name, static_cast<size_t>(in), static_cast<size_t>(out),
            static_cast<uint32_t>(steps)};
}

// --self-test: the kernel's arithmetic (request_word) run on the host over each workload's
// prepared input, every word compared with the prediction, for three requests; and another
// request's answer must not pass. No CUDA call: it answers where there is no driver, for the
// tests. `first_words` are request 0's first answers, for a check against the suite's own.
static int self_test(uint64_t seed, const std::vector<Workload>& workloads) {
    std::string body;
    for (const auto& w : workloads) {
        Reference ref(w, seed);
        std::vector<uint32_t> input(w.in_bytes / 4), out(w.n_out());
        size_t wrong = 0, caught = 0;
        for (uint64_t k = 0; k < 3; ++k) {
            ref.prepare(input.data(), salt_of(k));
            for (size_t t = 0; t < w.n_out(); ++t) {
                out[t] = request_word(reinterpret_cast<const uint4*>(input.data()),
                                      static_cast<uint32_t>(t), static_cast<uint32_t>(w.groups()),
                                      static_cast<uint32_t>(w.n_out()), w.steps, 1.0f, STEP);
            }
            wrong += ref.mismatches(out.data(), salt_of(k), true).wrong;
            caught += ref.mismatches(out.data(), salt_of(k + 7), true).wrong > 0;
        }
        std::string first;
        for (size_t t = 0; t < std::min<size_t>(4, w.n_out()); ++t) {
            first += (t ? ", " : "") + std::to_string(ref.expected(t, salt_of(0)));
        }
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "{\"name\": %s, \"words\": %zu, \"requests\": 3, \"wrong_words\": %zu, "
                      "\"other_answers_caught\": %zu, \"first_words\": [%s]}",
                      json_string(w.name).c_str(), w.n_out(), wrong, caught, first.c_str());
        body += (body.empty() ? "" : ", ") + std::string(buf);
    }
    std::printf("{\"status\": \"ok\", \"self_test\": [%s]}\n", body.c_str());
    return 0;
}

int main(int argc, char** argv) {
    bool test = argc > 1 && std::strcmp(argv[1], "--self-test") == 0;
    if (test) {
        if (argc < 4) fail("usage: cuda_datapath --self-test SEED NAME:IN:OUT:STEPS ...");
        std::vector<Workload> workloads;
        for (int i = 3; i < argc; ++i) workloads.push_back(parse_workload(argv[i]));
        return self_test(std::strtoull(argv[2], nullptr, 0), workloads);
    }
    if (argc < 5) {
        fail("usage: cuda_datapath SEED SERIAL_REQUESTS OVERLAP_SAMPLES NAME:IN:OUT:STEPS ...");
    }
    uint64_t seed = std::strtoull(argv[1], nullptr, 0);
    int serial_n = std::atoi(argv[2]), samples = std::atoi(argv[3]);
    if (serial_n < 1 || samples < 1) fail("SERIAL_REQUESTS and OVERLAP_SAMPLES must be positive");
    std::vector<Workload> workloads;
    for (int i = 4; i < argc; ++i) workloads.push_back(parse_workload(argv[i]));
    cudaDeviceProp props;
    check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
    std::string body;
    for (const auto& w : workloads) {
        body += (body.empty() ? "" : ",\n  ") + run_workload(w, seed, serial_n, samples);
    }
    std::printf(
        "{\"status\": \"ok\", \"device\": %s, \"seed\": %llu, \"streams\": %d, "
        "\"host_memory\": \"pinned (cudaHostAlloc)\", \"serial_requests\": %d, "
        "\"overlap_samples\": %d,\n \"workloads\": [\n  %s]}\n",
        json_string(props.name).c_str(), static_cast<unsigned long long>(seed), STREAMS,
        serial_n, samples, body.c_str());
    return 0;
}
