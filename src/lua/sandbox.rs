//! The sandbox for untrusted specifications (`idp --sandbox`): procedures keep Lua's pure
//! libraries (`string`, `table`, `math`, `coroutine`) and writing to stdout and stderr, but lose
//! everything that reaches the file system, other processes or native code:
//!
//! * `os` keeps only `time`, `clock`, `date` and `difftime`; `os.execute`, `os.exit`,
//!   `os.getenv`, `os.remove`, `os.rename`, `os.tmpname` and `os.setlocale` raise an error;
//! * `io` keeps `write`, `stdout`, `stderr` and `type`; `io.read`, `io.input`, `io.output`,
//!   `io.popen`, `io.close` and `io.tmpfile` raise an error, and `io.stdin` is gone; `io.open`
//!   and `io.lines` raise one too, unless `--sandbox-read DIR` lets them read (only read) the
//!   files inside DIR (after `..` and symbolic links are resolved);
//! * `require`, `module`, `dofile`, `loadfile`, `package.loadlib` and `string.dump` raise an
//!   error, and `package` no longer leads to the real `io` and `os` (`package.loaded`);
//! * `loadstring` and `load` refuse binary chunks (Lua 5.1 does not verify bytecode);
//! * `visualize` does not write SVG files.
//!
//! The blocked functions raise `NAME is not allowed in --sandbox mode`, located at the caller.
//! Includes outside the specification's folder are refused by the loader
//! ([`crate::syntax::loader`]).

use std::path::{Path, PathBuf};

use mlua::Lua;

/// The Lua code that replaces the unsafe globals. It runs once, before any procedure.
const SANDBOX: &str = r#"
local readable = ...
local function deny(name)
	return function()
		error(name .. " is not allowed in --sandbox mode", 2)
	end
end

local real_os, real_io = os, io
local real_loadstring, real_load = loadstring, load

os = {
	time = real_os.time,
	clock = real_os.clock,
	date = real_os.date,
	difftime = real_os.difftime,
}
for _, name in ipairs({ "execute", "exit", "getenv", "remove", "rename", "tmpname", "setlocale" }) do
	os[name] = deny("os." .. name)
end

io = {
	write = real_io.write,
	stdout = real_io.stdout,
	stderr = real_io.stderr,
	type = real_io.type,
}
for _, name in ipairs({ "open", "read", "lines", "input", "output", "popen", "close", "tmpfile" }) do
	io[name] = deny("io." .. name)
end

-- With --sandbox-read DIR: files inside DIR may be opened for reading.
if readable then
	io.open = function(path, mode)
		if mode ~= nil and mode ~= "r" and mode ~= "rb" then
			error("io.open: only reading (mode \"r\") is allowed in --sandbox mode, not mode \""
				.. tostring(mode) .. "\"", 2)
		end
		local real, why = readable(path)
		if not real then
			return nil, why
		end
		return real_io.open(real, "r")
	end
	io.lines = function(path)
		if path == nil then
			error("io.lines without a file (standard input) is not allowed in --sandbox mode", 2)
		end
		local real, why = readable(path)
		if not real then
			error(why, 2)
		end
		return real_io.lines(real)
	end
end

require = deny("require")
module = deny("module")
dofile = deny("dofile")
loadfile = deny("loadfile")
package = { loadlib = deny("package.loadlib"), loaded = {}, preload = {}, path = "", cpath = "" }
string.dump = deny("string.dump")

-- Binary chunks could break out of the sandbox: only source text may be loaded.
loadstring = function(text, name)
	if type(text) == "string" and string.byte(text, 1) == 27 then
		return nil, "binary chunks are not allowed in --sandbox mode"
	end
	return real_loadstring(text, name)
end
load = function(reader, name)
	if type(reader) ~= "function" then
		return real_load(reader, name)
	end
	local parts = {}
	while true do
		local piece = reader()
		if piece == nil or piece == "" then
			break
		end
		parts[#parts + 1] = piece
	end
	return loadstring(table.concat(parts), name)
end
"#;

/// Replaces the unsafe globals of `lua` (see the module documentation); with `read`, files
/// inside that folder may be read.
pub fn install(lua: &Lua, read: Option<&Path>) -> mlua::Result<()> {
    let readable = match read {
        Some(dir) => {
            let dir = dir.canonicalize().map_err(|e| {
                mlua::Error::RuntimeError(format!(
                    "--sandbox-read: cannot open the folder {}: {e}",
                    dir.display()
                ))
            })?;
            let resolve = lua.create_function(move |_, path: String| {
                Ok(match readable_path(&dir, &path) {
                    Ok(real) => (Some(real.display().to_string()), None),
                    Err(why) => (None, Some(why)),
                })
            })?;
            mlua::Value::Function(resolve)
        }
        None => mlua::Value::Nil,
    };
    lua.load(SANDBOX).set_name("=sandbox").call(readable)
}

/// The real path of the file `path` names when it lies inside `dir`: a relative path is looked
/// up in the current folder, then in `dir`. Otherwise why it may not be read.
pub fn readable_path(dir: &Path, path: &str) -> Result<PathBuf, String> {
    let given = Path::new(path);
    let candidates: Vec<PathBuf> = if given.is_absolute() {
        vec![given.to_path_buf()]
    } else {
        vec![given.to_path_buf(), dir.join(given)]
    };
    let found = candidates.iter().find_map(|p| p.canonicalize().ok());
    let Some(real) = found else {
        return Err(format!("{path}: No such file or directory"));
    };
    if !real.starts_with(dir) {
        return Err(format!(
            "{path}: only the files inside {} may be read in --sandbox mode",
            dir.display()
        ));
    }
    if !real.is_file() {
        return Err(format!("{path}: not a file"));
    }
    Ok(real)
}
