//! The matmul flags are checked before any adapter is opened: mistakes exit 2 with a message
//! that names the flag (and, for a variant, the known ones). No GPU needed.

use assert_cmd::Command;

mod common;
use common::assert_exit_saying;

fn gpubench() -> Command {
    Command::cargo_bin("gpubench").expect("binary built")
}

#[test]
fn unknown_variant_is_a_usage_error_listing_the_known_ones() {
    let out = gpubench()
        .args(["run", "--suite", "matmul", "--matmul-variant", "bogus"])
        .output()
        .expect("runs");
    assert_exit_saying(&out, 2, &["--matmul-variant bogus", "tiled16"]);
}

#[test]
fn malformed_or_zero_shapes_are_usage_errors() {
    for shape in ["3x4", "0x4x4", "ax4x4"] {
        let out = gpubench()
            .args(["run", "--suite", "matmul", "--matmul-shape", shape])
            .output()
            .expect("runs");
        assert_exit_saying(&out, 2, &["--matmul-shape"]);
    }
}
