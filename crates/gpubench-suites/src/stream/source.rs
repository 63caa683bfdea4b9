//! The stream shader as every stream pipeline compiles it: stream.wgsl (what the kernels share,
//! and the walks of a shape of their own) followed by the array kernels' walks and every
//! kernel's entry points, each written from one template here, so that a walk or an entry
//! point is written once for every kernel that has it.

use std::sync::OnceLock;

/// The array kernels' element operations, over one element of each input (`{a}` of `a`, `{b}`
/// of `b`), in the order stream.wgsl has always declared them.
const ARRAY_OPS: [ArrayOp; 4] = [
    ArrayOp {
        name: "copy",
        op: "{a}",
    },
    ArrayOp {
        name: "scale",
        op: "params.scalar * {a}",
    },
    ArrayOp {
        name: "add",
        op: "{a} + {b}",
    },
    ArrayOp {
        name: "triad",
        op: "{a} + params.scalar * {b}",
    },
];

/// The walks whose entry points come from [`ENTRY_POINTS`] (the reduction's are its own, in
/// stream.wgsl: they sum rather than store).
const TEMPLATED_WALKS: [&str; 9] = [
    "copy", "scale", "add", "triad", "copy_x", "scale_x", "add_x", "triad_x", "fill",
];

/// An array kernel's one-element walk: one element per invocation per loop trip.
const WALK: &str = "\
// c = {op}
fn {name}_walk(first: u32) {
    for (var i = first; i < params.n; i += params.threads) {
        c[i] = {element};
    }
}
";

/// An array kernel's PER_TRIP walk: a trip loads PER_TRIP elements of each input it reads, a
/// grid stride apart, before it stores any; the remainder goes one element at a time.
/// `{declare}` and `{load}` are a line for `a` and, where the kernel reads it, one for `b`.
const PER_TRIP_WALK: &str = "\
// c = {op}, PER_TRIP elements per trip.
fn {name}_x_walk(first: u32) {
    let s = params.threads;
    let step = PER_TRIP * s;
    var i = first;
    for (; i + step - s < params.n; i += step) {
{declare}        for (var u = 0u; u < PER_TRIP; u++) {
{load}        }
        for (var u = 0u; u < PER_TRIP; u++) {
            c[i + u * s] = {trip};
        }
    }
    for (; i < params.n; i += s) {
        c[i] = {element};
    }
}
";

/// The two entry points of the walk `{name}_walk`: `{name}` walks once, `{name}_repeated` walks
/// `params.repeats` times, each walk after the first starting where stream.wgsl's `next_first`
/// moves it, and writes how many walks it made to `walks`: every walk writes the same values,
/// so the output alone would pass a dispatch that skipped some of them.
const ENTRY_POINTS: &str = "\
@compute @workgroup_size(256)
fn {name}(@builtin(global_invocation_id) gid: vec3<u32>) {
    {name}_walk(gid.x);
}

@compute @workgroup_size(256)
fn {name}_repeated(@builtin(global_invocation_id) gid: vec3<u32>) {
    var v = gid.x;
    {name}_walk(v);
    var made = 1u;
    for (var r = 1u; r < params.repeats; r++) {
        v = next_first(v);
        {name}_walk(v);
        made++;
    }
    walks[gid.x] = made;
}
";

/// One array kernel: `c[i] = op`, with `{a}` and `{b}` standing for the inputs' elements.
struct ArrayOp {
    name: &'static str,
    op: &'static str,
}

impl ArrayOp {
    /// Whether the kernel reads `b` (copy and scale do not).
    fn reads_b(&self) -> bool {
        self.op.contains("{b}")
    }

    /// The operation over `a` and `b` given as expressions.
    fn over(&self, a: &str, b: &str) -> String {
        self.op.replace("{a}", a).replace("{b}", b)
    }

    /// [`WALK`] for this kernel.
    fn walk(&self) -> String {
        WALK.replace("{op}", &self.over("a", "b"))
            .replace("{name}", self.name)
            .replace("{element}", &self.over("a[i]", "b[i]"))
    }

    /// [`PER_TRIP_WALK`] for this kernel.
    fn per_trip_walk(&self) -> String {
        let mut declare = "        var x: array<vec4<f32>, MAX_PER_TRIP>;\n".to_string();
        let mut load = "            x[u] = a[i + u * s];\n".to_string();
        if self.reads_b() {
            declare.push_str("        var y: array<vec4<f32>, MAX_PER_TRIP>;\n");
            load.push_str("            y[u] = b[i + u * s];\n");
        }
        PER_TRIP_WALK
            .replace("{op}", &self.over("a", "b"))
            .replace("{name}", self.name)
            .replace("{declare}", &declare)
            .replace("{load}", &load)
            .replace("{trip}", &self.over("x[u]", "y[u]"))
            .replace("{element}", &self.over("a[i]", "b[i]"))
    }
}

/// stream.wgsl with the generated walks and entry points appended.
fn build(file: &str) -> String {
    let mut source = file.to_string();
    for kernel in &ARRAY_OPS {
        source.push('\n');
        source.push_str(&kernel.walk());
        source.push('\n');
        source.push_str(&kernel.per_trip_walk());
    }
    for walk in TEMPLATED_WALKS {
        source.push('\n');
        source.push_str(&ENTRY_POINTS.replace("{name}", walk));
    }
    source
}

/// The whole stream shader, built once: every stream pipeline compiles this text.
pub fn source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| build(super::WGSL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_has_its_walks_and_entry_points() {
        let source = source();
        for spec in &super::super::KERNELS {
            for entry in [spec.entry, spec.repeated_entry] {
                assert!(source.contains(&format!("fn {entry}(")), "{entry}");
            }
            if let Some((once, repeated)) = spec.per_trip_entries {
                assert!(source.contains(&format!("fn {once}(")), "{once}");
                assert!(source.contains(&format!("fn {repeated}(")), "{repeated}");
            }
        }
    }

    #[test]
    fn only_the_kernels_that_read_b_load_it() {
        let copy = ARRAY_OPS[0].per_trip_walk();
        assert!(!copy.contains("b["), "{copy}");
        let triad = ARRAY_OPS[3].per_trip_walk();
        assert!(triad.contains("y[u] = b[i + u * s];"), "{triad}");
        assert!(triad.contains("c[i + u * s] = x[u] + params.scalar * y[u];"));
        assert!(triad.contains("c[i] = a[i] + params.scalar * b[i];"));
    }
}
