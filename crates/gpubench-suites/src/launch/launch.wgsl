// The launch-overhead kernel: one invocation that adds one to a counter. It does almost
// nothing, so a storm of dispatches measures the cost of launching them, yet it writes memory
// the host checks afterwards (counter = start + dispatches), so no driver can drop a dispatch
// as dead work. The add is atomic because nothing orders one dispatch's write before the next
// dispatch's read on every backend.

@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;

@compute @workgroup_size(1)
fn bump() {
    atomicAdd(&counter, 1u);
}
