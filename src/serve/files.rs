//! The folder `idp serve` was started in: every path a request names is resolved inside it
//! (after `..` and symbolic links, as `--sandbox` confines includes), and the gallery of its
//! `examples/` and `specs/`.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::ServeError;

/// The largest file the page opens or saves (bytes).
pub const MAX_FILE_BYTES: usize = 4 << 20;

/// How many files the gallery lists at most.
const MAX_GALLERY: usize = 400;

/// The folders of the gallery, in order.
const GALLERY_FOLDERS: [&str; 2] = ["examples", "specs"];

/// The canonical folder that requests are confined to.
#[derive(Clone, Debug)]
pub struct Root {
    dir: PathBuf,
}

/// One entry of the file list: a path relative to the root and its group.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Entry {
    pub group: String,
    pub path: String,
}

impl Root {
    /// The root at `dir` (made canonical).
    pub fn new(dir: &Path) -> Result<Root, ServeError> {
        let dir = dir.canonicalize().map_err(|e| {
            ServeError::BadRequest(format!("cannot open the folder {}: {e}", dir.display()))
        })?;
        Ok(Root { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of an existing file named relative to the root (or absolute), if it lies
    /// inside the root after `..` and symbolic links are resolved.
    pub fn existing(&self, rel: &str) -> Result<PathBuf, ServeError> {
        let joined = self.join(rel)?;
        let real = joined
            .canonicalize()
            .map_err(|_| ServeError::NotFound(format!("there is no file {rel}")))?;
        self.inside(&real, rel)?;
        if !real.is_file() {
            return Err(ServeError::NotFound(format!("{rel} is not a file")));
        }
        Ok(real)
    }

    /// The path to write for `rel`: an existing file inside the root, or a new file whose
    /// folder is inside the root.
    pub fn writable(&self, rel: &str) -> Result<PathBuf, ServeError> {
        let joined = self.join(rel)?;
        if joined.exists() || joined.is_symlink() {
            return self.existing(rel);
        }
        let name = joined
            .file_name()
            .ok_or_else(|| ServeError::BadRequest(format!("{rel} names no file")))?;
        let parent = joined.parent().unwrap_or(&self.dir);
        let real_parent = parent
            .canonicalize()
            .map_err(|_| ServeError::NotFound(format!("the folder of {rel} does not exist")))?;
        self.inside(&real_parent, rel)?;
        Ok(real_parent.join(name))
    }

    /// The folder that a specification at `rel` runs in (its own folder), inside the root.
    pub fn folder_of(&self, rel: &str) -> Result<PathBuf, ServeError> {
        let path = self.writable(rel)?;
        Ok(path.parent().unwrap_or(&self.dir).to_path_buf())
    }

    /// `path` relative to the root, with `/` separators.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.dir).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// Reads a file inside the root as text.
    pub fn read(&self, rel: &str) -> Result<String, ServeError> {
        let path = self.existing(rel)?;
        let bytes = std::fs::read(&path)
            .map_err(|e| ServeError::Internal(format!("could not read {rel}: {e}")))?;
        if bytes.len() > MAX_FILE_BYTES {
            return Err(ServeError::BadRequest(format!(
                "{rel} is larger than {} MB",
                MAX_FILE_BYTES >> 20
            )));
        }
        String::from_utf8(bytes)
            .map_err(|_| ServeError::BadRequest(format!("{rel} is not UTF-8 text")))
    }

    /// Writes `text` to a `.idp` file inside the root (a `new` one must not exist yet);
    /// returns its path relative to the root.
    pub fn save(&self, rel: &str, text: &str, new: bool) -> Result<String, ServeError> {
        if text.len() > MAX_FILE_BYTES {
            return Err(ServeError::BadRequest(
                "the text is too large to save".into(),
            ));
        }
        if !rel.ends_with(".idp") {
            return Err(ServeError::Forbidden(format!(
                "only .idp files are saved from the page, not {rel} (Download keeps a copy)"
            )));
        }
        let path = self.writable(rel)?;
        if new && path.exists() {
            return Err(ServeError::BadRequest(format!(
                "{rel} exists already; choose another name"
            )));
        }
        std::fs::write(&path, text)
            .map_err(|e| ServeError::Internal(format!("could not write {rel}: {e}")))?;
        Ok(self.relative(&path).unwrap_or_else(|| rel.to_string()))
    }

    /// The `.idp` files under `examples/` and `specs/`, sorted, at most [`MAX_GALLERY`].
    pub fn gallery(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        for folder in GALLERY_FOLDERS {
            let mut found = Vec::new();
            collect_idp(&self.dir.join(folder), 0, &mut found);
            found.sort();
            for path in found {
                if out.len() >= MAX_GALLERY {
                    return out;
                }
                if let Some(rel) = self.relative(&path) {
                    out.push(Entry {
                        group: folder.to_string(),
                        path: rel,
                    });
                }
            }
        }
        out
    }

    /// `rel` joined to the root, refusing empty names and NUL bytes.
    fn join(&self, rel: &str) -> Result<PathBuf, ServeError> {
        if rel.is_empty() || rel.contains('\0') {
            return Err(ServeError::BadRequest("a file path is required".into()));
        }
        let p = Path::new(rel);
        if p.components().any(|c| matches!(c, Component::Prefix(_))) {
            return Err(ServeError::BadRequest(format!("{rel} is not a valid path")));
        }
        Ok(self.dir.join(p))
    }

    fn inside(&self, real: &Path, rel: &str) -> Result<(), ServeError> {
        if real.starts_with(&self.dir) {
            Ok(())
        } else {
            Err(ServeError::Forbidden(format!(
                "{rel} is outside the folder idp serve serves ({})",
                self.dir.display()
            )))
        }
    }
}

/// Adds the `.idp` files below `dir` (not following symbolic links, at most 4 levels deep).
fn collect_idp(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 4 || out.len() > MAX_GALLERY {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            collect_idp(&path, depth + 1, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "idp") {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("idp-serve-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("examples/sub")).unwrap();
        std::fs::write(dir.join("examples/a.idp"), "a").unwrap();
        std::fs::write(dir.join("examples/sub/b.idp"), "b").unwrap();
        std::fs::write(dir.join("examples/c.txt"), "c").unwrap();
        dir
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        let dir = scratch("outside");
        let outside = dir.with_extension("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.idp"), "s").unwrap();
        let root = Root::new(&dir).unwrap();
        assert_eq!(root.read("examples/a.idp").unwrap(), "a");
        let secret = outside.join("secret.idp").display().to_string();
        let up = format!(
            "../{}/secret.idp",
            outside.file_name().unwrap().to_string_lossy()
        );
        for bad in [secret.as_str(), up.as_str(), "examples/../../x.idp"] {
            assert!(
                matches!(
                    root.writable(bad),
                    Err(ServeError::Forbidden(_)) | Err(ServeError::NotFound(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(root.read(&secret), Err(ServeError::Forbidden(_))));
        assert!(matches!(root.read(&up), Err(ServeError::Forbidden(_))));
        std::os::unix::fs::symlink(&outside, dir.join("examples/link")).unwrap();
        assert!(matches!(
            root.read("examples/link/secret.idp"),
            Err(ServeError::Forbidden(_))
        ));
        assert!(matches!(
            root.save("examples/link/evil.idp", "x", false),
            Err(ServeError::Forbidden(_))
        ));
        assert!(!outside.join("evil.idp").exists());
        assert!(matches!(root.read(""), Err(ServeError::BadRequest(_))));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn saving_inside_the_root_writes_the_file() {
        let dir = scratch("save");
        let root = Root::new(&dir).unwrap();
        assert_eq!(
            root.save("examples/new.idp", "x", true).unwrap(),
            "examples/new.idp"
        );
        assert_eq!(
            root.save("examples/new.idp", "y", true),
            Err(ServeError::BadRequest(
                "examples/new.idp exists already; choose another name".into()
            ))
        );
        assert_eq!(
            root.save("examples/c.txt", "y", false),
            Err(ServeError::Forbidden(
                "only .idp files are saved from the page, not examples/c.txt (Download keeps a copy)"
                    .into()
            ))
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("examples/c.txt")).unwrap(),
            "c"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("examples/new.idp")).unwrap(),
            "x"
        );
        assert!(matches!(
            root.save("nofolder/new.idp", "x", false),
            Err(ServeError::NotFound(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_gallery_lists_idp_files_sorted() {
        let dir = scratch("gallery");
        let root = Root::new(&dir).unwrap();
        let paths: Vec<String> = root.gallery().into_iter().map(|e| e.path).collect();
        assert_eq!(paths, ["examples/a.idp", "examples/sub/b.idp"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
