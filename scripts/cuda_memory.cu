// The memory hierarchy through CUDA's own API, as the reference gpubench's memory suite
// (crates/gpubench-suites/src/memory) stands beside on an NVIDIA card: the same quantities, the
// same working-set sizes, the same access forms, kernel for kernel. Prints one JSON object on
// stdout, also when it fails (status and reason).
//
//   nvcc -O2 -arch=sm_90 -o cuda_memory scripts/cuda_memory.cu
//   ./cuda_memory CAP_SECONDS SIZE_BYTES ...
//
// What it measures, in this order (cheap first, so a time cap keeps the most rows):
//   workgroup  shared-memory read bandwidth (memory/workgroup/read-vec4): 4096 blocks of 256
//              fill a 16 KiB tile once, then every thread makes 256 trips of four independent
//              float4 loads a quarter of the tile apart, consecutive lanes consecutive float4s
//              (conflict-free); bytes loaded per second, the fill not counted. The stride sweep
//              (memory/workgroup/stride-<s>): the same tile as 4-byte words, lane k at word
//              k x s, s = 1, 2, 4, 8, 16, 32, 33.
//   atomics    atomicAdd throughput (memory/atomic-add/<target>): 1024 blocks of 256, 64
//              atomicAdds a thread (four a trip, old values unused), to one global word
//              (storage-one), a global word each (storage-each), one shared word a block
//              (workgroup-one), a shared word each (workgroup-each), and the contended words
//              addressed per lane as lane & zero_mask, zero_mask 0 from a kernel argument
//              (storage-one-lane-indexed, workgroup-one-lane-indexed): no compiler can prove
//              that address uniform, so no warp's adds are folded into one. GIOP/s, one per
//              atomicAdd written.
//   read       read bandwidth per working set (memory/read/<size>): memory.wgsl's read_window,
//              line for line: every block of 256 reads one 1 MiB window (65536 float4s) of a
//              circle of the set's float4s from block x window plus its epoch's phase (the
//              blocks whose windows cover the set once form an epoch; each epoch starts its
//              windows a share of a chunk's run on, read::epochs), each 32-thread chunk streaming
//              its own contiguous run, four loads in flight a trip, 64 trips; the grid is
//              gpubench's for a discrete GPU (1024 blocks, 2862 for sets of 1 MiB or less,
//              more where the windows must cover the set). Bytes read plus the per-thread sums
//              written, per second (gpubench's count).
//   latency    dependent-load latency per working set (memory/latency/<size>): the set cut
//              into 64-byte nodes, one random cycle through all of them but the last of an
//              even count (Sattolo's algorithm; see cycle_nodes), one thread following it, 65536 loads a launch, each launch going on
//              from where the last stopped; ns per load. Then the same walk by one warp of 32
//              lanes that all load the same address through a per-lane index (p + (lane &
//              zero_mask)): memory/latency-lanes/<size>.
//
// Every figure is the median of 5 samples, each a run of back-to-back launches between two CUDA
// events calibrated to last at least 2 ms, after a warm-up launch. Every output is checked: the
// read sums and the shared-memory sums replayed on the host (exact: the values are multiples of
// 1/256 in [0.5, 1.5)), the chase's final position against the host's walk of the cycle over
// every load made, the atomic words against what that many launches add (modulo 2^32). A wrong
// output fails its row (status "failed" and why), never gives a number.
//
// CAP_SECONDS bounds the run: a row not started by then is "not-measured" with the reason.
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

// memory.wgsl / read.rs
constexpr uint32_t WORKGROUP = 256;
constexpr uint32_t CHUNK = 32;
constexpr uint32_t WINDOW_TRIPS = 64;
constexpr uint32_t WINDOW_ELEMENTS = WINDOW_TRIPS * 4 * WORKGROUP;  // 1 MiB of float4s
constexpr uint64_t L1_RESIDENT_BYTES = 1 << 20;
constexpr uint32_t READ_MIN_GROUPS = 1024;  // read::min_groups, a discrete GPU
constexpr uint32_t READ_CHECKED_GROUPS = 16;
// chase.rs
constexpr uint32_t NODE_WORDS = 16;  // 64-byte nodes
constexpr uint32_t CHASE_STEPS = 1 << 16;
constexpr uint32_t LANES = 32;
// memory_shared.wgsl / shared.rs / atomics.rs
constexpr uint32_t TILE_VEC4 = 1024, TILE_WORDS = 4096, TRIPS = 256;
constexpr uint32_t SHARED_GROUPS = 4096;
static const uint32_t STRIDES[] = {1, 2, 4, 8, 16, 32, 33};
constexpr uint32_t ADDS = 64, ATOMIC_GROUPS = 1024;
// Timing
static const int SAMPLES = 5;
static const double SAMPLE_MS = 2.0;
static const int MAX_REPS = 1 << 14;
static const uint64_t SEED = 0x5EED;

static Clock::time_point g_start;
static double g_cap_s = 60;

static double elapsed_s() {
    return std::chrono::duration<double>(Clock::now() - g_start).count();
}

// The row's JSON when the cap has passed before it started, else "".
static std::string past_cap(const std::string& head) {
    double spent = elapsed_s();
    if (spent < g_cap_s) return "";
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "\"status\": \"not-measured\", \"reason\": \"the time cap of %.1f s was "
                  "reached (%.1f s elapsed) before this row\"}",
                  g_cap_s, spent);
    return head + buf;
}

static std::string failed_row(const std::string& head, const std::string& reason) {
    return head + "\"status\": \"failed\", \"reason\": " + json_string(reason) + "}";
}

// ---- Inputs: multiples of 1/256 in [0.5, 1.5), from the element's index -----------------------

__host__ __device__ inline float value_of(uint32_t word) {
    return 0.5f + static_cast<float>((word * 2654435761u) >> 24) / 256.0f;
}

__global__ void fill_values(float* data, uint64_t words) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words;
         i += (uint64_t)gridDim.x * blockDim.x) {
        data[i] = value_of(static_cast<uint32_t>(i));
    }
}

// ---- Timing ----------------------------------------------------------------------------------

struct Timing {
    double ms;  // median per launch
    int reps;
};

template <typename Launch>
static double events_ms(Launch launch, int reps) {
    cudaEvent_t begin, end;
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    check(cudaEventRecord(begin), "cudaEventRecord");
    for (int r = 0; r < reps; ++r) launch();
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(end), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    return ms;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A warm-up launch, a repeat count calibrated so a sample lasts SAMPLE_MS, then SAMPLES samples.
template <typename Launch>
static Timing measure(Launch launch) {
    events_ms(launch, 1);
    int reps = 1;
    double ms = events_ms(launch, reps);
    while (ms < SAMPLE_MS / 4 && reps < MAX_REPS) {
        reps = std::min(MAX_REPS, reps * 4);
        ms = events_ms(launch, reps);
    }
    double wanted = std::ceil(reps * SAMPLE_MS / std::max(ms, 1e-6));
    reps = static_cast<int>(std::max(1.0, std::min<double>(MAX_REPS, wanted)));
    std::vector<double> per;
    for (int s = 0; s < SAMPLES; ++s) per.push_back(events_ms(launch, reps) / reps);
    return {median(per), reps};
}

// ---- Shared memory: memory_shared.wgsl's workgroup_vec4 and workgroup_stride ------------------

__global__ void __launch_bounds__(256) workgroup_vec4(const float4* __restrict__ fill,
                                                      float4* __restrict__ sums) {
    __shared__ float4 tile[TILE_VEC4];
    uint32_t lane = threadIdx.x;
    for (uint32_t k = 0; k < TILE_VEC4 / WORKGROUP; ++k) {
        tile[lane + k * WORKGROUP] = fill[lane + k * WORKGROUP];
    }
    __syncthreads();
    float4 s0 = make_float4(0, 0, 0, 0), s1 = s0, s2 = s0, s3 = s0;
    uint32_t j = lane;
    for (uint32_t t = 0; t < TRIPS; ++t) {
        float4 x0 = tile[j];
        float4 x1 = tile[(j + TILE_VEC4 / 4) & (TILE_VEC4 - 1)];
        float4 x2 = tile[(j + TILE_VEC4 / 2) & (TILE_VEC4 - 1)];
        float4 x3 = tile[(j + 3 * TILE_VEC4 / 4) & (TILE_VEC4 - 1)];
        s0.x += x0.x; s0.y += x0.y; s0.z += x0.z; s0.w += x0.w;
        s1.x += x1.x; s1.y += x1.y; s1.z += x1.z; s1.w += x1.w;
        s2.x += x2.x; s2.y += x2.y; s2.z += x2.z; s2.w += x2.w;
        s3.x += x3.x; s3.y += x3.y; s3.z += x3.z; s3.w += x3.w;
        j = (j + 1) & (TILE_VEC4 - 1);
    }
    // Each quarter weighted by its place (memory_shared.wgsl): the weighted total is the lane's own.
    sums[blockIdx.x * WORKGROUP + lane] = make_float4(
        (s0.x + 2 * s1.x) + (3 * s2.x + 4 * s3.x), (s0.y + 2 * s1.y) + (3 * s2.y + 4 * s3.y),
        (s0.z + 2 * s1.z) + (3 * s2.z + 4 * s3.z), (s0.w + 2 * s1.w) + (3 * s2.w + 4 * s3.w));
}

__global__ void __launch_bounds__(256) workgroup_stride(const float4* __restrict__ fill,
                                                        float* __restrict__ sums,
                                                        uint32_t stride) {
    __shared__ float words[TILE_WORDS];
    uint32_t lane = threadIdx.x;
    for (uint32_t k = 0; k < TILE_VEC4 / WORKGROUP; ++k) {
        uint32_t e = lane + k * WORKGROUP;
        float4 v = fill[e];
        words[4 * e] = v.x;
        words[4 * e + 1] = v.y;
        words[4 * e + 2] = v.z;
        words[4 * e + 3] = v.w;
    }
    __syncthreads();
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t j = lane * stride;
    for (uint32_t t = 0; t < TRIPS; ++t) {
        s0 += words[j & (TILE_WORDS - 1)];
        s1 += words[(j + TILE_WORDS / 4) & (TILE_WORDS - 1)];
        s2 += words[(j + TILE_WORDS / 2) & (TILE_WORDS - 1)];
        s3 += words[(j + 3 * TILE_WORDS / 4) & (TILE_WORDS - 1)];
        j += 1;
    }
    sums[blockIdx.x * WORKGROUP + lane] = (s0 + s1) + (s2 + s3);
}

// What lane `lane` sums over the tile (stride 0: the vec4 form), replayed on the host: per
// component for the vec4 form, one figure for the word form.
static std::vector<double> tile_replay(uint32_t lane, uint32_t stride) {
    std::vector<double> sum(stride ? 1 : 4, 0.0);
    if (stride == 0) {
        uint32_t j = lane;
        for (uint32_t t = 0; t < TRIPS; ++t) {
            for (uint32_t q = 0; q < 4; ++q) {
                uint32_t e = (j + q * TILE_VEC4 / 4) & (TILE_VEC4 - 1);
                for (uint32_t c = 0; c < 4; ++c) sum[c] += (q + 1) * value_of(4 * e + c);
            }
            j = (j + 1) & (TILE_VEC4 - 1);
        }
        return sum;
    }
    uint32_t j = lane * stride;
    for (uint32_t t = 0; t < TRIPS; ++t, ++j) {
        for (uint32_t q = 0; q < 4; ++q) sum[0] += value_of((j + q * TILE_WORDS / 4) & (TILE_WORDS - 1));
    }
    return sum;
}

// "" when every block's every lane summed what the host replays, else the first mismatch.
static std::string tile_mismatch(const std::vector<float>& got, uint32_t stride) {
    uint32_t per = stride ? 1 : 4;
    for (uint32_t lane = 0; lane < WORKGROUP; ++lane) {
        std::vector<double> want = tile_replay(lane, stride);
        for (uint32_t g = 0; g < SHARED_GROUPS; ++g) {
            for (uint32_t c = 0; c < per; ++c) {
                float v = got[(static_cast<size_t>(g) * WORKGROUP + lane) * per + c];
                if (static_cast<double>(v) != want[c]) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf, "block %u lane %u component %u summed %.9g, "
                                  "expected %.9g", g, lane, c, v, want[c]);
                    return buf;
                }
            }
        }
    }
    return "";
}

static std::string workgroup_row(uint32_t stride, const float4* fill, void* sums) {
    std::string name = stride ? "stride-" + std::to_string(stride) : "read-vec4";
    uint32_t load_bytes = stride ? 4 : 16;
    char head[192];
    std::snprintf(head, sizeof head, "{\"name\": \"%s\", \"blocks\": %u, \"load_bytes\": %u, ",
                  name.c_str(), SHARED_GROUPS, load_bytes);
    std::string capped = past_cap(head);
    if (!capped.empty()) return capped;
    auto launch = [&] {
        if (stride) {
            workgroup_stride<<<SHARED_GROUPS, WORKGROUP>>>(fill, static_cast<float*>(sums), stride);
        } else {
            workgroup_vec4<<<SHARED_GROUPS, WORKGROUP>>>(fill, static_cast<float4*>(sums));
        }
    };
    Timing t = measure(launch);
    size_t floats = static_cast<size_t>(SHARED_GROUPS) * WORKGROUP * (stride ? 1 : 4);
    check(cudaMemset(sums, 0xff, floats * 4), "cudaMemset");
    launch();
    std::vector<float> got(floats);
    check(cudaMemcpy(got.data(), sums, floats * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::string wrong = tile_mismatch(got, stride);
    if (!wrong.empty()) return failed_row(head, "wrong sums: " + wrong);
    double bytes = static_cast<double>(SHARED_GROUPS) * WORKGROUP * TRIPS * 4 * load_bytes;
    char buf[192];
    std::snprintf(buf, sizeof buf, "\"status\": \"ok\", \"gbs\": %.3f, \"ms\": %.6f, "
                  "\"reps\": %d, \"samples\": %d}", bytes / (t.ms * 1e-3) / 1e9, t.ms, t.reps,
                  SAMPLES);
    return head + std::string(buf);
}

// ---- Atomics: memory_shared.wgsl's atomic_* ---------------------------------------------------

__device__ inline uint32_t add_value(uint32_t g) { return 1u + g % 7u; }

__global__ void __launch_bounds__(256) atomic_storage_one(uint32_t* counters) {
    uint32_t v = add_value(blockIdx.x * WORKGROUP + threadIdx.x);
    for (uint32_t t = 0; t < ADDS / 4; ++t) {
        atomicAdd(&counters[0], v);
        atomicAdd(&counters[0], v);
        atomicAdd(&counters[0], v);
        atomicAdd(&counters[0], v);
    }
}

__global__ void __launch_bounds__(256) atomic_storage_each(uint32_t* counters) {
    uint32_t g = blockIdx.x * WORKGROUP + threadIdx.x;
    uint32_t v = add_value(g);
    for (uint32_t t = 0; t < ADDS / 4; ++t) {
        atomicAdd(&counters[g], v);
        atomicAdd(&counters[g], v);
        atomicAdd(&counters[g], v);
        atomicAdd(&counters[g], v);
    }
}

__global__ void __launch_bounds__(256) atomic_storage_one_lanes(uint32_t* counters,
                                                                uint32_t zero_mask) {
    uint32_t v = add_value(blockIdx.x * WORKGROUP + threadIdx.x);
    uint32_t k = threadIdx.x & zero_mask;
    for (uint32_t t = 0; t < ADDS / 4; ++t) {
        atomicAdd(&counters[k], v);
        atomicAdd(&counters[k], v);
        atomicAdd(&counters[k], v);
        atomicAdd(&counters[k], v);
    }
}

__global__ void __launch_bounds__(256) atomic_workgroup_one(uint32_t* totals) {
    __shared__ uint32_t one;
    uint32_t v = add_value(blockIdx.x * WORKGROUP + threadIdx.x);
    if (threadIdx.x == 0) one = 0;
    __syncthreads();
    for (uint32_t t = 0; t < ADDS / 4; ++t) {
        atomicAdd(&one, v);
        atomicAdd(&one, v);
        atomicAdd(&one, v);
        atomicAdd(&one, v);
    }
    __syncthreads();
    if (threadIdx.x == 0) totals[blockIdx.x] = one;
}

__global__ void __launch_bounds__(256) atomic_workgroup_each(uint32_t* totals) {
    __shared__ uint32_t each[WORKGROUP];
    uint32_t lane = threadIdx.x, g = blockIdx.x * WORKGROUP + lane;
    uint32_t v = add_value(g);
    each[lane] = 0;
    for (uint32_t t = 0; t < ADDS / 4; ++t) {
        atomicAdd(&each[lane], v);
        atomicAdd(&each[lane], v);
        atomicAdd(&each[lane], v);
        atomicAdd(&each[lane], v);
    }
    totals[g] = each[lane];
}

__global__ void __launch_bounds__(256) atomic_workgroup_one_lanes(uint32_t* totals,
                                                                  uint32_t zero_mask) {
    __shared__ uint32_t each[WORKGROUP];
    uint32_t lane = threadIdx.x, k = lane & zero_mask;
    uint32_t v = add_value(blockIdx.x * WORKGROUP + lane);
    each[lane] = 0;
    __syncthreads();
    for (uint32_t t = 0; t < ADDS / 4; ++t) {
        atomicAdd(&each[k], v);
        atomicAdd(&each[k], v);
        atomicAdd(&each[k], v);
        atomicAdd(&each[k], v);
    }
    __syncthreads();
    if (lane == 0) totals[blockIdx.x] = each[0];
}

static const char* ATOMIC_TARGETS[] = {"storage-one", "storage-each", "workgroup-one",
                                       "workgroup-each", "storage-one-lane-indexed",
                                       "workgroup-one-lane-indexed"};

// What target k's words hold after `launches` launches: storage words keep counting (mod 2^32),
// workgroup totals are one launch's.
static std::vector<uint32_t> atomic_expected(int k, uint64_t launches) {
    const uint32_t n = ATOMIC_GROUPS * WORKGROUP;
    auto per = [](uint32_t g) { return static_cast<uint64_t>(ADDS) * (1u + g % 7u); };
    std::vector<uint32_t> out;
    if (k == 0 || k == 4) {
        uint64_t one = 0;
        for (uint32_t g = 0; g < n; ++g) one += per(g);
        out.push_back(static_cast<uint32_t>(one * launches));
    } else if (k == 1) {
        for (uint32_t g = 0; g < n; ++g) out.push_back(static_cast<uint32_t>(per(g) * launches));
    } else if (k == 2 || k == 5) {
        for (uint32_t b = 0; b < ATOMIC_GROUPS; ++b) {
            uint64_t sum = 0;
            for (uint32_t l = 0; l < WORKGROUP; ++l) sum += per(b * WORKGROUP + l);
            out.push_back(static_cast<uint32_t>(sum));
        }
    } else {
        for (uint32_t g = 0; g < n; ++g) out.push_back(static_cast<uint32_t>(per(g)));
    }
    return out;
}

static std::string atomic_row(int k, uint32_t* words) {
    bool folded = k == 0 || k == 2;
    char head[192];
    std::snprintf(head, sizeof head, "{\"target\": \"%s\", \"aggregation\": \"%s\", "
                  "\"blocks\": %u, \"adds_per_thread\": %u, ", ATOMIC_TARGETS[k],
                  folded ? "may-fold" : "per-lane", ATOMIC_GROUPS, ADDS);
    std::string capped = past_cap(head);
    if (!capped.empty()) return capped;
    size_t count = atomic_expected(k, 0).size();
    bool storage = k == 0 || k == 1 || k == 4;
    check(cudaMemset(words, storage ? 0 : 0xff, count * 4), "cudaMemset");
    uint64_t launches = 0;
    auto launch = [&] {
        ++launches;
        switch (k) {
            case 0: atomic_storage_one<<<ATOMIC_GROUPS, WORKGROUP>>>(words); break;
            case 1: atomic_storage_each<<<ATOMIC_GROUPS, WORKGROUP>>>(words); break;
            case 2: atomic_workgroup_one<<<ATOMIC_GROUPS, WORKGROUP>>>(words); break;
            case 3: atomic_workgroup_each<<<ATOMIC_GROUPS, WORKGROUP>>>(words); break;
            case 4: atomic_storage_one_lanes<<<ATOMIC_GROUPS, WORKGROUP>>>(words, 0u); break;
            default: atomic_workgroup_one_lanes<<<ATOMIC_GROUPS, WORKGROUP>>>(words, 0u); break;
        }
    };
    Timing t = measure(launch);
    std::vector<uint32_t> got(count), want = atomic_expected(k, launches);
    check(cudaMemcpy(got.data(), words, count * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (size_t i = 0; i < count; ++i) {
        if (got[i] != want[i]) {
            char buf[192];
            std::snprintf(buf, sizeof buf, "word %zu holds %u after %llu launches, expected %u: "
                          "an add was lost or doubled", i, got[i],
                          static_cast<unsigned long long>(launches), want[i]);
            return failed_row(head, buf);
        }
    }
    double ops = static_cast<double>(ATOMIC_GROUPS) * WORKGROUP * ADDS;
    char buf[192];
    std::snprintf(buf, sizeof buf, "\"status\": \"ok\", \"giops\": %.4f, \"ms\": %.6f, "
                  "\"reps\": %d, \"samples\": %d, \"launches\": %llu}",
                  ops / (t.ms * 1e-3) / 1e9, t.ms, t.reps, SAMPLES,
                  static_cast<unsigned long long>(launches));
    return head + std::string(buf);
}

// ---- Read bandwidth: memory.wgsl's read_window -------------------------------------------------

__global__ void __launch_bounds__(256) read_window(const float4* __restrict__ data,
                                                   float4* __restrict__ sums, uint32_t n,
                                                   uint32_t window, uint32_t epoch_groups,
                                                   uint32_t phase) {
    uint32_t lane = threadIdx.x, group = blockIdx.x;
    uint32_t run = (lane / CHUNK) * (CHUNK * 4 * WINDOW_TRIPS) + lane % CHUNK;
    uint32_t i = (group * window + (group / epoch_groups) * phase + run) % n;
    float4 s0 = make_float4(0, 0, 0, 0), s1 = s0, s2 = s0, s3 = s0;
    for (uint32_t t = 0; t < WINDOW_TRIPS; ++t) {
        float4 x0 = data[i];
        float4 x1 = data[i + CHUNK];
        float4 x2 = data[i + 2 * CHUNK];
        float4 x3 = data[i + 3 * CHUNK];
        s0.x += x0.x; s0.y += x0.y; s0.z += x0.z; s0.w += x0.w;
        s1.x += x1.x; s1.y += x1.y; s1.z += x1.z; s1.w += x1.w;
        s2.x += x2.x; s2.y += x2.y; s2.z += x2.z; s2.w += x2.w;
        s3.x += x3.x; s3.y += x3.y; s3.z += x3.z; s3.w += x3.w;
        uint32_t w = i + 4 * CHUNK;
        i = w >= n ? w - n : w;
    }
    sums[group * WORKGROUP + lane] =
        make_float4((s0.x + s1.x) + (s2.x + s3.x), (s0.y + s1.y) + (s2.y + s3.y),
                    (s0.z + s1.z) + (s2.z + s3.z), (s0.w + s1.w) + (s2.w + s3.w));
}

// read::groups_for on a discrete GPU: 1024, or for a set of 1 MiB or less enough 1 MiB windows
// that a launch lasts 50 us at 3 x 20 TB/s; at least as many windows as cover the set.
static uint32_t read_groups(uint64_t bytes) {
    uint64_t least = READ_MIN_GROUPS;
    if (bytes <= L1_RESIDENT_BYTES) {
        double window = static_cast<double>(WINDOW_ELEMENTS) * 16.0;
        least = std::max<uint64_t>(least, static_cast<uint64_t>(std::ceil(50e-6 * 3.0 * 20e12 / window)));
    }
    uint64_t windows = (bytes / 16 + WINDOW_ELEMENTS - 1) / WINDOW_ELEMENTS;
    return static_cast<uint32_t>(std::max(least, windows));
}

// read::epochs: the blocks whose windows cover the set once, and how far each such epoch starts
// its windows past the one before (whole trips of 4 x CHUNK, at least one).
struct Epochs {
    uint32_t groups, phase;
};
static Epochs read_epochs(uint32_t n, uint32_t groups) {
    uint64_t per = std::min<uint64_t>(std::max<uint64_t>(n / WINDOW_ELEMENTS, 1), groups);
    uint64_t epochs = (groups + per - 1) / per;
    uint64_t trip = 4 * CHUNK, run = trip * WINDOW_TRIPS;
    uint64_t phase = std::max<uint64_t>(run / epochs / trip, 1) * trip;
    return Epochs{static_cast<uint32_t>(per), static_cast<uint32_t>(phase)};
}

// The sum of lane `lane` of block `group` over a set of n float4s, replayed (exact).
static void read_replay(uint32_t n, uint32_t groups, uint32_t group, uint32_t lane,
                        double out[4]) {
    Epochs e = read_epochs(n, groups);
    uint32_t run = (lane / CHUNK) * (CHUNK * 4 * WINDOW_TRIPS) + lane % CHUNK;
    uint64_t i = (static_cast<uint64_t>(group) * WINDOW_ELEMENTS +
                  static_cast<uint64_t>(group / e.groups) * e.phase + run) % n;
    for (int c = 0; c < 4; ++c) out[c] = 0;
    for (uint32_t t = 0; t < WINDOW_TRIPS * 4; ++t) {
        for (uint32_t c = 0; c < 4; ++c) out[c] += value_of(static_cast<uint32_t>(4 * i + c));
        i += CHUNK;
        if (i >= n) i -= n;
    }
}

static std::string read_mismatch(const std::vector<float>& got, uint32_t n, uint32_t groups) {
    std::vector<uint32_t> picked;
    for (uint32_t k = 0; k < READ_CHECKED_GROUPS && k < groups; ++k) {
        picked.push_back(static_cast<uint32_t>(static_cast<uint64_t>(k) * groups / READ_CHECKED_GROUPS));
    }
    picked.push_back(groups - 1);
    for (uint32_t g : picked) {
        for (uint32_t lane = 0; lane < WORKGROUP; ++lane) {
            double want[4];
            read_replay(n, groups, g, lane, want);
            for (uint32_t c = 0; c < 4; ++c) {
                float v = got[(static_cast<size_t>(g) * WORKGROUP + lane) * 4 + c];
                if (static_cast<double>(v) != want[c]) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf, "block %u thread %u component %u summed "
                                  "%.9g, expected %.9g", g, lane, c, v, want[c]);
                    return buf;
                }
            }
        }
    }
    return "";
}

static std::string read_row(uint64_t bytes, const float4* data, float4* sums) {
    uint32_t n = static_cast<uint32_t>(bytes / 16), groups = read_groups(bytes);
    char head[192];
    std::snprintf(head, sizeof head, "{\"bytes\": %llu, \"blocks\": %u, \"chunk\": %u, ",
                  static_cast<unsigned long long>(bytes), groups, CHUNK);
    std::string capped = past_cap(head);
    if (!capped.empty()) return capped;
    Epochs e = read_epochs(n, groups);
    auto launch = [&] {
        read_window<<<groups, WORKGROUP>>>(data, sums, n, WINDOW_ELEMENTS, e.groups, e.phase);
    };
    Timing t = measure(launch);
    size_t floats = static_cast<size_t>(groups) * WORKGROUP * 4;
    check(cudaMemset(sums, 0xff, floats * 4), "cudaMemset");
    launch();
    std::vector<float> got(floats);
    check(cudaMemcpy(got.data(), sums, floats * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::string wrong = read_mismatch(got, n, groups);
    if (!wrong.empty()) return failed_row(head, "wrong sums: " + wrong);
    double moved = static_cast<double>(groups) * (WINDOW_ELEMENTS + WORKGROUP) * 16.0;
    char buf[224];
    std::snprintf(buf, sizeof buf, "\"status\": \"ok\", \"gbs\": %.3f, \"ms\": %.6f, "
                  "\"reps\": %d, \"samples\": %d, \"bytes_per_launch\": %.0f}",
                  moved / (t.ms * 1e-3) / 1e9, t.ms, t.reps, SAMPLES, moved);
    return head + std::string(buf);
}

// ---- Latency: memory.wgsl's chase and chase_lanes ---------------------------------------------

__global__ void chase(const uint32_t* next, uint32_t* position, uint32_t steps) {
    uint32_t p = position[0];
    for (uint32_t k = 0; k < steps / 8; ++k) {
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
    }
    position[0] = p;
}

__global__ void chase_lanes(const uint32_t* next, uint32_t* position, uint32_t steps,
                            uint32_t zero_mask) {
    uint32_t p = position[0] + (threadIdx.x & zero_mask);
    __syncthreads();  // every lane has its start before lane 0 writes the end
    for (uint32_t k = 0; k < steps / 8; ++k) {
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
    }
    if (threadIdx.x == 0) position[0] = p;
}

__global__ void expand_cycle(const uint32_t* successor, uint32_t* words, uint32_t nodes) {
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < nodes;
         k += gridDim.x * blockDim.x) {
        words[static_cast<size_t>(k) * NODE_WORDS] = successor[k] * NODE_WORDS;
    }
}

static uint64_t splitmix(uint64_t* state) {
    *state += 0x9e3779b97f4a7c15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// One random cycle through all `nodes` nodes (Sattolo's algorithm): successor[k] follows k.
static std::vector<uint32_t> random_cycle(uint32_t nodes, uint64_t seed) {
    std::vector<uint32_t> successor(nodes);
    for (uint32_t k = 0; k < nodes; ++k) successor[k] = k;
    uint64_t state = seed;
    for (uint32_t i = nodes - 1; i >= 1; --i) {
        uint64_t r = splitmix(&state);
        uint32_t j = static_cast<uint32_t>((static_cast<unsigned __int128>(r) * i) >> 64);
        std::swap(successor[i], successor[j]);
    }
    return successor;
}

// How many of `nodes` nodes the cycle goes through (memory/chase.rs's cycle_nodes): all of an
// odd count, all but the last of an even one. An odd cycle shares no factor with the 65536
// loads of a launch, so no launch ends where it began; a power-of-two cycle up to 4 MiB would
// bring every launch back to node 0, the position's start, and pass a chase that never ran.
static uint32_t cycle_nodes(uint32_t nodes) { return nodes % 2 == 0 ? nodes - 1 : nodes; }

// The cycle written into the set (node k's first word: the next node's word index), the
// position at node 0.
static std::vector<uint32_t> lay_cycle(uint64_t bytes, uint32_t* words, uint32_t* position,
                                       uint32_t* staging) {
    uint32_t nodes = cycle_nodes(static_cast<uint32_t>(bytes / (4 * NODE_WORDS)));
    std::vector<uint32_t> successor = random_cycle(nodes, SEED ^ bytes);
    check(cudaMemcpy(staging, successor.data(), nodes * 4ull, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemset(words, 0, bytes), "cudaMemset");
    expand_cycle<<<1024, 256>>>(staging, words, nodes);
    check(cudaGetLastError(), "expand_cycle launch");
    check(cudaMemset(position, 0, 4), "cudaMemset");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return successor;
}

static std::string chase_row(uint64_t bytes, bool lanes, uint32_t* words, uint32_t* position,
                             uint32_t* staging) {
    char head[192];
    std::snprintf(head, sizeof head, "{\"bytes\": %llu, \"loads_per_launch\": %u, \"lanes\": %u, ",
                  static_cast<unsigned long long>(bytes), CHASE_STEPS, lanes ? LANES : 1);
    std::string capped = past_cap(head);
    if (!capped.empty()) return capped;
    std::vector<uint32_t> successor = lay_cycle(bytes, words, position, staging);
    uint64_t launches = 0;
    auto launch = [&] {
        ++launches;
        if (lanes) {
            chase_lanes<<<1, LANES>>>(words, position, CHASE_STEPS, 0u);
        } else {
            chase<<<1, 1>>>(words, position, CHASE_STEPS);
        }
    };
    Timing t = measure(launch);
    uint32_t got = 0;
    check(cudaMemcpy(&got, position, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    uint64_t loads = launches * CHASE_STEPS;
    uint32_t p = 0;
    for (uint64_t s = 0; s < loads % successor.size(); ++s) p = successor[p];
    if (got != p * NODE_WORDS) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "the chase ended at word %u after %llu loads, the cycle "
                      "says %u", got, static_cast<unsigned long long>(loads), p * NODE_WORDS);
        return failed_row(head, buf);
    }
    char buf[192];
    std::snprintf(buf, sizeof buf, "\"status\": \"ok\", \"ns\": %.4f, \"ms\": %.6f, "
                  "\"reps\": %d, \"samples\": %d, \"loads\": %llu}",
                  t.ms * 1e6 / CHASE_STEPS, t.ms, t.reps, SAMPLES,
                  static_cast<unsigned long long>(loads));
    return head + std::string(buf);
}

// ---- The run ---------------------------------------------------------------------------------

static std::string join(const std::vector<std::string>& rows) {
    std::string out = "[";
    for (size_t i = 0; i < rows.size(); ++i) out += (i ? ",\n  " : "\n  ") + rows[i];
    return out + "]";
}

static std::vector<uint64_t> parse_sizes(int argc, char** argv) {
    std::vector<uint64_t> sizes;
    for (int i = 2; i < argc; ++i) {
        char* end = nullptr;
        unsigned long long b = std::strtoull(argv[i], &end, 10);
        if (!end || *end || b < 4096 || b % 2048 || b / 4 > 0xffffffffull ||
            (b / 16 + WINDOW_ELEMENTS - 1) / WINDOW_ELEMENTS > 65535) {
            fail(std::string("bad working-set size '") + argv[i] + "': bytes, at least 4096, "
                 "a multiple of 2048 (whole read trips and 64-byte nodes), at most 16 GiB");
        }
        sizes.push_back(b);
    }
    return sizes;
}

int main(int argc, char** argv) {
    g_start = Clock::now();
    if (argc < 3) fail("usage: cuda_memory CAP_SECONDS SIZE_BYTES ...");
    g_cap_s = std::atof(argv[1]);
    if (!(g_cap_s > 0)) fail(std::string("bad time cap '") + argv[1] + "': seconds, above 0");
    std::vector<uint64_t> sizes = parse_sizes(argc, argv);
    uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
    cudaDeviceProp props;
    check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");

    float4 *fill = nullptr, *set = nullptr, *sums = nullptr;
    uint32_t *words = nullptr, *position = nullptr, *staging = nullptr;
    size_t sums_bytes = static_cast<size_t>(std::max<uint32_t>(SHARED_GROUPS, read_groups(largest)) + 1) *
                        WORKGROUP * 16;
    check(cudaMalloc(&fill, TILE_VEC4 * 16), "cudaMalloc");
    check(cudaMalloc(&set, largest), "cudaMalloc");
    check(cudaMalloc(&sums, sums_bytes), "cudaMalloc");
    check(cudaMalloc(&words, ATOMIC_GROUPS * WORKGROUP * 4), "cudaMalloc");
    check(cudaMalloc(&position, 4), "cudaMalloc");
    check(cudaMalloc(&staging, largest / 16), "cudaMalloc");
    fill_values<<<1024, 256>>>(reinterpret_cast<float*>(fill), TILE_WORDS);
    fill_values<<<4096, 256>>>(reinterpret_cast<float*>(set), largest / 4);
    check(cudaDeviceSynchronize(), "fill_values");

    std::vector<std::string> shared, atomics, read, latency, lanes;
    shared.push_back(workgroup_row(0, fill, sums));
    for (uint32_t s : STRIDES) shared.push_back(workgroup_row(s, fill, sums));
    for (int k = 0; k < 6; ++k) atomics.push_back(atomic_row(k, words));
    for (uint64_t b : sizes) read.push_back(read_row(b, set, sums));
    // The chase lays its cycle over the read's set (the reads are done).
    uint32_t* chase_words = reinterpret_cast<uint32_t*>(set);
    for (uint64_t b : sizes) latency.push_back(chase_row(b, false, chase_words, position, staging));
    for (uint64_t b : sizes) lanes.push_back(chase_row(b, true, chase_words, position, staging));

    std::printf("{\"status\": \"ok\", \"device\": %s, \"sm\": \"sm_%d%d\", \"sms\": %d, "
                "\"l2_bytes\": %d, \"cap_s\": %.1f, \"elapsed_s\": %.2f, \"samples\": %d, "
                "\"sample_ms\": %.1f,\n \"workgroup\": %s,\n \"atomics\": %s,\n \"read\": %s,\n"
                " \"latency\": %s,\n \"latency_lanes\": %s}\n",
                json_string(props.name).c_str(), props.major, props.minor,
                props.multiProcessorCount, props.l2CacheSize, g_cap_s, elapsed_s(), SAMPLES,
                SAMPLE_MS, join(shared).c_str(), join(atomics).c_str(), join(read).c_str(),
                join(latency).c_str(), join(lanes).c_str());
    return 0;
}
