// Zero-copy upload: a kernel reads a host-written STORAGE | MAP_WRITE buffer in place. It copies
// the buffer word for word into device memory, so the upload can be verified byte for byte;
// u32 words, because a float copy may canonicalise NaN payloads in random bytes. A grid-stride
// loop covers any length with a dispatch capped at the adapter's workgroup-count limit.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn copy_words(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let n = arrayLength(&src);
    let threads = groups.x * 256u;
    for (var i = gid.x; i < n; i += threads) {
        dst[i] = src[i];
    }
}
