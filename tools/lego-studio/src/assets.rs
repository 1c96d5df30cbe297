//! The app's files, embedded by build.rs (every file of `web/`, and `/lego_algebra.wasm` when the wasm32 build
//! of lego-algebra exists). Until the app has an `index.html`, `/` is [`FALLBACK_PAGE`]: a small page that
//! talks to the API, so `serve` is usable on its own.

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// `/` when `web/index.html` does not exist: an editor, a stage menu and the API's answer.
const FALLBACK_PAGE: &str = include_str!("fallback.html");

/// The content type and contents served at `path`.
pub fn get(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = if path.ends_with('/') { format!("{path}index.html") } else { path.to_string() };
    if let Some((_, body)) = ASSETS.iter().find(|(url, _)| *url == path) {
        return Some((content_type(&path), body));
    }
    (path == "/index.html").then_some(("text/html; charset=utf-8", FALLBACK_PAGE.as_bytes()))
}

/// The embedded paths (for `serve --list-assets`, and the tests).
pub fn paths() -> impl Iterator<Item = &'static str> {
    ASSETS.iter().map(|(url, _)| *url)
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt" | "md" | "mlir") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
