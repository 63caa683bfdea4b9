// Launch cost through CUDA's own API, as the reference for gpubench's launch suite: an empty
// kernel launched in a raw loop, the same launches replayed from a CUDA graph (captured from one
// stream: a chain, each node after the one before), the same number of nodes in a graph with no
// edges (none waits for another: the twin of gpubench's gpu-gap-independent), and the round trip
// (one launch, then a blocking wait for it). Prints one JSON object on stdout.
//
//   nvcc -O2 -o cuda_launch scripts/cuda_launch.cu && ./cuda_launch [LAUNCHES] [ROUND_TRIPS]
//
// Each figure is the median over repeats; GPU time from CUDA events around a burst of launches,
// host time from std::chrono::steady_clock.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty_kernel() {}

static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::printf("{\"status\": \"failed\", \"reason\": \"%s: %s\"}\n", what,
                    cudaGetErrorString(status));
        std::exit(1);
    }
}

static double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(i, values.size() - 1)];
}

static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Burst {
    double gpu_us_per_launch;
    double host_us_per_launch;
};

// GPU milliseconds between events recorded before and after enqueue(), and the host seconds
// enqueue() itself took (the cost of the launch calls).
template <typename Enqueue>
static void timed(cudaStream_t stream, Enqueue enqueue, float* gpu_ms, double* host_s) {
    cudaEvent_t begin, end;
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    check(cudaEventRecord(begin, stream), "cudaEventRecord");
    auto start = std::chrono::steady_clock::now();
    enqueue();
    *host_s = seconds_since(start);
    check(cudaGetLastError(), "launch");
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    check(cudaEventElapsedTime(gpu_ms, begin, end), "cudaEventElapsedTime");
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
}

// One burst of `launches` raw launches: GPU time per launch, and host time per launch call.
static Burst raw_burst(cudaStream_t stream, int launches) {
    float ms = 0;
    double host = 0;
    timed(stream, [&] {
        for (int i = 0; i < launches; ++i) {
            empty_kernel<<<1, 1, 0, stream>>>();
        }
    }, &ms, &host);
    return {ms * 1e3 / launches, host * 1e6 / launches};
}

// The same launches captured once into a graph and replayed: the GPU-side cost per kernel node.
static double graph_burst(cudaStream_t stream, cudaGraphExec_t exec, int launches) {
    float ms = 0;
    double host = 0;
    timed(stream, [&] { check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch"); }, &ms, &host);
    return ms * 1e3 / launches;
}

static cudaGraphExec_t capture_graph(cudaStream_t stream, int launches) {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    for (int i = 0; i < launches; ++i) {
        empty_kernel<<<1, 1, 0, stream>>>();
    }
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    cudaGraphDestroy(graph);
    return exec;
}

// `launches` kernel nodes with no edges between them: the graph orders none after another, so
// what each costs is its launch, not a wait for the one before.
static cudaGraphExec_t independent_graph(int launches) {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
    cudaKernelNodeParams params = {};
    params.func = reinterpret_cast<void*>(empty_kernel);
    params.gridDim = dim3(1);
    params.blockDim = dim3(1);
    for (int i = 0; i < launches; ++i) {
        cudaGraphNode_t node;
        check(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params), "cudaGraphAddKernelNode");
    }
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    cudaGraphDestroy(graph);
    return exec;
}

// The median GPU time per kernel node of `exec` (of `launches` nodes) over `repeats` replays,
// after one replay that uploads it.
static double graph_median(cudaStream_t stream, cudaGraphExec_t exec, int launches, int repeats) {
    std::vector<double> per_node;
    graph_burst(stream, exec, launches);
    for (int r = 0; r < repeats; ++r) {
        per_node.push_back(graph_burst(stream, exec, launches));
    }
    cudaGraphExecDestroy(exec);
    return median(per_node);
}

int main(int argc, char** argv) {
    int launches = argc > 1 ? std::atoi(argv[1]) : 10000;
    int round_trips = argc > 2 ? std::atoi(argv[2]) : 2000;
    const int repeats = 7;
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    raw_burst(stream, launches);  // warm-up: module load, first-launch costs

    std::vector<double> raw_gpu, raw_host;
    for (int r = 0; r < repeats; ++r) {
        Burst burst = raw_burst(stream, launches);
        raw_gpu.push_back(burst.gpu_us_per_launch);
        raw_host.push_back(burst.host_us_per_launch);
    }
    double graph_gpu = graph_median(stream, capture_graph(stream, launches), launches, repeats);
    double independent_gpu =
        graph_median(stream, independent_graph(launches), launches, repeats);

    std::vector<double> trips;
    for (int i = 0; i < round_trips; ++i) {
        auto start = std::chrono::steady_clock::now();
        empty_kernel<<<1, 1, 0, stream>>>();
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        trips.push_back(seconds_since(start) * 1e6);
    }
    cudaStreamDestroy(stream);

    std::printf(
        "{\"status\": \"ok\", \"launches_per_burst\": %d, \"repeats\": %d,\n"
        " \"raw_loop_gpu_us_per_launch\": %.4f, \"raw_loop_host_us_per_launch\": %.4f,\n"
        " \"graph_gpu_us_per_kernel\": %.4f, \"graph_independent_gpu_us_per_kernel\": %.4f,\n"
        " \"round_trip_us\": {\"n\": %d, \"p50\": %.3f, \"p95\": %.3f, \"p99\": %.3f, "
        "\"max\": %.3f}}\n",
        launches, repeats, median(raw_gpu), median(raw_host), graph_gpu, independent_gpu,
        round_trips,
        percentile(trips, 50), percentile(trips, 95), percentile(trips, 99),
        *std::max_element(trips.begin(), trips.end()));
    return 0;
}
