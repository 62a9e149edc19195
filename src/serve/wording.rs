//! The run's messages worded for the page: the buffer's positions are `line N` (not
//! `stdin:N`, which the page turns into links to the line), an expression's are `expression`,
//! a stop is the page's Stop (not Ctrl-C), and the hints to raise a limit with a command-line
//! flag, which a page user cannot give, are left out.

/// Pieces of the command line's messages and what the page says instead, in order.
const REPLACEMENTS: [(&str, &str); 7] = [
    (" (--timeout) was reached", " was reached"),
    (
        "; raise it with --timeout SECONDS",
        " (the workbench's limit for a run)",
    ),
    (
        "; raise it with --max-memory MB",
        " (the workbench's limit for a run)",
    ),
    (", or raise the limit with --max-ground-size.", "."),
    (" or raise the limit with --max-ground-size.", "."),
    ("interrupted (Ctrl-C)", "Stop was pressed"),
    ("(Ctrl-C)", "(Stop)"),
];

/// One line of a run's stderr, worded for the page.
pub fn for_page(line: &str) -> String {
    let mut text = positions(line);
    for (cli, page) in REPLACEMENTS {
        if text.contains(cli) {
            text = text.replace(cli, page);
        }
    }
    text
}

/// `stdin:12:3` becomes `line 12:3`, and `-e:1:` becomes `expression:`.
fn positions(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(k) = rest.find("stdin:") {
        let after = &rest[k + "stdin:".len()..];
        out.push_str(&rest[..k]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str("line ");
        } else {
            out.push_str("stdin:");
        }
        rest = after;
    }
    out.push_str(rest);
    match out.strip_prefix("Error: -e:1:") {
        Some(tail) => format!("Error: expression:{tail}"),
        None => out.replace(" -e:1:", " expression:"),
    }
}

/// How a run that a limit or Stop ended is described, from its `Stopped: ...` line.
pub fn stop_outcome(stderr: &str) -> Option<&'static str> {
    let line = stderr.lines().find(|l| l.starts_with("Stopped: "))?;
    let reason = &line["Stopped: ".len()..];
    Some(if reason.starts_with("memory:") {
        "stopped: memory limit reached (exit code 3)"
    } else if reason.starts_with("timeout:") {
        "stopped: time limit reached (exit code 3)"
    } else if reason.starts_with("Stop was pressed") {
        "stopped by Stop (exit code 3)"
    } else {
        "stopped (exit code 3)"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_lines_of_the_buffer() {
        assert_eq!(
            for_page("Error: stdin:317: io.open is not allowed"),
            "Error: line 317: io.open is not allowed"
        );
        assert_eq!(
            for_page("Error: bad At stdin:3:5 [code]"),
            "Error: bad At line 3:5 [code]"
        );
        assert_eq!(for_page("reading from stdin: x"), "reading from stdin: x");
        assert_eq!(
            for_page("Error: -e:1: attempt to call global 'solv'"),
            "Error: expression: attempt to call global 'solv'"
        );
    }

    #[test]
    fn limits_are_the_workbenchs() {
        assert_eq!(
            for_page(
                "Stopped: timeout: the time limit of 4 s (--timeout) was reached while running a \
                 procedure; raise it with --timeout SECONDS"
            ),
            "Stopped: timeout: the time limit of 4 s was reached while running a procedure \
             (the workbench's limit for a run)"
        );
        assert_eq!(
            for_page(
                "Stopped: interrupted (Ctrl-C) after 3 models (the models found so far were kept)"
            ),
            "Stopped: Stop was pressed after 3 models (the models found so far were kept)"
        );
        let memory = "Stopped: memory: the process uses 300 MB, more than the memory limit of 150 MB; raise it with --max-memory MB";
        assert_eq!(
            for_page(memory),
            "Stopped: memory: the process uses 300 MB, more than the memory limit of 150 MB \
             (the workbench's limit for a run)"
        );
        assert_eq!(
            stop_outcome(&for_page(memory)),
            Some("stopped: memory limit reached (exit code 3)")
        );
        assert_eq!(stop_outcome("Error: x"), None);
    }
}
