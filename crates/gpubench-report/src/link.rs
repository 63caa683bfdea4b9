//! Transfer rows whose bytes did not cross the host-device link.
//!
//! A transfer row records whether its bytes moved between host memory and device memory over
//! the bus (its `crosses_link` parameter, from where its buffers live). With a large BAR the
//! staging buffer of `h2d-staging-copy` is device memory, so that copy is device to device
//! (hundreds of GB/s on an H200): beside the host-device paths it would read as a host-to-device
//! figure. The sweep table and the transfer chart name such rows apart ([`series_name`]), so
//! one source decides it for both.

use gpubench_results::BenchResult;

/// What the name of a path's rows that stayed on the device ends with.
pub const ON_DEVICE: &str = " (on device)";

/// What a reader is told of a path marked [`ON_DEVICE`].
pub const ON_DEVICE_NOTE: &str = "a path marked (on device) did not cross the host-device link \
     (its crosses_link parameter: with a large BAR the staging buffer is device memory, so the copy \
     may never leave the device); it is no host-device figure";

/// What `r` says of its bytes: `Some(true)` where they crossed the link, `Some(false)` where
/// they did not, `None` where the row does not say (older files, paths with no placement).
fn crosses(r: &BenchResult) -> Option<bool> {
    r.params.get("crosses_link")?.as_bool()
}

/// Whether any of `rows` crossed the link: a discrete card's run. On unified memory no row
/// does (there is no link), and there no path is marked, since every path is then as much a
/// host-device figure as another.
pub fn any_crosses<'a>(rows: impl IntoIterator<Item = &'a BenchResult>) -> bool {
    rows.into_iter().any(|r| crosses(r) == Some(true))
}

/// The name `path`'s row `r` is shown under: `path`, or `path (on device)` where the row says
/// its bytes did not cross the link and `link` (from [`any_crosses`]) says the run had one.
pub fn series_name(path: &str, r: &BenchResult, link: bool) -> String {
    if link && crosses(r) == Some(false) {
        format!("{path}{ON_DEVICE}")
    } else {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::{BenchmarkInfo, MetricKind, Status};

    fn row(crosses: Option<bool>) -> BenchResult {
        let mut info = BenchmarkInfo::new(
            "transfer/h2d-staging-copy/bytes/1MiB",
            "transfer",
            MetricKind::Bandwidth,
            "bytes moved once",
        );
        if let Some(crosses) = crosses {
            info = info.param("crosses_link", crosses);
        }
        BenchResult::empty(&info, Status::Ok, None)
    }

    #[test]
    fn only_a_row_that_stayed_on_a_device_with_a_link_is_marked() {
        let (on_device, over_link, unsaid) = (row(Some(false)), row(Some(true)), row(None));
        assert!(any_crosses([&on_device, &over_link]));
        assert!(
            !any_crosses([&on_device, &unsaid]),
            "unified memory: no link"
        );
        assert_eq!(series_name("p", &on_device, true), "p (on device)");
        assert_eq!(series_name("p", &over_link, true), "p");
        assert_eq!(series_name("p", &unsaid, true), "p");
        assert_eq!(series_name("p", &on_device, false), "p");
    }
}
