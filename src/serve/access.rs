//! Who may use the server: a random token made at each launch (in the address `idp serve`
//! prints, `?token=...`) that every API request carries in the `X-Idp-Token` header, and the
//! page that sends a request (`X-Idp-Page`, a random name each page makes for itself), which
//! owns the runs it starts: another page can neither read nor stop them.

use std::io::Read;

use tiny_http::Request;

use super::ServeError;

/// The header that carries the launch's token.
pub const TOKEN_HEADER: &str = "X-Idp-Token";
/// The header that names the page.
pub const PAGE_HEADER: &str = "X-Idp-Page";

/// `bytes` random bytes from the system, as lowercase hex.
pub fn random_hex(bytes: usize) -> Result<String, ServeError> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| ServeError::Internal(format!("no random numbers (/dev/urandom): {e}")))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// The value of header `name`, if the request has it.
pub fn header<'a>(request: &'a Request, name: &'static str) -> Option<&'a str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

/// Whether two strings are equal, in a time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Refuses a request without the launch's token.
pub fn check_token(request: &Request, token: &str) -> Result<(), ServeError> {
    match header(request, TOKEN_HEADER) {
        Some(given) if same(given, token) => Ok(()),
        _ => Err(ServeError::Forbidden(
            "this request lacks the server's token: open the address that idp serve printed \
             (it ends in ?token=...)"
                .into(),
        )),
    }
}

/// The page a request comes from (its `X-Idp-Page` header: 8 to 64 letters, digits or `-`).
pub fn page_of(request: &Request) -> Result<String, ServeError> {
    let page = header(request, PAGE_HEADER).unwrap_or("");
    let ok = (8..=64).contains(&page.len())
        && page.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(page.to_string())
    } else {
        Err(ServeError::BadRequest(format!(
            "runs belong to a page: send an {PAGE_HEADER} header (8 to 64 letters, digits or -)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_hex_has_the_length_asked_and_varies() {
        let (a, b) = (random_hex(16).unwrap(), random_hex(16).unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn tokens_are_compared_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }
}
