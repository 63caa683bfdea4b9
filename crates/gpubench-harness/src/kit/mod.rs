//! The kit: building blocks every suite may use, and none owns. Pipelines and the
//! single-dispatch timed region ([`gpu`]), verification and tolerances ([`verify`]), derived
//! results ([`derived`]), what the adapter's type lets a suite assume ([`sizing`], [`facts`]),
//! exact random inputs ([`inputs`]), the tuner's selection and table ([`tuning`]), the FMA
//! reference load ([`fma`]), the pipeline forms a suite declares ([`forms`]), where buffers live
//! and whether a row's bytes cross the host-device link ([`placement`]), and the WGSL a WebGPU
//! compiler receives ([`webgpu`]).
//!
//! A suite imports the kit, never another suite: what two suites share lives here.

pub mod derived;
pub mod facts;
pub mod fma;
pub mod forms;
pub mod gpu;
pub mod inputs;
pub mod placement;
pub mod sizing;
pub mod tuning;
pub mod verify;
pub mod webgpu;
