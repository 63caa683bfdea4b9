//! The shape of one product, C (M x N) = A (M x K) x B (K x N), and the sizes it implies.

/// A matmul shape: C (M x N) = A (M x K) x B (K x N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
}

impl Shape {
    /// M x N x K.
    pub fn new(m: u32, n: u32, k: u32) -> Self {
        Self { m, n, k }
    }

    /// `MxNxK`, as in ids and on the command line.
    pub fn label(&self) -> String {
        format!("{}x{}x{}", self.m, self.n, self.k)
    }

    /// Floating-point operations of one product: 2 M N K.
    pub fn flops(&self) -> u64 {
        2 * u64::from(self.m) * u64::from(self.n) * u64::from(self.k)
    }

    /// Leading dimension of A (K rounded up to 4): also the number of rows of B.
    pub fn lda(&self) -> u32 {
        self.k.div_ceil(4) * 4
    }

    /// Leading dimension of B and C (N rounded up to 4).
    pub fn ldb(&self) -> u32 {
        self.n.div_ceil(4) * 4
    }

    pub(super) fn a_len(&self) -> u64 {
        u64::from(self.m) * u64::from(self.lda())
    }

    pub(super) fn b_len(&self) -> u64 {
        u64::from(self.lda()) * u64::from(self.ldb())
    }

    pub(super) fn c_len(&self) -> u64 {
        u64::from(self.m) * u64::from(self.ldb())
    }
}
