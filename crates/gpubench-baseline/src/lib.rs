//! Baselines: the stored reference run per adapter fingerprint, and the comparison of a run
//! against it. (The store and verdicts arrive with the baseline work; this crate is the place.)
