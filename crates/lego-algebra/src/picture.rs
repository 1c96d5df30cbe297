//! Pictures of index mappings, computed with the reference algebra: ASCII ([`Picture::render`], the docs' op
//! pages via lego-docgen, and `lego-studio draw -o x.txt`) and SVG ([`Picture::render_svg`], `lego-studio draw -o x.svg`).
//!
//! A picture has two grids:
//! - **logical → physical**: the layout's logical index space drawn as a matrix, each cell holding the flat
//!   (physical) position `apply` sends that element to;
//! - **physical → logical**: memory drawn row by row, each address holding the matrix coordinate `(r,c)` of
//!   the element stored there (`·` where no element lands: padding of `expand_by`).
//!
//! Rank-2 layouts are drawn as they are. Higher ranks are drawn as the matrix they tile: for logical dims
//! `[d0, d1, d2, d3, …]` the rows are indexed by `(d0, d2, …)` and the columns by `(d1, d3, …)`, so
//! `tile_by … tile_dims [[2, 4], [4, 3]]` (logical `(ti, tk, i, k)`) is drawn as its 8 × 12 matrix with a line
//! between tiles. Rank 1 is one row.

use crate::{mixed_radix_flatten, mixed_radix_unflatten, Layout, NO_ELEMENT};
use std::fmt::Write as _;

/// How a layout's logical index maps onto the rows and columns of the drawing.
struct View {
    /// Positions (into the logical index) that make up the row coordinate, outermost first.
    row_axes: Vec<usize>,
    col_axes: Vec<usize>,
    dims: Vec<u64>,
}

impl View {
    fn of(layout: &Layout) -> View {
        let rank = layout.rank();
        let (row_axes, col_axes): (Vec<usize>, Vec<usize>) = match rank {
            1 => (Vec::new(), vec![0]),
            _ if rank & 1 == 0 => ((0..rank).step_by(2).collect(), (1..rank).step_by(2).collect()),
            _ => (vec![0], (1..rank).collect()),
        };
        View { row_axes, col_axes, dims: layout.dims().to_vec() }
    }

    fn sizes(&self, axes: &[usize]) -> Vec<u64> {
        axes.iter().map(|axis| self.dims[*axis]).collect()
    }

    fn rows(&self) -> u64 {
        self.sizes(&self.row_axes).iter().product()
    }

    fn cols(&self) -> u64 {
        self.sizes(&self.col_axes).iter().product()
    }

    /// The logical index drawn at (row, col).
    fn index(&self, row: u64, col: u64) -> Vec<u64> {
        let mut index = vec![0; self.dims.len()];
        for (axis, value) in self.row_axes.iter().zip(mixed_radix_unflatten(&self.sizes(&self.row_axes), row)) {
            index[*axis] = value;
        }
        for (axis, value) in self.col_axes.iter().zip(mixed_radix_unflatten(&self.sizes(&self.col_axes), col)) {
            index[*axis] = value;
        }
        index
    }

    /// The (row, col) where a logical index is drawn.
    fn position(&self, index: &[u64]) -> (u64, u64) {
        let pick = |axes: &[usize]| axes.iter().map(|axis| index[*axis]).collect::<Vec<_>>();
        let row = mixed_radix_flatten(&self.sizes(&self.row_axes), &pick(&self.row_axes)).unwrap_or(0);
        let col = mixed_radix_flatten(&self.sizes(&self.col_axes), &pick(&self.col_axes)).unwrap_or(0);
        (row, col)
    }

    /// Size of the innermost block along rows / columns (the tile), for separators; 0 when there is none.
    fn row_block(&self) -> u64 {
        if self.row_axes.len() < 2 { 0 } else { self.sizes(&self.row_axes[1..]).iter().product() }
    }

    fn col_block(&self) -> u64 {
        if self.col_axes.len() < 2 { 0 } else { self.sizes(&self.col_axes[1..]).iter().product() }
    }
}

/// The computed cells: `(text, highlighted)` per cell, logical grid and physical memory.
struct Grids {
    view: View,
    rows: u64,
    cols: u64,
    logical: Vec<Vec<(String, bool)>>,
    physical: Vec<Vec<(String, bool)>>,
    memory_width: u64,
    memory_rows: u64,
    highlighted_flat: Option<u64>,
}

/// What to draw.
pub struct Picture {
    pub layout: Layout,
    /// Logical index to highlight (`[v]`), e.g. the operands of the page's `lego.apply`.
    pub highlight: Option<Vec<u64>>,
    /// Width of a memory row in the physical grid; default: the matrix width.
    pub memory_width: Option<u64>,
}

fn draw_grid(rows: u64, cols: u64, row_block: u64, col_block: u64, cells: &[Vec<(String, bool)>]) -> String {
    let width = cells.iter().flatten().map(|(text, _)| text.chars().count()).max().unwrap_or(1);
    let mut out = String::new();
    let mut separator = String::new();
    for col in 0..cols {
        if col_block > 0 && col > 0 && col % col_block == 0 {
            separator.push('+');
        }
        separator.push_str(&"-".repeat(width + 2));
    }
    for row in 0..rows {
        if row_block > 0 && row > 0 && row % row_block == 0 {
            let _ = writeln!(out, "{}", separator.trim_end());
        }
        let mut line = String::new();
        for col in 0..cols {
            if col_block > 0 && col > 0 && col % col_block == 0 {
                line.push('|');
            }
            let (text, highlighted) = &cells[row as usize][col as usize];
            if *highlighted {
                // `[9]` right-aligned like the other cells: the bracket takes the place of the padding.
                let _ = write!(line, "{:>w$}]", format!("[{text}"), w = width + 1);
            } else {
                let _ = write!(line, " {text:>width$} ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

impl Picture {
    pub fn new(layout: Layout) -> Picture {
        Picture { layout, highlight: None, memory_width: None }
    }

    pub fn highlight(mut self, index: &[u64]) -> Picture {
        self.highlight = Some(index.to_vec());
        self
    }

    pub fn memory_width(mut self, width: u64) -> Picture {
        self.memory_width = Some(width);
        self
    }

    /// The cells of both grids (shared by the text and SVG renderings).
    fn grids(&self) -> Result<Grids, String> {
        let layout = &self.layout;
        let view = View::of(layout);
        let (rows, cols) = (view.rows(), view.cols());
        let highlight_position = self.highlight.as_deref().map(|index| view.position(index));
        let mut logical = Vec::with_capacity(rows as usize);
        let size = layout.codomain_size();
        let mut memory: Vec<Option<(u64, u64)>> = vec![None; size as usize];
        let mut highlighted_flat = None;
        for row in 0..rows {
            let mut line = Vec::with_capacity(cols as usize);
            for col in 0..cols {
                let index = view.index(row, col);
                let flat = layout.apply(&index).map_err(|error| format!("apply{index:?}: {error}"))?;
                let highlighted = highlight_position == Some((row, col));
                if flat == NO_ELEMENT {
                    line.push(("·".to_string(), highlighted));
                    continue;
                }
                if highlighted {
                    highlighted_flat = Some(flat);
                }
                match memory.get_mut(flat as usize) {
                    Some(slot @ None) => *slot = Some((row, col)),
                    Some(Some(_)) => return Err(format!("apply{index:?} = {flat} is hit twice: not injective")),
                    None => return Err(format!("apply{index:?} = {flat} is outside 0..{size}")),
                }
                line.push((flat.to_string(), highlighted));
            }
            logical.push(line);
        }
        let memory_width = self.memory_width.unwrap_or(cols).max(1);
        let memory_rows = size.div_ceil(memory_width);
        let mut physical = Vec::with_capacity(memory_rows as usize);
        for memory_row in 0..memory_rows {
            let mut line = Vec::new();
            for memory_col in 0..memory_width {
                let flat = memory_row * memory_width + memory_col;
                let cell = match memory.get(flat as usize) {
                    Some(Some((row, col))) => (format!("{row},{col}"), Some(flat) == highlighted_flat),
                    Some(None) => ("·".to_string(), false),
                    None => (String::new(), false),
                };
                line.push(cell);
            }
            physical.push(line);
        }
        Ok(Grids { view, rows, cols, logical, physical, memory_width, memory_rows, highlighted_flat })
    }

    /// Both grids, as plain text (no code fence).
    pub fn render(&self) -> Result<String, String> {
        let layout = &self.layout;
        let Grids { view, rows, cols, logical, physical, memory_width, memory_rows, highlighted_flat } = self.grids()?;
        let mut out = String::new();
        let shape = |axes: &[usize]| {
            axes.iter().map(|axis| format!("i{axis}")).collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(out, "{layout}");
        let _ = writeln!(out, "logical dims {:?}, {} elements", layout.dims(), layout.numel());
        let _ = writeln!(out);
        if layout.rank() == 1 {
            let _ = writeln!(out, "logical index i0 (left to right) -> physical position:");
        } else {
            let _ = writeln!(
                out,
                "logical index -> physical position (rows: ({}), columns: ({})):",
                shape(&view.row_axes),
                shape(&view.col_axes)
            );
        }
        out.push_str(&draw_grid(rows, cols, view.row_block(), view.col_block(), &logical));
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "physical memory, {memory_width} positions per line -> (row,column) of the element stored there:"
        );
        out.push_str(&draw_grid(memory_rows, memory_width, 0, 0, &physical));
        if let (Some(index), Some(flat)) = (&self.highlight, highlighted_flat) {
            let _ = writeln!(out);
            let _ = writeln!(out, "[..]: apply{index:?} = {flat}");
        }
        Ok(out)
    }
}

impl Picture {
    /// Both grids as a standalone SVG document: the logical grid (each cell holds its physical offset, a line
    /// between tiles) above the physical memory strip (each position holds the (row,column) stored there).
    /// A cell and the memory position it maps to share a colour (the hue follows the offset), and each has a
    /// tooltip (`<title>`) naming both ends of the mapping.
    pub fn render_svg(&self) -> Result<String, String> {
        let layout = &self.layout;
        let Grids { view, rows, cols, logical, physical, memory_width, memory_rows, highlighted_flat: _ } = self.grids()?;
        let size = layout.codomain_size().max(1);
        let longest = logical.iter().chain(&physical).flatten().map(|(text, _)| text.chars().count()).max().unwrap_or(1);
        let cell_w = (8 * longest as u64 + 14).max(28);
        let cell_h = 24u64;
        let margin = 16u64;
        let title_h = 44u64;
        let gap = 40u64;
        let grid_w = cols * cell_w;
        let strip_w = memory_width * cell_w;
        let title = layout.to_string();
        // Monospace at 14px is about 8.4px a character; the widest of the title, the grid and the strip.
        let title_w = title.chars().count() as u64 * 85 / 10;
        let width = 2 * margin + grid_w.max(strip_w).max(title_w).max(420);
        let logical_y = margin + title_h;
        let strip_y = logical_y + rows * cell_h + gap;
        let height = strip_y + memory_rows * cell_h + margin;
        let colour = |flat: u64| format!("hsl({}, 70%, 86%)", flat * 300 / size);
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">"#
        );
        let _ = writeln!(out, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
        let _ = writeln!(out, r#"<text x="{margin}" y="{}" font-size="14">{}</text>"#, margin + 12, xml(&title));
        let _ = writeln!(
            out,
            r#"<text x="{margin}" y="{}">logical dims {:?}, {} elements: logical index → physical offset</text>"#,
            margin + 32,
            layout.dims(),
            layout.numel()
        );
        for (row, line) in logical.iter().enumerate() {
            for (col, (text, highlighted)) in line.iter().enumerate() {
                let (x, y) = (margin + col as u64 * cell_w, logical_y + row as u64 * cell_h);
                let index = view.index(row as u64, col as u64);
                let fill = text.parse::<u64>().map(colour).unwrap_or_else(|_| "#eeeeee".into());
                svg_cell(&mut out, &format!("logical {index:?} → {}", xml(text)), (x, y, cell_w, cell_h), &fill, *highlighted, text);
            }
        }
        // Tile boundaries: heavier lines every innermost block.
        let (row_block, col_block) = (view.row_block(), view.col_block());
        for row in (1..rows).filter(|row| row_block > 0 && row % row_block == 0) {
            let y = logical_y + row * cell_h;
            let _ = writeln!(out, r#"<line x1="{margin}" y1="{y}" x2="{}" y2="{y}" stroke="black" stroke-width="2"/>"#, margin + grid_w);
        }
        for col in (1..cols).filter(|col| col_block > 0 && col % col_block == 0) {
            let x = margin + col * cell_w;
            let _ = writeln!(out, r#"<line x1="{x}" y1="{logical_y}" x2="{x}" y2="{}" stroke="black" stroke-width="2"/>"#, logical_y + rows * cell_h);
        }
        let _ = writeln!(
            out,
            r#"<text x="{margin}" y="{}">physical memory, {memory_width} positions per line: (row,column) stored at each offset</text>"#,
            strip_y - 8
        );
        for (memory_row, line) in physical.iter().enumerate() {
            for (memory_col, (text, highlighted)) in line.iter().enumerate() {
                let flat = memory_row as u64 * memory_width + memory_col as u64;
                if flat >= layout.codomain_size() {
                    continue;
                }
                let (x, y) = (margin + memory_col as u64 * cell_w, strip_y + memory_row as u64 * cell_h);
                let fill = if text == "·" { "#eeeeee".to_string() } else { colour(flat) };
                svg_cell(&mut out, &format!("offset {flat} ← {}", xml(text)), (x, y, cell_w, cell_h), &fill, *highlighted, text);
            }
        }
        out.push_str("</svg>\n");
        Ok(out)
    }
}

/// One SVG cell: a rectangle (black border when highlighted) with its text centred and a hover title.
fn svg_cell(out: &mut String, title: &str, (x, y, w, h): (u64, u64, u64, u64), fill: &str, highlighted: bool, text: &str) {
    let stroke = if highlighted { r#" stroke="black" stroke-width="2""# } else { r##" stroke="#999999""## };
    let _ = writeln!(
        out,
        r#"<g><title>{title}</title><rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}"{stroke}/><text x="{}" y="{}" text-anchor="middle">{}</text></g>"#,
        x + w / 2,
        y + 16,
        xml(text)
    );
}

/// Text escaped for XML character data and attribute values.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples;

    #[test]
    fn row_major_is_numbered_in_reading_order() {
        let text = Picture::new(examples::row_4x8()).render().unwrap();
        assert!(text.contains("  0   1   2   3   4   5   6   7\n"), "{text}");
        assert!(text.contains(" 24  25  26  27  28  29  30  31\n"), "{text}");
    }

    #[test]
    fn highlight_marks_both_grids() {
        let text = Picture::new(examples::col_4x8()).highlight(&[1, 2]).render().unwrap();
        assert!(text.contains("[9]"), "{text}");
        assert!(text.contains("[1,2]"), "{text}");
        assert!(text.contains("apply[1, 2] = 9"), "{text}");
    }

    #[test]
    fn tiles_are_separated() {
        let text = Picture::new(examples::tiled_8x12()).highlight(&[1, 2, 3, 1]).render().unwrap();
        assert!(text.contains('+') && text.contains('|'), "{text}");
        assert!(text.contains("[91]"), "{text}");
    }

    #[test]
    fn svg_has_one_cell_per_element_in_each_view() {
        let svg = Picture::new(examples::col_4x8()).render_svg().unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
        assert_eq!(svg.matches("<title>logical ").count(), 32, "{svg}");
        assert_eq!(svg.matches("<title>offset ").count(), 32, "{svg}");
        // col [4, 8]: logical (1, 2) is at offset 1 + 4·2 = 9, and offset 9 holds (1,2).
        assert!(svg.contains("<title>logical [1, 2] → 9</title>"), "{svg}");
        assert!(svg.contains("<title>offset 9 ← 1,2</title>"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn padding_has_no_element() {
        let text = Picture::new(examples::partial_tiles_5x6()).memory_width(6).render().unwrap();
        assert!(text.contains('·'), "{text}");
    }
}
