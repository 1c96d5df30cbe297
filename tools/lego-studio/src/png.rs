//! PNG output of `draw`: the SVG picture (lego_algebra::picture) rasterized by resvg at twice its size, with
//! the DejaVu fonts of Debian's `fonts-dejavu-core` (`make setup` installs it) for its monospace text. Nothing
//! is drawn differently from the SVG: the same cells, colours and text.

use resvg::{tiny_skia, usvg};

/// Where the fonts are looked for, in order (the first directory holding a font file is used).
const FONT_DIRS: &[&str] = &["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts"];

/// Pixels per SVG unit: 2 keeps the cell text legible.
pub const SCALE: f32 = 2.0;

/// The PNG file of `svg`.
pub fn render(svg: &str) -> Result<Vec<u8>, String> {
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    for dir in FONT_DIRS {
        // The font files of the directory itself (DejaVu's are all there), not a scan of a whole tree.
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for path in entries.flatten().map(|entry| entry.path()) {
            let is_font = path.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e, "ttf" | "otf" | "ttc"));
            if let (true, Ok(data)) = (is_font, std::fs::read(&path)) {
                fonts.load_font_data(data);
            }
        }
        if !fonts.is_empty() {
            break;
        }
    }
    if fonts.is_empty() {
        return Err(format!(
            "no font found in {} to draw the text with: install Debian's fonts-dejavu-core (make setup does)",
            FONT_DIRS.join(" or ")
        ));
    }
    fonts.set_monospace_family("DejaVu Sans Mono");
    fonts.set_sans_serif_family("DejaVu Sans");
    let tree = usvg::Tree::from_str(svg, &options).map_err(|error| format!("the picture is not valid SVG: {error}"))?;
    let size = tree.size().to_int_size().scale_by(SCALE).ok_or("the picture is too large for a PNG")?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| format!("the picture ({} × {} pixels) is too large for a PNG", size.width(), size.height()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(SCALE, SCALE), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|error| format!("cannot encode the PNG: {error}"))
}
