//! PNG output of `draw`: the SVG picture (lego_algebra::picture) rasterized by resvg, with the DejaVu fonts
//! of Debian's `fonts-dejavu-core` (`make setup` installs it) for its monospace text. The same cells, colours
//! and lines as the SVG, at twice its size — or smaller, so the longer side is at most `max_size` pixels
//! (`draw --max-png-size`, default [`DEFAULT_MAX_SIZE`]): a picture a person can open. When that makes the
//! cells' labels smaller than [`MIN_LABEL_PIXELS`], they are left out (the cells keep their colours; the
//! headings stay), which also keeps a large picture within what resvg parses (a million SVG nodes). A picture
//! so long and thin that its shorter side would be under [`MIN_SHORTER_SIDE`] pixels is refused.

use resvg::{tiny_skia, usvg};

/// Where the fonts are looked for, in order (the first directory holding a font file is used).
const FONT_DIRS: &[&str] = &["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts"];

/// Pixels per SVG unit when the picture fits: 2 keeps the cell text legible.
pub const SCALE: f32 = 2.0;

/// The longer side of a PNG, in pixels, unless `--max-png-size` says otherwise.
pub const DEFAULT_MAX_SIZE: u32 = 4096;

/// The most `--max-png-size` accepts (a 16 384² RGBA image is 1 GiB while it is drawn).
pub const LARGEST_SIZE: u32 = 16_384;

/// The cell labels' font size in SVG units (lego_algebra::picture's `font-size="12"`).
const LABEL_FONT: f32 = 12.0;

/// The thinnest PNG drawn, in pixels: a picture that scaling to `max_size` makes thinner is refused.
pub const MIN_SHORTER_SIDE: u32 = 32;

/// Labels drawn smaller than this many pixels are left out: they could not be read.
pub const MIN_LABEL_PIXELS: f32 = 6.0;

/// The pixels per SVG unit for a `width` × `height` picture whose longer side must be at most `max_size`.
pub fn scale_for(width: f32, height: f32, max_size: u32) -> f32 {
    let longest = width.max(height).max(1.0);
    SCALE.min(max_size as f32 / longest)
}

/// The `width` and `height` attributes of the `<svg>` element.
fn svg_size(svg: &str) -> Option<(f32, f32)> {
    let head = &svg[..svg.find('>')?];
    let attribute = |name: &str| -> Option<f32> {
        let start = head.find(&format!(" {name}=\""))? + name.len() + 3;
        head[start..].split('"').next()?.parse().ok()
    };
    Some((attribute("width")?, attribute("height")?))
}

/// `svg` without what a PNG cannot show (tooltips) and, when `labels` is false, without the cells' labels
/// (the `text-anchor="middle"` texts of lego_algebra::picture's cells) and the groups around them.
fn strip(svg: &str, labels: bool) -> Result<String, String> {
    let titles = regex::Regex::new(r"<title>[^<]*</title>").map_err(|error| error.to_string())?;
    let stripped = titles.replace_all(svg, "");
    if labels {
        return Ok(stripped.into_owned());
    }
    let cells = regex::Regex::new(r#"<g>(<rect [^>]*/>)<text [^>]*text-anchor="middle">[^<]*</text></g>"#).map_err(|error| error.to_string())?;
    Ok(cells.replace_all(&stripped, "$1").into_owned())
}

/// The PNG file of `svg`, its longer side at most `max_size` pixels.
pub fn render(svg: &str, max_size: u32) -> Result<Vec<u8>, String> {
    let (width, height) = svg_size(svg).ok_or("the picture has no size")?;
    let scale = scale_for(width, height, max_size);
    // A very long, thin picture (a rank-1 layout of many elements is one line of cells) scaled to fit would
    // be a few pixels high: refused before it is rasterized, saying what to do instead.
    let shorter = (width.min(height) * scale).round();
    if shorter < MIN_SHORTER_SIDE as f32 {
        return Err(format!(
            "the picture is {width} × {height} units: with its longer side at most {max_size} px (--max-png-size, at most {LARGEST_SIZE}) its shorter side would be {shorter} px, under {MIN_SHORTER_SIDE}: draw it as .svg or .txt"
        ));
    }
    let svg = strip(svg, LABEL_FONT * scale >= MIN_LABEL_PIXELS)?;
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
    let tree = usvg::Tree::from_str(&svg, &options).map_err(|error| format!("the picture is not valid SVG: {error}"))?;
    // Rounded, and never past the bound (a rounding up of the longer side would be one pixel too many).
    let pixels = |units: f32| ((units * scale).round().max(1.0) as u32).min(max_size);
    let (columns, rows) = (pixels(tree.size().width()), pixels(tree.size().height()));
    let mut pixmap = tiny_skia::Pixmap::new(columns, rows)
        .ok_or_else(|| format!("the picture ({columns} × {rows} pixels) is too large for a PNG"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|error| format!("cannot encode the PNG: {error}"))
}
