//! Transfer rows whose bytes did not cross the host-device link.
//!
//! A transfer row records whether its bytes moved between host memory and device memory over
//! the bus (its `crosses_link` parameter, from where its buffers live). With a large BAR the
//! staging buffer of `h2d-staging-copy` is device memory, so that copy is device to device
//! (hundreds of GB/s on an H200): beside the host-device paths it would read as a host-to-device
//! figure. The sweep table and the transfer chart name such rows apart ([`series_name`]), so
//! one source decides it for both.
//!
//! A row without the parameter, in a run whose other rows have it, is one whose buffers'
//! placement the adapter did not tell (a discrete card off Vulkan: DX12's upload heap is most
//! likely host memory, so its copy may well cross): not known either way, so it is neither
//! marked on device nor kept among the host-device figures, but named apart as not known
//! ([`LINK_NOT_KNOWN`]). A file without the parameter anywhere (older gpubench) marks nothing.

use gpubench_results::BenchResult;

/// What the name of a path's rows that stayed on the device ends with.
pub const ON_DEVICE: &str = " (on device)";

/// What the name of a path's rows ends with where the row does not say whether its bytes
/// crossed the link but other rows of the run say theirs did.
pub const LINK_NOT_KNOWN: &str = " (link crossing not known)";

/// What a reader is told of a path marked [`ON_DEVICE`].
pub const ON_DEVICE_NOTE: &str = "a path marked (on device) did not cross the host-device link \
     (its crosses_link parameter: with a large BAR the staging buffer is device memory, so the copy \
     may never leave the device); it is no host-device figure";

/// What a reader is told of a path marked [`LINK_NOT_KNOWN`].
pub const LINK_NOT_KNOWN_NOTE: &str = "a path marked (link crossing not known) has buffers whose \
     placement the adapter does not tell (a discrete card off Vulkan), so whether its copy crossed \
     the host-device link is not known; it is kept apart from the host-device figures";

/// The suffixes [`series_name`] may add, each with what a reader is told of it.
const MARKS: [(&str, &str); 2] = [
    (ON_DEVICE, ON_DEVICE_NOTE),
    (LINK_NOT_KNOWN, LINK_NOT_KNOWN_NOTE),
];

/// What a reader is told of the marked series among `names` (from [`series_name`]): one note
/// per kind of mark present, in a fixed order; none where nothing is marked.
pub fn notes_for<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let names: Vec<&str> = names.into_iter().collect();
    MARKS
        .iter()
        .filter(|(suffix, _)| names.iter().any(|n| n.ends_with(suffix)))
        .map(|&(_, note)| note)
        .collect()
}

/// The marked series of `path` (its sizes all marked alike) among `names`, where `path` itself
/// has no series of its own: the series its fitted model belongs to.
pub fn marked_series<'a>(
    path: &str,
    names: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<String> {
    if names.clone().into_iter().any(|n| n == path) {
        return None;
    }
    MARKS
        .iter()
        .map(|(suffix, _)| format!("{path}{suffix}"))
        .find(|marked| names.clone().into_iter().any(|n| n == marked))
}

/// What `r` says of its bytes: `Some(true)` where they crossed the link, `Some(false)` where
/// they did not, `None` where the row does not say (older files, paths with no placement).
fn crosses(r: &BenchResult) -> Option<bool> {
    r.params.get("crosses_link")?.as_bool()
}

/// Whether `r` says its bytes stayed on the device (a copy out of a large BAR's staging
/// buffer): no share of the link is its to show, whatever an older file stored beside it.
pub fn stayed_on_device(r: &BenchResult) -> bool {
    crosses(r) == Some(false)
}

/// What a results grid's row name ends with where `link` (from [`any_crosses`]) says the run
/// had a link: [`ON_DEVICE`] where `r` says its bytes did not cross it, or, for a row of a path
/// that says nothing itself (a fitted model), where every row of its path among `rows` that
/// says anything says so; nothing otherwise (on unified memory nothing crosses, and nothing is
/// marked).
pub fn grid_mark(r: &BenchResult, rows: &[&BenchResult], link: bool) -> &'static str {
    let on_device = link
        && match crosses(r) {
            Some(crossed) => !crossed,
            None => path_of(r).is_some_and(|path| {
                let mut said = rows
                    .iter()
                    .filter(|o| path_of(o) == Some(path))
                    .filter_map(|o| crosses(o))
                    .peekable();
                said.peek().is_some() && said.all(|crossed| !crossed)
            }),
        };
    if on_device { ON_DEVICE } else { "" }
}

/// The transfer path a row measures (its `path` param).
fn path_of(r: &BenchResult) -> Option<&str> {
    r.params.get("path")?.as_str()
}

/// Whether any of `rows` crossed the link: a discrete card's run. On unified memory no row
/// does (there is no link), and there no path is marked, since every path is then as much a
/// host-device figure as another.
pub fn any_crosses<'a>(rows: impl IntoIterator<Item = &'a BenchResult>) -> bool {
    rows.into_iter().any(|r| crosses(r) == Some(true))
}

/// The name `path`'s row `r` is shown under where `link` (from [`any_crosses`]) says the run
/// had a link: `path (on device)` where the row says its bytes did not cross it, `path (link
/// crossing not known)` where the row does not say, `path` where it says they did. Without a
/// link (unified memory, or a file from before the parameter), `path`.
pub fn series_name(path: &str, r: &BenchResult, link: bool) -> String {
    match (link, crosses(r)) {
        (true, Some(false)) => format!("{path}{ON_DEVICE}"),
        (true, None) => format!("{path}{LINK_NOT_KNOWN}"),
        _ => path.to_string(),
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
        assert_eq!(series_name("p", &on_device, false), "p");
        // A file that never says (older gpubench, or unified memory): nothing is marked.
        assert!(!any_crosses([&unsaid]));
        assert_eq!(series_name("p", &unsaid, false), "p");
    }

    #[test]
    fn a_grid_marks_a_copy_that_stayed_on_the_card_and_its_fit() {
        let with_path = |crosses: Option<bool>, path: &str| {
            let mut r = row(crosses);
            r.params.insert("path".into(), path.into());
            r
        };
        let (copy, fit) = (
            with_path(Some(false), "h2d-staging-copy"),
            with_path(None, "h2d-staging-copy"),
        );
        let (crossed, crossed_fit) = (
            with_path(Some(true), "h2d-write-buffer"),
            with_path(None, "h2d-write-buffer"),
        );
        let rows = [&copy, &fit, &crossed, &crossed_fit];
        assert_eq!(grid_mark(&copy, &rows, true), ON_DEVICE);
        assert_eq!(grid_mark(&fit, &rows, true), ON_DEVICE);
        assert_eq!(grid_mark(&crossed, &rows, true), "");
        assert_eq!(grid_mark(&crossed_fit, &rows, true), "");
        // A fit whose path's rows say nothing (an older file) is not marked.
        let alone = with_path(None, "h2d-staging-copy");
        assert_eq!(grid_mark(&alone, &[&alone], true), "");
        // Unified memory: nothing crosses, so nothing is marked.
        let unified = [&copy, &fit];
        let link = any_crosses(unified);
        assert_eq!(grid_mark(&copy, &unified, link), "");
        assert!(any_crosses(rows), "the run above had a link");
    }

    #[test]
    fn each_kind_of_mark_gets_its_note_and_a_marked_path_keeps_its_fit() {
        assert!(notes_for(["a", "b"]).is_empty());
        let names = ["a (on device)", "b (link crossing not known)", "c"];
        assert_eq!(notes_for(names), [ON_DEVICE_NOTE, LINK_NOT_KNOWN_NOTE]);
        assert_eq!(
            marked_series("b", names).as_deref(),
            Some("b (link crossing not known)")
        );
        assert_eq!(marked_series("a", names).as_deref(), Some("a (on device)"));
        assert_eq!(marked_series("c", names), None);
    }

    #[test]
    fn a_row_that_does_not_say_in_a_run_with_a_link_is_named_not_known() {
        // A discrete card off Vulkan: end-to-end rows cross; the staging copy's placement is
        // not known, so its row carries no crosses_link.
        let (over_link, unsaid) = (row(Some(true)), row(None));
        let link = any_crosses([&over_link, &unsaid]);
        assert!(link);
        let name = series_name("h2d-staging-copy", &unsaid, link);
        assert_eq!(name, "h2d-staging-copy (link crossing not known)");
        // Neither on device nor a host-device figure.
        assert!(!name.ends_with(ON_DEVICE), "{name}");
        assert_ne!(name, series_name("h2d-staging-copy", &over_link, link));
    }
}
