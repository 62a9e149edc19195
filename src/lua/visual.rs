//! The Lua side of `visualize(structure [, options])`: reads the options table and calls
//! [`crate::visual`]. `initVisualization()` (IDP3's set-up of its web visualiser) is a no-op.
//!
//! Also `readkey()`, for games that draw their board (the maze game's `play`): one key press
//! from the terminal, without Enter and without echo, named `up`, `down`, `left`, `right`
//! (the arrow keys), `ctrl-c`, `ctrl-d`, `escape`, `enter`, `backspace`, or the character
//! typed. Ctrl-C is read as a key (the terminal's interrupt is off while waiting), so a game
//! can quit at once. When stdin is not a terminal it returns nil and the game reads lines.

use std::io::IsTerminal;
use std::os::fd::AsRawFd;

use mlua::{Lua, Table as LuaTable, Value as LuaValue};

use crate::lua::objects::{as_structure, describe};
use crate::lua::{rt_err, state};
use crate::visual::{self, Options};

/// `__idp_visualize(structure, options)`: the text to print (the prelude's `visualize` writes
/// it through `io.stdout`, in order with `print`).
pub fn visualize_text(lua: &Lua, s: LuaValue, opts: LuaValue) -> mlua::Result<String> {
    let Some(shared) = as_structure(&s) else {
        return Err(rt_err(format!(
            "visualize: argument 1 should be a structure, not a {}",
            describe(&s)
        )));
    };
    let mut options = match opts {
        LuaValue::Nil => Options::default(),
        LuaValue::Table(t) => parse_options(&t)?,
        other => {
            return Err(rt_err(format!(
                "visualize: argument 2 should be a table of options, not a {}",
                describe(&other)
            )))
        }
    };
    let st = state(lua);
    if st.sandbox.get() && options.svg.is_some() {
        return Err(rt_err(
            "visualize: writing SVG files is not allowed in --sandbox mode",
        ));
    }
    options.svg_on_stdout = crate::message_format::enabled();
    let s = shared.borrow();
    visual::visualize(&st.program(), &s, &options, std::io::stdout().is_terminal())
        .map_err(|m| rt_err(format!("visualize: {m}")))
}

/// Reads `{ show = {...}, hide = {...}, glyphs = {...}, colours = {...}, unicode = b,
/// path = b, rows = b, svg = "file.svg", quiet = b }` (`colors` is accepted for `colours`).
pub fn parse_options(t: &LuaTable) -> mlua::Result<Options> {
    let mut o = Options::default();
    for pair in t.clone().pairs::<LuaValue, LuaValue>() {
        let (k, v) = pair?;
        let LuaValue::String(k) = k else {
            return Err(rt_err("visualize: option names should be strings"));
        };
        let key = k.to_str()?.to_string();
        match key.as_str() {
            "show" => o.show = Some(string_list(&key, &v)?),
            "hide" => o.hide = string_list(&key, &v)?,
            "glyphs" => {
                for (name, g) in string_map(&key, &v)? {
                    let c = g.chars().next().ok_or_else(|| {
                        rt_err(format!("visualize: the glyph of {name} is empty"))
                    })?;
                    o.glyphs.insert(name, c);
                }
            }
            "colours" | "colors" => o.colours.extend(string_map(&key, &v)?),
            "unicode" => o.unicode = Some(boolean(&key, &v)?),
            "path" => o.path = boolean(&key, &v)?,
            "rows" => o.rows = Some(boolean(&key, &v)?),
            "quiet" => o.quiet = boolean(&key, &v)?,
            "svg" => match &v {
                LuaValue::String(s) => o.svg = Some(s.to_str()?.to_string()),
                _ => return Err(type_error(&key, "a file name", &v)),
            },
            _ => {
                return Err(rt_err(format!(
                    "visualize: unknown option {key} (known: show, hide, glyphs, colours, \
                     unicode, path, rows, svg, quiet)"
                )))
            }
        }
    }
    Ok(o)
}

fn type_error(key: &str, want: &str, v: &LuaValue) -> mlua::Error {
    rt_err(format!(
        "visualize: option {key} should be {want}, not a {}",
        describe(v)
    ))
}

fn boolean(key: &str, v: &LuaValue) -> mlua::Result<bool> {
    match v {
        LuaValue::Boolean(b) => Ok(*b),
        _ => Err(type_error(key, "true or false", v)),
    }
}

/// A list of names: `{"Wall", "Exit"}` (a single string is a list of one).
fn string_list(key: &str, v: &LuaValue) -> mlua::Result<Vec<String>> {
    match v {
        LuaValue::String(s) => Ok(vec![s.to_str()?.to_string()]),
        LuaValue::Table(t) => {
            let mut out = Vec::new();
            for item in t.clone().sequence_values::<LuaValue>() {
                match item? {
                    LuaValue::String(s) => out.push(s.to_str()?.to_string()),
                    other => return Err(type_error(key, "a list of symbol names", &other)),
                }
            }
            Ok(out)
        }
        _ => Err(type_error(key, "a list of symbol names", v)),
    }
}

/// A table from symbol names to strings: `{ Wall = "#", Exit = "X" }`.
fn string_map(key: &str, v: &LuaValue) -> mlua::Result<Vec<(String, String)>> {
    let LuaValue::Table(t) = v else {
        return Err(type_error(key, "a table from symbol names to strings", v));
    };
    let mut out = Vec::new();
    for pair in t.clone().pairs::<LuaValue, LuaValue>() {
        match pair? {
            (LuaValue::String(n), LuaValue::String(s)) => {
                out.push((n.to_str()?.to_string(), s.to_str()?.to_string()))
            }
            (_, other) => {
                return Err(type_error(
                    key,
                    "a table from symbol names to strings",
                    &other,
                ))
            }
        }
    }
    Ok(out)
}

/// `readkey()`: the next key pressed on the terminal (see the module doc), or nil when stdin
/// is not a terminal. Not allowed under `--sandbox` (like `io.read`).
pub fn read_key(lua: &Lua) -> mlua::Result<Option<String>> {
    if state(lua).sandbox.get() {
        return Err(rt_err("readkey is not allowed in --sandbox mode"));
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Ok(None);
    }
    let raw = RawMode::enter(stdin.as_raw_fd()).map_err(|e| rt_err(format!("readkey: {e}")))?;
    let Some(first) = raw.byte(true) else {
        return Ok(Some("ctrl-d".into()));
    };
    Ok(Some(match first {
        3 => "ctrl-c".into(),
        4 => "ctrl-d".into(),
        b'\r' | b'\n' => "enter".into(),
        8 | 127 => "backspace".into(),
        27 => escape_sequence(&raw),
        b => decode_utf8(&raw, b),
    }))
}

/// The key after an escape byte: an arrow key (`ESC [ A` or `ESC O A`), or `escape` alone.
fn escape_sequence(raw: &RawMode) -> String {
    match raw.byte(false) {
        Some(b'[') | Some(b'O') => {}
        _ => return "escape".into(),
    }
    let name = match raw.byte(false) {
        Some(b'A') => "up",
        Some(b'B') => "down",
        Some(b'C') => "right",
        Some(b'D') => "left",
        _ => "escape",
    };
    name.into()
}

/// A character that starts with byte `b`, reading the rest of its UTF-8 encoding.
fn decode_utf8(raw: &RawMode, b: u8) -> String {
    let len = match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    let mut bytes = vec![b];
    while bytes.len() < len {
        match raw.byte(false) {
            Some(next) => bytes.push(next),
            None => break,
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The terminal in raw input mode (no line editing, no echo, Ctrl-C as a byte) until dropped.
struct RawMode {
    fd: i32,
    saved: libc::termios,
}

impl RawMode {
    fn enter(fd: i32) -> std::io::Result<RawMode> {
        // SAFETY: termios is plain data; tcgetattr fills it for a terminal fd.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: `saved` is a valid termios for tcgetattr to fill.
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut raw = saved;
        raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        raw.c_iflag &= !(libc::ICRNL | libc::IXON);
        raw.c_cc[libc::VMIN] = 1;
        raw.c_cc[libc::VTIME] = 0;
        // SAFETY: fd is a terminal and raw a valid termios.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(RawMode { fd, saved })
    }

    /// One byte: waiting for it (`wait`), or only as long as the rest of an escape sequence
    /// takes to arrive (a tenth of a second). None at the end of input or on a read error.
    fn byte(&self, wait: bool) -> Option<u8> {
        if !wait {
            let mut poll = libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            if unsafe { libc::poll(&mut poll, 1, 100) } <= 0 {
                return None;
            }
        }
        let mut b = 0u8;
        loop {
            // SAFETY: reads at most one byte into b.
            let n = unsafe { libc::read(self.fd, (&mut b as *mut u8).cast(), 1) };
            if n == 1 {
                return Some(b);
            }
            let interrupted =
                n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
            if !interrupted {
                return None;
            }
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `enter` on the same fd.
        unsafe {
            libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved);
        }
    }
}
