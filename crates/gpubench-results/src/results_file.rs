//! Reading and writing result documents. Writes are atomic (a temporary file in the same
//! directory, flushed to disk, then renamed over the target), so a reader or a crash never sees a
//! half-written file. Reads go through [`crate::bounded`]: regular files only (a FIFO or a
//! device is refused without blocking), bounded by the bytes actually read as well as by the
//! size the file reports; then JSON, type and schema version are checked; a UTF-8 byte-order
//! mark is skipped. Every error names the file.
//!
//! The writers are native-only: a browser build (`wasm32`) has no file system and offers the
//! document's bytes ([`document_bytes`]) as a download instead.

#[cfg(not(target_arch = "wasm32"))]
use std::io::Write;
use std::path::Path;

use crate::error::ResultsError;
use crate::schema::{OLDEST_READABLE_SCHEMA, RunDocument, SCHEMA_VERSION, legacy_role};

/// Files larger than this are refused before parsing.
pub const MAX_DOCUMENT_BYTES: u64 = 256 * 1024 * 1024;

/// `path` with `suffix` added to its stem, beside it: `out.json` + `-smaller` ->
/// `out-smaller.json`; `fallback` names a path that has no stem.
pub fn sibling_with_suffix(path: &Path, suffix: &str, fallback: &str) -> std::path::PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| fallback.into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}{suffix}.{}", ext.to_string_lossy()),
        None => format!("{stem}{suffix}"),
    };
    path.with_file_name(name)
}

#[cfg(not(target_arch = "wasm32"))]
/// Writes `bytes` to `path` atomically: temp file beside it, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    write_atomic_as(path, bytes, Replace::Yes)
}

#[cfg(not(target_arch = "wasm32"))]
/// Whether a write may replace a file already at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replace {
    /// Replace it (the caller named the file, or wrote it before).
    Yes,
    /// Fail with [`std::io::ErrorKind::AlreadyExists`] instead, atomically: no other writer
    /// can slip a file in between the check and the write.
    No,
}

#[cfg(not(target_arch = "wasm32"))]
/// Like [`save_document`], but never replaces a file already at `path`: an
/// [`ResultsError::Io`] of kind [`std::io::ErrorKind::AlreadyExists`] instead (see
/// [`ResultsError::already_exists`]). For names the tool chose itself.
pub fn save_new_document(path: &Path, doc: &RunDocument) -> Result<(), ResultsError> {
    write_atomic_as(path, &document_bytes(doc)?, Replace::No)
}

#[cfg(not(target_arch = "wasm32"))]
fn write_atomic_as(path: &Path, bytes: &[u8], replace: Replace) -> Result<(), ResultsError> {
    let io_err = |source| ResultsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".gpubench-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io_err)?;
    let _writing = crate::in_flight::Writing::start(temp.path().to_path_buf());
    temp.write_all(bytes).map_err(io_err)?;
    // Temporary files are private (0600 on Unix); a results file is not. Keep the target's
    // permissions when replacing it, else make it readable like any file the user writes.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions = std::fs::metadata(path)
            .map(|m| m.permissions())
            .unwrap_or_else(|_| std::fs::Permissions::from_mode(0o644));
        temp.as_file()
            .set_permissions(permissions)
            .map_err(io_err)?;
    }
    temp.as_file().sync_all().map_err(io_err)?;
    match replace {
        Replace::Yes => temp.persist(path).map(drop),
        Replace::No => temp.persist_noclobber(path).map(drop),
    }
    .map_err(|e| io_err(e.error))?;
    // Make the rename itself durable where the platform allows opening directories.
    if let Ok(dir_handle) = std::fs::File::open(dir) {
        let _ = dir_handle.sync_all();
    }
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
/// Serialises `doc` as pretty JSON and writes it atomically.
pub fn save_document(path: &Path, doc: &RunDocument) -> Result<(), ResultsError> {
    write_atomic(path, &document_bytes(doc)?)
}

/// `doc` as pretty JSON with a final newline: the bytes every writer writes (and a browser
/// build offers as a download).
pub fn document_bytes(doc: &RunDocument) -> Result<Vec<u8>, ResultsError> {
    let mut bytes = serde_json::to_vec_pretty(doc)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Reads a result document, refusing what is not one with an error that names the file.
pub fn load_document(path: &Path) -> Result<RunDocument, ResultsError> {
    let bad = |reason: String| ResultsError::BadDocument {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = read_document_bytes(path)?;
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
    // One pass where the file is a document; its version is read apart only when it is not.
    parse_document(bytes).map_err(|reason| match schema_version_of(bytes) {
        Ok(version) => newer_schema(path, version).unwrap_or_else(|| bad(reason)),
        Err(_) => bad(reason),
    })
}

/// [`ResultsError::NewerSchema`] where `version` is newer than this gpubench reads (a directory
/// scan says so apart from files that are not results at all).
fn newer_schema(path: &Path, version: u64) -> Option<ResultsError> {
    (version > u64::from(SCHEMA_VERSION)).then(|| ResultsError::NewerSchema {
        path: path.to_path_buf(),
        version,
    })
}

/// The bytes of the results file at `path`, bounded by [`MAX_DOCUMENT_BYTES`]; a file too large
/// or not a regular file is a bad document, anything else an I/O error.
fn read_document_bytes(path: &Path) -> Result<Vec<u8>, ResultsError> {
    let bad = |reason: String| ResultsError::BadDocument {
        path: path.to_path_buf(),
        reason,
    };
    crate::bounded::read_bounded(path, MAX_DOCUMENT_BYTES).map_err(|error| match error.kind() {
        std::io::ErrorKind::FileTooLarge => bad(format!(
            "over the {MAX_DOCUMENT_BYTES}-byte limit for a result file"
        )),
        std::io::ErrorKind::InvalidInput => bad(error.to_string()),
        _ => ResultsError::Io {
            path: path.to_path_buf(),
            source: error,
        },
    })
}

/// What a directory scan needs of a results file to group and order runs: the machine and the
/// start time, read without building the results (which are skipped, not held).
#[derive(Debug, Clone)]
pub struct RunHeader {
    /// The machine and adapter measured.
    pub machine: crate::schema::MachineInfo,
    /// When the run started, as written.
    pub started_at: String,
}

/// The header of the results file at `path`: the file is read (bounded as by
/// [`load_document`]) and checked to be a gpubench result of a schema this version reads, but
/// its results are skipped, so memory stays near the file's own size however many files a
/// scan looks at. A file whose header reads but whose body does not fails later, in
/// [`load_document`].
pub fn load_header(path: &Path) -> Result<RunHeader, ResultsError> {
    // Not `#[serde(flatten)]` over RunHeader: flattening buffers every other field, results
    // included, which is what this reader exists to avoid.
    #[derive(serde::Deserialize)]
    struct Header {
        machine: crate::schema::MachineInfo,
        started_at: String,
        // Every other field (the results) is skipped as it is read, never held.
    }
    let bad = |reason: String| ResultsError::BadDocument {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = read_document_bytes(path)?;
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
    let version = schema_version_of(bytes).map_err(bad)?;
    if let Some(newer) = newer_schema(path, version) {
        return Err(newer);
    }
    check_version(version).map_err(bad)?;
    serde_json::from_slice::<Header>(bytes)
        .map(|h| RunHeader {
            machine: h.machine,
            started_at: h.started_at,
        })
        .map_err(|e| bad(format!("not a valid gpubench result: {e}")))
}

/// The UTF-8 byte-order mark some editors put at the start of a file.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Parses a document from bytes; the error is a one-line reason.
/// A leading UTF-8 byte-order mark is skipped.
pub fn parse_document(bytes: &[u8]) -> Result<RunDocument, String> {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("file is empty, not a gpubench result".to_string());
    }
    // Every readable schema is read in one pass, straight into the document, never through a
    // serde_json::Value (several times the file's size in memory). A file that does not read
    // is looked at again only for its schema_version, to say what it is.
    let error = match serde_json::from_slice::<RunDocument>(bytes) {
        Ok(mut doc) => {
            check_version(u64::from(doc.schema_version))?;
            if doc.schema_version < 2 {
                fill_legacy_roles(&mut doc, &stated_roles(bytes));
            }
            // The list grew by doubling while it was read: up to twice the room it needs.
            doc.results.shrink_to_fit();
            return Ok(doc);
        }
        Err(error) => error,
    };
    check_version(schema_version_of(bytes)?)?;
    Err(format!("not a valid gpubench result: {error}"))
}

/// Whether this gpubench reads `version`, with the reason when it does not.
fn check_version(version: u64) -> Result<(), String> {
    if version > u64::from(SCHEMA_VERSION) {
        return Err(format!(
            "schema_version {version} is newer than this gpubench reads ({SCHEMA_VERSION}): upgrade gpubench"
        ));
    }
    if version < u64::from(OLDEST_READABLE_SCHEMA) {
        return Err(format!(
            "schema_version {version} is older than any this gpubench reads"
        ));
    }
    Ok(())
}

/// The `schema_version` of a document, read without building it (every other field is
/// skipped), with the reason when it is not a gpubench result at all.
fn schema_version_of(bytes: &[u8]) -> Result<u64, String> {
    #[derive(serde::Deserialize)]
    struct Head {
        schema_version: Option<serde_json::Value>,
    }
    let not_json = |e: serde_json::Error| format!("not valid JSON ({e})");
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(not_json)?;
        return Err("not a gpubench result (top level is not a JSON object)".to_string());
    }
    let head: Head = serde_json::from_slice(bytes).map_err(not_json)?;
    let Some(version) = head.schema_version else {
        return Err("not a gpubench result (no schema_version field)".to_string());
    };
    version
        .as_u64()
        .ok_or_else(|| "schema_version is not a whole number".to_string())
}

/// Gives every result of a file written before results carried a `role` (schema 1) the role
/// its id had then ([`legacy_role`]), so charts and derived results read old files as they read
/// new ones; a role the file states (`stated`, by result) is kept.
fn fill_legacy_roles(document: &mut RunDocument, stated: &[bool]) {
    for (k, result) in document.results.iter_mut().enumerate() {
        if !stated.get(k).copied().unwrap_or(false) {
            result.role = legacy_role(&result.id);
        }
    }
}

/// Which results of the document in `bytes` state a `role`, read without building them (every
/// other field is skipped): a bit per result, not a second copy of the file in memory.
fn stated_roles(bytes: &[u8]) -> Vec<bool> {
    #[derive(serde::Deserialize)]
    struct Document {
        #[serde(default)]
        results: Vec<Stated>,
    }
    #[derive(serde::Deserialize)]
    struct Stated {
        role: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Document>(bytes)
        .map(|doc| doc.results.iter().map(|r| r.role.is_some()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_rejects_non_results_with_reasons() {
        let cases: [(&[u8], &str); 6] = [
            (b"", "empty"),
            (b"{\"schema_version\": 1", "JSON"),
            (b"[1,2]", "not a gpubench result"),
            (b"{\"a\": 1}", "schema_version"),
            (b"{\"schema_version\": 99}", "newer"),
            (b"{\"schema_version\": 1}", "valid gpubench"),
        ];
        for (bytes, says) in cases {
            let reason = parse_document(bytes).expect_err("not a result");
            assert!(reason.contains(says), "{reason}");
        }
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let with_bom = b"\xEF\xBB\xBF{\"schema_version\": 99}";
        // Read past the mark: the version is what refuses it, not the first byte.
        assert!(parse_document(with_bom).unwrap_err().contains("newer"));
        assert!(
            parse_document(b"\xEF\xBB\xBF")
                .unwrap_err()
                .contains("empty")
        );
    }

    /// `/dev/zero` never ends and a FIFO nobody writes never starts: neither is read.
    #[cfg(unix)]
    #[test]
    fn an_endless_or_blocking_input_is_refused_without_reading() {
        let error = load_document(Path::new("/dev/zero")).expect_err("endless");
        assert!(error.to_string().contains("not a regular file"), "{error}");
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = crate::bounded::tests::fifo_in(dir.path(), "baseline.json");
        let error = load_document(&fifo).expect_err("a FIFO");
        assert!(error.to_string().contains("not a regular file"), "{error}");
    }

    #[test]
    fn atomic_writes_replace_whole_files_unless_told_not_to_replace() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("r.json");
        write_atomic(&path, b"first").expect("write");
        write_atomic(&path, b"second").expect("write");
        assert_eq!(std::fs::read(&path).expect("read"), b"second");
        // A write that may not replace leaves the file there as it was.
        let err = write_atomic_as(&path, b"other", Replace::No).expect_err("taken");
        assert!(err.already_exists(), "{err}");
        assert_eq!(std::fs::read(&path).expect("read"), b"second");
        write_atomic_as(&dir.path().join("new.json"), b"new", Replace::No).expect("a new name");
        let leftovers = std::fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(leftovers, 2, "no temporary files left behind");
    }

    #[test]
    fn atomic_write_into_missing_directory_fails_and_names_path() {
        let err = write_atomic(Path::new("/nonexistent-dir-gpubench/r.json"), b"x").unwrap_err();
        assert!(err.to_string().contains("/nonexistent-dir-gpubench/r.json"));
    }
}

#[cfg(test)]
mod float_round_trip {
    use crate::run_noise::RunNoise;
    use proptest::prelude::*;

    proptest! {
        /// A figure read back from a file is the figure written, to the last bit: a baseline
        /// saved from a results file, or a level compared with its own drift, sees what the
        /// run measured.
        #[test]
        fn every_finite_figure_reads_back_to_the_bit(bits in any::<u64>()) {
            let value = f64::from_bits(bits);
            prop_assume!(value.is_finite());
            let mut noise = RunNoise::new("reference", "GB/s");
            noise.drift = Some(value);
            let text = serde_json::to_string(&noise).expect("serializes");
            let back: RunNoise = serde_json::from_str(&text).expect("parses");
            prop_assert_eq!(back.drift.map(f64::to_bits), Some(bits), "{}", text);
        }
    }
}
