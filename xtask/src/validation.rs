//! Every suite under the Khronos validation layer, with synchronisation validation and best
//! practices on: the run fails on any `VUID-` (an invalid call) or `SYNC-` (a hazard) message.
//! Two controls keep the check honest: the clean run must log best-practices messages (the
//! layer was live and reading its settings), and a run with `--inject-fault vulkan-hazard` (raw
//! Vulkan commands with a write-after-write hazard and a misaligned fill, recorded behind
//! wgpu's back) must log a `SYNC-HAZARD-WRITE-AFTER-WRITE` and the fill's VUID, so a silent
//! layer or a broken log filter cannot pass.
//!
//! The layer comes from the system where it is installed; on Debian and Ubuntu it is otherwise
//! unpacked from its package (`apt-get download vulkan-validationlayers`) into target/xtask,
//! never installed system-wide, and used through `VK_LAYER_PATH` for these runs alone, so no
//! other test runs under it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace_root;

const LAYER: &str = "VK_LAYER_KHRONOS_validation";
const MANIFEST: &str = "VkLayer_khronos_validation.json";

/// The folders the Vulkan loader reads explicit layers from, as `var` gives the environment:
/// `VK_LAYER_PATH` alone where it is set (it replaces the search), else `VK_ADD_LAYER_PATH`'s
/// folders, then the user's and the system's configuration and data folders (the loader's
/// search on Linux and macOS; a LunarG SDK sets one of the two variables).
fn loader_layer_folders(var: impl Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let split = |list: String| -> Vec<PathBuf> {
        std::env::split_paths(&list)
            .filter(|p| !p.as_os_str().is_empty())
            .collect()
    };
    if let Some(only) = var("VK_LAYER_PATH").filter(|v| !v.is_empty()) {
        return split(only);
    }
    let layers = |data: PathBuf| data.join("vulkan/explicit_layer.d");
    let mut folders = var("VK_ADD_LAYER_PATH").map(split).unwrap_or_default();
    let home_config = var("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".config")));
    folders.extend(home_config.map(layers));
    let config_dirs = var("XDG_CONFIG_DIRS")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "/etc/xdg".to_string());
    folders.extend(split(config_dirs).into_iter().map(layers));
    let home_data = var("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".local/share")));
    folders.extend(home_data.map(layers));
    folders.extend(["/etc", "/usr/local/etc"].map(|etc| layers(PathBuf::from(etc))));
    let data_dirs = var("XDG_DATA_DIRS")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".to_string());
    folders.extend(split(data_dirs).into_iter().map(layers));
    folders
}

/// Where the layer's manifest is: `None` where the loader finds it already (installed, or an
/// SDK's), else a folder of ours, unpacked from the Debian package.
fn layer_folder(dir: &Path) -> Result<Option<PathBuf>, String> {
    let installed = loader_layer_folders(|name| std::env::var(name).ok())
        .iter()
        .any(|folder| folder.join(MANIFEST).is_file());
    if installed {
        return Ok(None);
    }
    let folder = dir.join("manifest");
    if folder.join(MANIFEST).is_file() {
        return Ok(Some(folder));
    }
    unpack(dir, &folder)?;
    Ok(Some(folder))
}

/// Downloads and unpacks the Debian package into `dir`, and writes a manifest in `folder`
/// whose library path is the unpacked library's, absolute.
fn unpack(dir: &Path, folder: &Path) -> Result<(), String> {
    let missing = "the Khronos validation layer is not installed: apt-get install vulkan-validationlayers (Debian/Ubuntu), dnf install vulkan-validation-layers (Fedora), or the LunarG Vulkan SDK; GPUBENCH_SKIP_VALIDATION=1 skips this check";
    if !crate::setup::apt_tools_present() {
        return Err(missing.to_string());
    }
    let debs = dir.join("deb");
    std::fs::create_dir_all(&debs).map_err(|e| format!("creating {}: {e}", debs.display()))?;
    eprintln!(
        "xtask: unpacking vulkan-validationlayers into {} (not installed system-wide)",
        dir.display()
    );
    if !crate::setup::apt_download("vulkan-validationlayers", &debs) {
        return Err(format!(
            "apt-get download vulkan-validationlayers failed; {missing}"
        ));
    }
    let deb = std::fs::read_dir(&debs)
        .map_err(|e| format!("reading {}: {e}", debs.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or_else(|| format!("no .deb in {}", debs.display()))?;
    let root = dir.join("root");
    let status = Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&root)
        .status()
        .map_err(|e| format!("dpkg-deb: {e}"))?;
    if !status.success() {
        return Err(format!("dpkg-deb -x {} failed", deb.display()));
    }
    let manifest = root
        .join("usr/share/vulkan/explicit_layer.d")
        .join(MANIFEST);
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("reading {}: {e}", manifest.display()))?;
    let mut json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let name = json["layer"]["library_path"]
        .as_str()
        .map(|p| Path::new(p).file_name().map(|f| f.to_owned()))
        .unwrap_or_default()
        .ok_or_else(|| format!("{}: no library_path", manifest.display()))?;
    let library = find_file(&root.join("usr/lib"), &name).ok_or_else(|| {
        format!(
            "{} not found under {}",
            Path::new(&name).display(),
            root.display()
        )
    })?;
    json["layer"]["library_path"] = serde_json::Value::String(library.display().to_string());
    std::fs::create_dir_all(folder).map_err(|e| format!("creating {}: {e}", folder.display()))?;
    std::fs::write(folder.join(MANIFEST), json.to_string())
        .map_err(|e| format!("writing the manifest: {e}"))
}

fn find_file(dir: &Path, name: &std::ffi::OsStr) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name() == Some(name) {
            return Some(path);
        }
    }
    None
}

/// What one run under the layer logged, by kind.
#[derive(Debug, Default)]
struct Logged {
    vuid: Vec<String>,
    sync: Vec<String>,
    best_practices: usize,
}

impl Logged {
    fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("the layer wrote no log at {}: {e}", path.display()))?;
        let mut logged = Logged::default();
        for line in text.lines() {
            if line.contains("VUID-") {
                logged.vuid.push(line.to_string());
            }
            if line.contains("SYNC-") {
                logged.sync.push(line.to_string());
            }
            if line.contains("BestPractices") {
                logged.best_practices += 1;
            }
        }
        Ok(logged)
    }
}

/// Runs `gpubench run ARGS` under the layer and returns what it logged.
fn run_under_layer(
    gpubench: &Path,
    dir: &Path,
    folder: Option<&Path>,
    args: &[&str],
) -> Result<Logged, String> {
    let log = dir.join("validation.log");
    let _ = std::fs::remove_file(&log);
    let settings = format!(
        "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n\
         khronos_validation.report_flags = error,warn,perf,info\n\
         khronos_validation.log_filename = {}\n\
         khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT\n",
        log.display()
    );
    std::fs::write(dir.join("vk_layer_settings.txt"), settings)
        .map_err(|e| format!("writing the layer settings: {e}"))?;
    let dir_text = dir.display().to_string();
    let mut env = vec![
        ("VK_INSTANCE_LAYERS", LAYER.to_string()),
        ("VK_LAYER_SETTINGS_PATH", dir_text),
        // wgpu would add the layer itself in a debug build; the variable above does it for
        // every build, and wgpu's own use of it is switched off so there is one instance.
        ("WGPU_VALIDATION", "0".to_string()),
    ];
    if let Some(folder) = folder {
        env.push(("VK_LAYER_PATH", folder.display().to_string()));
    }
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut full = vec!["run"];
    full.extend_from_slice(args);
    let code = crate::test_build::run_status(gpubench, &full, &env_refs)?;
    // Exit 4 (a benchmark failed) would be a finding of its own; anything but 0 is an error.
    if code != Some(0) {
        let how = code.map_or("was ended by a signal".to_string(), |c| {
            format!("exited {c}")
        });
        return Err(format!(
            "gpubench run {} under the validation layer {how}",
            args.join(" ")
        ));
    }
    Logged::read(&log)
}

/// Whether the check is skipped on purpose (`GPUBENCH_SKIP_VALIDATION=1`).
fn skipped() -> bool {
    std::env::var_os("GPUBENCH_SKIP_VALIDATION").is_some_and(|v| v == "1")
}

/// The check's folder, created, and the layer's manifest folder in it (`None`: the system's).
fn prepared() -> Result<(PathBuf, Option<PathBuf>), String> {
    let dir = workspace_root().join("target/xtask/validation");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let folder = layer_folder(&dir)?;
    Ok((dir, folder))
}

/// Unpacks the layer ahead of the check (nothing where the check is skipped).
pub fn fetch() -> Result<(), String> {
    if skipped() {
        return Ok(());
    }
    prepared().map(drop)
}

/// The check (see the module docs).
pub fn check() -> Result<(), String> {
    if skipped() {
        eprintln!("xtask: GPUBENCH_SKIP_VALIDATION=1: the validation-layer check is skipped");
        return Ok(());
    }
    let (dir, folder) = prepared()?;
    // The tests' build, with the example suite: `--suite all` then shows that a suite added as
    // one folder and one registry line is checked under the layer too.
    let gpubench = crate::test_build::programs()?.gpubench;
    let out = dir.join("run.json");
    let out_text = out.display().to_string();
    let common = [
        "--backend",
        "vulkan",
        "--profile",
        "quick",
        "--no-progress",
        "--noise-check",
        "off",
        "--out",
        &out_text,
    ];
    // The control first: a layer that does not report this reports nothing.
    let mut control: Vec<&str> = common.to_vec();
    control.extend_from_slice(&[
        "--suite",
        "stream",
        "--stream-size",
        "64KiB",
        "--max-time",
        "0.5",
        "--inject-fault",
        "vulkan-hazard",
    ]);
    let logged = run_under_layer(&gpubench, &dir, folder.as_deref(), &control)?;
    let caught_hazard = logged
        .sync
        .iter()
        .any(|l| l.contains("SYNC-HAZARD-WRITE-AFTER-WRITE"));
    let caught_misuse = logged
        .vuid
        .iter()
        .any(|l| l.contains("VUID-vkCmdFillBuffer-dstOffset-00025"));
    if !caught_hazard || !caught_misuse {
        return Err(format!(
            "the validation layer missed the injected hazard ({}) or misuse ({}): it is not live or not configured; {} SYNC and {} VUID messages",
            if caught_hazard { "caught" } else { "missed" },
            if caught_misuse { "caught" } else { "missed" },
            logged.sync.len(),
            logged.vuid.len()
        ));
    }
    eprintln!("xtask: validation control: the injected hazard and misuse were both reported");
    // Every suite, quick, with short benchmarks: the calls are what is checked, not the figures.
    // `--suite all` is every suite the registry lists, so a new suite is checked with no edit here.
    let mut clean: Vec<&str> = common.to_vec();
    clean.extend_from_slice(&["--suite", "all"]);
    clean.extend_from_slice(&["--max-time", "0.5"]);
    let logged = run_under_layer(&gpubench, &dir, folder.as_deref(), &clean)?;
    if logged.best_practices == 0 {
        return Err(
            "the validation layer logged no best-practices message: it was not live".to_string(),
        );
    }
    if !logged.vuid.is_empty() || !logged.sync.is_empty() {
        let first: Vec<&String> = logged.vuid.iter().chain(&logged.sync).take(5).collect();
        return Err(format!(
            "under the validation layer: {} VUID and {} SYNC messages; first: {first:#?}",
            logged.vuid.len(),
            logged.sync.len()
        ));
    }
    eprintln!(
        "xtask: every suite under the validation layer: 0 VUID, 0 SYNC ({} best-practices messages: the layer was live)",
        logged.best_practices
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new directory of this test's own under the temporary directory: `create_dir` fails
    /// where the name exists (as a directory, a file or a link someone planted), and then the
    /// next name is tried, so the test never writes through a path another user prepared.
    fn own_temp_dir() -> std::path::PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        (0..1000)
            .map(|k| {
                std::env::temp_dir().join(format!(
                    "xtask-validation-{}-{nanos}-{k}",
                    std::process::id()
                ))
            })
            .find(|dir| std::fs::create_dir(dir).is_ok())
            .expect("a new temporary directory")
    }

    /// `VK_LAYER_PATH` replaces the loader's search; otherwise `VK_ADD_LAYER_PATH` comes first,
    /// then the user's data folder and the system's, `XDG_DATA_DIRS` where it is set.
    #[test]
    fn the_layer_is_looked_for_where_the_loader_looks() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let only = loader_layer_folders(env(&[
            ("VK_LAYER_PATH", "/sdk/layers:/more"),
            ("VK_ADD_LAYER_PATH", "/added"),
            ("HOME", "/home/u"),
        ]));
        assert_eq!(only, [PathBuf::from("/sdk/layers"), PathBuf::from("/more")]);
        let searched = loader_layer_folders(env(&[
            ("VK_ADD_LAYER_PATH", "/added"),
            ("HOME", "/home/u"),
            ("XDG_DATA_DIRS", "/opt/share"),
        ]));
        let expected = [
            "/added",
            "/home/u/.config/vulkan/explicit_layer.d",
            "/etc/xdg/vulkan/explicit_layer.d",
            "/home/u/.local/share/vulkan/explicit_layer.d",
            "/etc/vulkan/explicit_layer.d",
            "/usr/local/etc/vulkan/explicit_layer.d",
            "/opt/share/vulkan/explicit_layer.d",
        ]
        .map(PathBuf::from);
        assert_eq!(searched, expected);
        let system = loader_layer_folders(env(&[]));
        assert!(system.contains(&PathBuf::from("/usr/share/vulkan/explicit_layer.d")));
        assert!(system.contains(&PathBuf::from("/usr/local/share/vulkan/explicit_layer.d")));
    }

    #[test]
    fn the_log_is_read_by_message_kind() {
        let dir = own_temp_dir();
        let log = dir.join("validation.log");
        std::fs::write(
            &log,
            "UNASSIGNED-BestPractices-vkCreateInstance-x(WARN / SPEC): ...\n\
             Validation Error: [ VUID-vkCmdFillBuffer-dstOffset-00025 ] ...\n\
             Validation Error: [ SYNC-HAZARD-WRITE-AFTER-WRITE ] ...\n    Objects: 1\n",
        )
        .expect("write");
        let logged = Logged::read(&log).expect("read");
        assert_eq!(logged.best_practices, 1);
        assert_eq!(logged.vuid.len(), 1);
        assert_eq!(logged.sync.len(), 1);
        assert!(
            Logged::read(&dir.join("absent.log")).is_err(),
            "no log is an error"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
