struct Params { m: u32, n: u32, k: u32, lda: u32, ldb: u32, ldc: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> params: Params;
